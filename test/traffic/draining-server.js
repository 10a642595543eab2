'use strict';
// Runs inside a pod namespace: an HTTP/1.1 server that shuts down the way a well-behaved server does
// on SIGTERM, driven by lines on stdin so the test decides when (a rolling update's steps):
//   serving      every request gets "200 <name>"; keep-alive connections stay open. `GET /slow?ms=N`
//                is answered after N ms (a long request, in flight while the endpoint changes).
//   "terminate"  (SIGTERM, the endpoint is now terminating) it keeps accepting connections and answering
//                every request, but each answer says `Connection: close` and the server closes that
//                connection after it: every client comes back through the Service, which sends it
//                elsewhere. Idle connections are not closed at this point (closing one races a request
//                the client may be sending on it); a busy client sees `Connection: close` on its next
//                answer. Nothing else changes: no request is refused or delayed.
//   "removed"    (the endpoint left the EndpointSlice) nothing changes; answers sent from now on are
//                counted (`answeredAfterRemoval`): connections the proxy kept alive across the removal.
//   "stop"       (the grace period is over) it closes its listener and every connection, answered or
//                not, at once; the kernel refuses later connections (RST). It prints its counts as JSON
//                and exits.
// Usage: node draining-server.js NAME PORT; prints "ready" once it listens.
const http = require('node:http');
const readline = require('node:readline');

const [name, portStr] = process.argv.slice(2);
const counts = { connections: 0, requests: 0, connectionsWhileTerminating: 0, requestsWhileTerminating: 0, answeredAfterRemoval: 0, openAtStop: 0 };
let terminating = false;
let removed = false;
const body = Buffer.from(name);

function answer(res) {
  const headers = { 'Content-Type': 'text/plain', 'Content-Length': body.length };
  // Node closes the connection once this answer is sent.
  if (terminating) headers.Connection = 'close';
  if (removed) counts.answeredAfterRemoval++;
  res.writeHead(200, headers);
  res.end(body);
}

const server = http.createServer((req, res) => {
  counts.requests++;
  if (terminating) counts.requestsWhileTerminating++;
  req.resume();
  const slow = /^\/slow\?ms=(\d+)$/.exec(req.url);
  if (slow) setTimeout(() => answer(res), Number(slow[1]));
  else answer(res);
});
// Clients are never idle for long; only stop() closes connections.
server.keepAliveTimeout = 60_000;
server.on('connection', (socket) => {
  counts.connections++;
  if (terminating) counts.connectionsWhileTerminating++;
  socket.on('error', () => {});
});

const open = new Set();
server.on('connection', (socket) => {
  open.add(socket);
  socket.on('close', () => open.delete(socket));
});

function stop() {
  counts.openAtStop = open.size;
  server.close();
  for (const socket of open) socket.destroy();
  process.stdout.write(`${JSON.stringify(counts)}\n`, () => process.exit(0));
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'terminate') terminating = true;
  else if (line === 'removed') removed = true;
  else if (line === 'stop') stop();
});
process.stdin.on('end', () => process.exit(0));
server.listen({ port: Number(portStr), host: '::', ipv6Only: false, backlog: 4096 }, () => process.stdout.write('ready\n'));
