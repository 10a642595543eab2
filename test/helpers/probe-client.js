'use strict';
// Runs inside a client namespace: sends N requests to HOST:PORT over tcp or udp and prints one line
// per request: the reply, or "ERR <code>" (ECONNREFUSED = rejected, TIMEOUT = dropped).
// Usage: node probe-client.js tcp|udp HOST PORT [COUNT] [TIMEOUT_MS] [SOURCE_PORT]
const net = require('node:net');
const dgram = require('node:dgram');

const [proto, host, portStr, countStr = '1', timeoutStr = '1500', srcPortStr] = process.argv.slice(2);
const port = Number(portStr);
const timeout = Number(timeoutStr);

function tcpOnce() {
  return new Promise((resolve) => {
    let data = '';
    const sock = net.connect({ host, port });
    const timer = setTimeout(() => { sock.destroy(); resolve('ERR TIMEOUT'); }, timeout);
    sock.on('data', (d) => { data += d; });
    sock.on('end', () => { clearTimeout(timer); resolve(data); });
    sock.on('error', (e) => { clearTimeout(timer); resolve(`ERR ${e.code}`); });
  });
}

function udpOnce() {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    const timer = setTimeout(() => { sock.close(); resolve('ERR TIMEOUT'); }, timeout);
    sock.on('message', (m) => { clearTimeout(timer); sock.close(); resolve(m.toString()); });
    sock.on('error', (e) => { clearTimeout(timer); sock.close(); resolve(`ERR ${e.code}`); });
    const send = () => sock.send('ping', port, host);
    if (srcPortStr) sock.bind(Number(srcPortStr), send); else send();
  });
}

(async () => {
  for (let i = 0; i < Number(countStr); i++) {
    process.stdout.write(`${await (proto === 'udp' ? udpOnce() : tcpOnce())}\n`);
  }
})();
