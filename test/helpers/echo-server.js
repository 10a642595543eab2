'use strict';
// Runs inside an endpoint "pod" namespace: answers every TCP connection and UDP datagram with
// "<name> <peer address>" so a test can see which endpoint it reached and which source IP arrived.
// Usage: node echo-server.js NAME PORT [PORT...]
const net = require('node:net');
const dgram = require('node:dgram');

const [name, ...ports] = process.argv.slice(2);
for (const port of ports.map(Number)) {
  for (const family of ['udp4', 'udp6']) {
    const sock = dgram.createSocket({ type: family, ipv6Only: family === 'udp6' });
    // A datagram "seq N" (udp-stream-client.js) gets its payload back, so its sender can tell which
    // datagram each answer is for.
    sock.on('message', (msg, rinfo) => {
      const text = String(msg);
      sock.send(text.startsWith('seq ') ? `${name} ${rinfo.address} ${text}` : `${name} ${rinfo.address}`, rinfo.port, rinfo.address);
    });
    sock.on('error', () => sock.close());
    sock.bind(port, family === 'udp4' ? '0.0.0.0' : '::');
  }
  const server = net.createServer((c) => {
    c.end(`${name} ${c.remoteAddress.replace(/^::ffff:/, '')}`);
    c.on('error', () => {});
  });
  server.listen({ port, host: '::', ipv6Only: false });
}
process.stdout.write('ready\n');
