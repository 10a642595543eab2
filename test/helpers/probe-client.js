'use strict';
// Runs inside a client namespace: sends N requests to HOST:PORT over tcp or udp and prints one line
// per request: the reply, or "ERR <code>" (ECONNREFUSED = rejected, TIMEOUT = dropped, EHOSTUNREACH /
// ENETUNREACH = no route). UDP sockets are connected so an ICMP unreachable surfaces as an error
// instead of passing silently.
// Usage: node probe-client.js tcp|udp HOST PORT [COUNT] [TIMEOUT_MS] [SOURCE_PORT] [SOURCE_ADDRESS] [GAP_MS]
// (SOURCE_PORT 0 = any; COUNT until-stdin-closes = until told to stop; GAP_MS between two requests, 0 = none).
const net = require('node:net');
const dgram = require('node:dgram');

const [proto, host, portStr, countStr = '1', timeoutStr = '1500', srcPortStr = '0', srcAddr = '', gapStr = '0'] = process.argv.slice(2);
const gapMs = Number(gapStr);
const port = Number(portStr);
const timeout = Number(timeoutStr);
const srcPort = Number(srcPortStr);

function tcpOnce() {
  return new Promise((resolve) => {
    let data = '';
    const local = {};
    if (srcAddr) local.localAddress = srcAddr;
    if (srcPort) local.localPort = srcPort;
    const sock = net.connect({ host, port, ...local });
    const timer = setTimeout(() => { sock.destroy(); resolve('ERR TIMEOUT'); }, timeout);
    sock.on('data', (d) => { data += d; });
    // Reset instead of closing: the endpoint's socket then skips TIME_WAIT, whose leftovers would
    // randomly stall a later connection that masquerade happens to give the same source port.
    sock.on('end', () => { clearTimeout(timer); sock.resetAndDestroy(); resolve(data); });
    sock.on('error', (e) => { clearTimeout(timer); resolve(`ERR ${e.code}`); });
  });
}

function udpOnce() {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
    let done = false;
    const finish = (line) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sock.close();
      resolve(line);
    };
    const timer = setTimeout(() => finish('ERR TIMEOUT'), timeout);
    sock.on('message', (m) => finish(m.toString()));
    sock.on('error', (e) => finish(`ERR ${e.code}`));
    sock.bind({ port: srcPort, address: srcAddr || undefined }, () => {
      sock.connect(port, host, (e) => (e ? finish(`ERR ${e.code}`) : sock.send('ping')));
    });
  });
}

// COUNT "until-stdin-closes": keep sending, one request after another, until stdin ends.
let stopped = false;
if (countStr === 'until-stdin-closes') {
  process.stdin.on('end', () => { stopped = true; });
  process.stdin.resume();
}
const more = (i) => (countStr === 'until-stdin-closes' ? !stopped : i < Number(countStr));

(async () => {
  for (let i = 0; more(i); i++) {
    const line = await (proto === 'udp' ? udpOnce() : tcpOnce());
    // KPN_PROBE_TIME=1 (debugging): when each reply came.
    process.stdout.write(process.env.KPN_PROBE_TIME ? `${line} @${Date.now()}\n` : `${line}\n`);
    if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
  }
  process.exit(0);
})();
