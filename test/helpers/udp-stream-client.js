'use strict';
// Runs inside a client namespace: ONE UDP socket, bound to one source port and connected to
// HOST:PORT (as a DNS resolver or a statsd client keeps its socket), sends "seq N" every
// INTERVAL_MS until stdin closes, and logs what happened, one line each, times in ms since the epoch:
//   S <seq> <t>          datagram <seq> sent
//   R <seq> <pod> <t>    an endpoint answered datagram <seq> (echo-server.js echoes "seq N")
//   E <code> <t>         the socket reported an error: ECONNREFUSED is an ICMP port unreachable
//                        for the last datagram sent (connected sockets report it on the next read)
//   F <seq> <code> <t>   sending <seq> failed (a pending ICMP error is returned by the next send)
// After stdin closes it stops sending, waits until the last datagram sent has an outcome (at most
// WAIT_MS, so a slow machine's late answer is not taken for a lost datagram), prints "END settled"
// (or "END gave-up" when the wait ran out) and exits.
// Usage: node udp-stream-client.js HOST PORT SOURCE_PORT INTERVAL_MS [WAIT_MS]
const dgram = require('node:dgram');
const net = require('node:net');

const [host, portStr, srcPortStr, intervalStr, waitStr = '3000'] = process.argv.slice(2);
const out = (line, t = Date.now()) => process.stdout.write(`${line} ${t}\n`);
const sock = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
let seq = 0;
let timer;
// The last datagram sent, the last one with an outcome (answers and errors settle the latest sent),
// and sends whose callback has not come yet.
let lastSent = -1;
let settled = -1;
let inFlight = 0;

sock.on('message', (m) => {
  const match = /^(\S+) \S+ seq (\d+)$/.exec(String(m));
  out(match ? `R ${match[2]} ${match[1]}` : `R ? ${String(m).replace(/\s+/g, '_')}`);
  if (match) settled = Math.max(settled, Number(match[2]));
});
// An error does not close a dgram socket: the flow (same socket, same source port) goes on.
sock.on('error', (e) => {
  out(`E ${e.code}`);
  settled = lastSent;
});

function sendNext() {
  const n = seq++;
  const t = Date.now();
  inFlight++;
  sock.send(`seq ${n}`, (e) => {
    inFlight--;
    out(e ? `F ${n} ${e.code}` : `S ${n}`, t);
    if (e) settled = lastSent;
    else lastSent = Math.max(lastSent, n);
  });
}

sock.bind({ port: Number(srcPortStr) }, () => {
  sock.connect(Number(portStr), host, (e) => {
    if (e) {
      out(`E ${e.code}`);
      process.exit(1);
    }
    process.stdout.write('READY\n');
    timer = setInterval(sendNext, Number(intervalStr));
  });
});

process.stdin.on('end', () => {
  clearInterval(timer);
  const deadline = Date.now() + Number(waitStr);
  setInterval(() => {
    if ((inFlight === 0 && settled >= lastSent) || Date.now() > deadline) {
      // Whether the last datagram had its outcome, or the wait ran out.
      process.stdout.write(`END ${settled >= lastSent ? 'settled' : 'gave-up'}\n`);
      process.exit(0);
    }
  }, 10);
});
process.stdin.resume();
