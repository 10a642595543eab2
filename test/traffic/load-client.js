'use strict';
// Runs inside the client namespace: steady HTTP load on several paths (address:port pairs) at once,
// until stdin closes (or maxSeconds pass); then prints one JSON report and exits.
// Per path it runs three kinds of traffic:
//   short       a new connection every 1000/shortPerSecond ms: connect, one request, the answer, close
//               (the client closes first, as a one-shot client does).
//   keep-alive  `keepAliveConnections` workers, each sending one request after another (at most one per
//               keepAliveIntervalMs) over one persistent connection. An answer with `Connection: close`
//               ends that connection and the next request opens a new one.
//   slow        a new connection every 1000/slowPerSecond ms asking for an answer slowMs late: requests
//               in flight on a connection while its endpoint turns terminating and leaves the slice.
// A request fails on a connection error (refused, reset, unreachable), a timeout, or an answer that is
// not "200" with a pod's name as body, or is cut short. One case is retried instead, as HTTP clients
// do for an idempotent request (Go's net/http, browsers): a reused keep-alive connection that closes
// or resets before any byte of the answer (the server closed it while the request was on its way).
// Retries are counted on their own; a retry that fails again is a failure.
// Before it counts anything, it waits (up to warmupMs) until every path has answered once, then prints
// "started".
// Usage: node load-client.js '<json options>' (see DEFAULTS).
const net = require('node:net');

const DEFAULTS = { paths: [], shortPerSecond: 40, keepAliveConnections: 3, keepAliveIntervalMs: 40, slowPerSecond: 5, slowMs: 2000, timeoutMs: 5000, warmupMs: 15000, maxSeconds: 120 };
const opts = { ...DEFAULTS, ...JSON.parse(process.argv[2]) };
const request = (target) => `GET ${target} HTTP/1.1\r\nHost: roll\r\nUser-Agent: load-client\r\n\r\n`;
const QUICK = request('/');
const SLOW = request(`/slow?ms=${opts.slowMs}`);

/** Parses one HTTP/1.1 answer from the bytes so far: undefined while incomplete. */
function parseAnswer(buf) {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = buf.subarray(0, end).toString('latin1');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(head);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head);
  if (!status || !length) return { bad: `unparsable head ${JSON.stringify(head.slice(0, 60))}` };
  if (buf.length < end + 4 + Number(length[1])) return undefined;
  const body = buf.subarray(end + 4, end + 4 + Number(length[1])).toString('latin1');
  if (status[1] !== '200' || !/^pod\d+$/.test(body)) return { bad: `status ${status[1]} body ${JSON.stringify(body)}` };
  return { pod: body, close: /\r\nconnection: *close/i.test(head), extra: buf.length > end + 4 + Number(length[1]) };
}

/**
 * One request over `socket` (connecting or connected). Resolves with
 * { ok: true, pod, close } or { ok: false, error, noAnswerByte }.
 */
function exchange(socket, connected, text = QUICK, timeoutMs = opts.timeoutMs) {
  return new Promise((resolve) => {
    let buf = Buffer.alloc(0);
    let done = false;
    const finish = (r) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.removeListener('data', onData);
      socket.removeListener('error', onError);
      socket.removeListener('close', onClose);
      socket.removeListener('connect', send);
      resolve(r);
    };
    const fail = (error) => finish({ ok: false, error, noAnswerByte: buf.length === 0 });
    const onData = (d) => {
      buf = Buffer.concat([buf, d]);
      const a = parseAnswer(buf);
      if (a === undefined) return;
      if (a.bad || a.extra) fail(a.bad ?? 'bytes after the answer');
      else finish({ ok: true, pod: a.pod, close: a.close });
    };
    const onError = (e) => fail(e.code ?? e.message);
    const onClose = () => fail(buf.length === 0 ? 'EOF' : 'short answer');
    const send = () => socket.write(text);
    const timer = setTimeout(() => fail('TIMEOUT'), timeoutMs);
    socket.on('data', onData);
    socket.on('error', onError);
    socket.on('close', onClose);
    // A reused connection the server already closed: nothing was sent, as for a close in flight.
    if (connected && (socket.destroyed || !socket.writable)) fail('EOF');
    else if (connected) send();
    else socket.once('connect', send);
  });
}

function newStats() {
  return { sent: 0, ok: 0, failed: 0, retried: 0, connections: 0, closedByServer: 0, errors: {}, pods: {}, failures: [] };
}

function record(stats, r) {
  if (r.ok) {
    stats.ok++;
    stats.pods[r.pod] = (stats.pods[r.pod] ?? 0) + 1;
    return;
  }
  stats.failed++;
  stats.errors[r.error] = (stats.errors[r.error] ?? 0) + 1;
  if (stats.failures.length < 20) stats.failures.push({ at: Date.now(), error: r.error });
}

// What a reused connection closed by the server shows before any byte of the answer.
const RETRYABLE = new Set(['EOF', 'ECONNRESET', 'EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);
let stopping = false;
const inFlight = new Set();

function connect(path) {
  const s = net.connect({ host: path.host, port: path.port });
  s.setNoDelay(true);
  // Errors between requests (an idle connection reset) must not end the process; exchange() sees its own.
  s.on('error', () => {});
  return s;
}

async function shortOnce(path, stats, text, timeoutMs) {
  stats.sent++;
  stats.connections++;
  const s = connect(path);
  const r = await exchange(s, false, text, timeoutMs);
  // Close first (FIN), as a one-shot client does; the server's side then skips TIME_WAIT.
  s.end();
  setTimeout(() => s.destroy(), 1000).unref();
  record(stats, r);
}

/** A new connection every 1000/perSecond ms, each sending `text`. */
function runShort(path, stats, perSecond, text, timeoutMs) {
  const timer = setInterval(() => {
    if (stopping) return clearInterval(timer);
    const p = shortOnce(path, stats, text, timeoutMs);
    inFlight.add(p);
    p.finally(() => inFlight.delete(p));
  }, 1000 / perSecond);
}

async function keepAliveWorker(path, stats) {
  let socket = null;
  while (!stopping) {
    const started = Date.now();
    stats.sent++;
    let reused = socket !== null;
    if (!socket) { socket = connect(path); stats.connections++; }
    let r = await exchange(socket, reused);
    if (!r.ok && reused && r.noAnswerByte && RETRYABLE.has(r.error)) {
      stats.retried++;
      socket.destroy();
      socket = connect(path);
      stats.connections++;
      r = await exchange(socket, false);
    }
    record(stats, r);
    if (!r.ok || r.close) {
      if (r.ok) stats.closedByServer++;
      socket.destroy();
      socket = null;
    }
    const wait = opts.keepAliveIntervalMs - (Date.now() - started);
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
  }
  socket?.destroy();
}

async function warmUp(path) {
  const deadline = Date.now() + opts.warmupMs;
  for (;;) {
    const s = connect(path);
    const r = await exchange(s, false);
    s.destroy();
    if (r.ok) return;
    if (Date.now() > deadline) throw new Error(`warm-up: ${path.host}:${path.port} never answered (last: ${r.error})`);
    await new Promise((res) => setTimeout(res, 100));
  }
}

(async () => {
  await Promise.all(opts.paths.map(warmUp));
  process.stdout.write('started\n');
  const report = {};
  const workers = [];
  for (const path of opts.paths) {
    const short = newStats();
    const keepAlive = newStats();
    const slow = newStats();
    report[path.name] = { short, keepAlive, slow };
    runShort(path, short, opts.shortPerSecond, QUICK, opts.timeoutMs);
    runShort(path, slow, opts.slowPerSecond, SLOW, opts.timeoutMs + opts.slowMs);
    for (let i = 0; i < opts.keepAliveConnections; i++) workers.push(keepAliveWorker(path, keepAlive));
  }
  const startedAt = Date.now();
  await new Promise((res) => {
    process.stdin.on('end', res);
    process.stdin.resume();
    setTimeout(res, opts.maxSeconds * 1000).unref();
  });
  stopping = true;
  await Promise.all([...workers, ...inFlight]);
  process.stdout.write(`${JSON.stringify({ seconds: (Date.now() - startedAt) / 1000, paths: report })}\n`, () => process.exit(0));
})().catch((e) => {
  process.stdout.write(`${JSON.stringify({ error: e.message })}\n`, () => process.exit(1));
});
