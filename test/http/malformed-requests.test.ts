// The catalogue: every HTTP server we run (healthz/livez, metrics, a health-check node port) opened on
// 127.0.0.1 and fed, over raw TCP, what an attacker or a broken client sends. After EACH case the
// server must still answer a normal request correctly. Before src/http, the first case killed the
// process (`new URL('//', base)` threw in the health server's handler).
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type * as net from 'node:net';
import { Registry } from 'prom-client';
import { startHealthServer } from '../../src/health/health-server';
import { ProxyHealth } from '../../src/health/proxy-health';
import { ServiceHealthServer } from '../../src/health/service-health';
import type { HttpLimits } from '../../src/http';
import { createProxyMetrics } from '../../src/metrics/proxy-metrics';
import { startMetricsServer } from '../../src/metrics/server';
import { bodyOf, eventually, exchange, Exchange, headerOf, idleConnections, Sender } from '../helpers/raw-http';

// Short timeouts so the slow-client cases end quickly; the test asserts the cut-off, not its speed.
const LIMITS: Partial<HttpLimits> = {
  headersTimeoutMs: 1000,
  requestTimeoutMs: 2000,
  keepAliveTimeoutMs: 1000,
  idleTimeoutMs: 5000,
  timeoutCheckIntervalMs: 100,
  maxConnections: 40,
  logIntervalMs: 600_000,
};

interface LogLine {
  level: 'warn' | 'error' | 'info';
  obj: Record<string, unknown>;
  msg: string;
}

function captureLog(): { lines: LogLine[]; warn(o: object, m: string): void; error(o: object, m: string): void; info(o: object, m: string): void } {
  const lines: LogLine[] = [];
  return {
    lines,
    warn: (obj, msg) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    error: (obj, msg) => lines.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
    info: (obj, msg) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
  };
}

/** One server under test: how to start it, its normal request, and where upstream's routing differs. */
interface Subject {
  name: string;
  start(log: ReturnType<typeof captureLog>): Promise<{ port: number; close(): Promise<void> }>;
  /** A path this server answers normally. */
  path: string;
  checkNormal(x: Exchange): void;
  /** Status for `GET //` and `GET *`: Go's ServeMux redirects and refuses, PathRecorderMux 404s, hcHandler answers. */
  doubleSlash: number;
  asterisk: number;
}

const SUBJECTS: Subject[] = [
  {
    name: 'healthz/livez',
    path: '/livez',
    doubleSlash: 301,
    asterisk: 400,
    start: (log) => startHealthServer({ bindAddress: '127.0.0.1:0', health: new ProxyHealth(60_000), log, limits: LIMITS }),
    checkNormal(x) {
      assert.equal(x.status, 200, x.data.slice(0, 200));
      const body = JSON.parse(bodyOf(x.data));
      assert.equal(body.healthy, true);
      assert.deepEqual(body.reasons, []);
    },
  },
  {
    name: 'metrics',
    path: '/metrics',
    doubleSlash: 404,
    asterisk: 404,
    start: (log) => {
      const registry = new Registry();
      createProxyMetrics(registry, { processMetrics: false });
      return startMetricsServer({ bindAddress: '127.0.0.1:0', registry, proxyMode: 'nftables', log, limits: LIMITS });
    },
    checkNormal(x) {
      assert.equal(x.status, 200, x.data.slice(0, 200));
      assert.match(bodyOf(x.data), /^# HELP kubeproxy_/m);
    },
  },
  {
    name: 'health-check node port',
    path: '/',
    doubleSlash: 200,
    asterisk: 200,
    async start(log) {
      const hc = new ServiceHealthServer({ addresses: ['127.0.0.1'], proxyHealthy: () => true, log, limits: LIMITS });
      await hc.syncServices(new Map([['shop/web', 0]]));
      hc.syncEndpoints(new Map([['shop/web', 2]]));
      return { port: hc.boundPorts('shop/web')[0], close: () => hc.closeAll() };
    },
    checkNormal(x) {
      assert.equal(x.status, 200, x.data.slice(0, 200));
      assert.equal(headerOf(x.data, 'X-Load-Balancing-Endpoint-Weight'), '2');
      assert.deepEqual(JSON.parse(bodyOf(x.data)).service, { namespace: 'shop', name: 'web' });
    },
  },
];

const fields = (n: number): string => Array.from({ length: n }, (_, i) => `X-${i}: v\r\n`).join('');
const req = (target: string, extra = ''): string => `GET ${target} HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`;

/** Writes `total` bytes of body after `head`, respecting backpressure, until done or the socket dies. */
function streamBody(head: string, total: number): Sender {
  return (s: net.Socket) => {
    s.write(head);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = (): void => {
      while (sent < total && !s.destroyed) {
        sent += chunk.length;
        if (!s.write(chunk)) {
          s.once('drain', pump);
          return;
        }
      }
    };
    pump();
  };
}

/** One byte per second; records how many were sent before the server cut the connection. */
function slowly(text: string, sent: { n: number }): Sender {
  return (s: net.Socket) => {
    const t = setInterval(() => {
      if (s.destroyed || sent.n >= text.length) return clearInterval(t);
      s.write(text[sent.n++]);
    }, 1000);
    s.once('close', () => clearInterval(t));
  };
}

interface Case {
  name: string;
  run(port: number, s: Subject): Promise<void>;
}

/** A case that sends `what` and expects the given status (or, with undefined, a close without answer). */
function expectStatus(name: string, what: (s: Subject) => Sender, status: (s: Subject) => number | undefined): Case {
  return {
    name,
    async run(port, s) {
      const x = await exchange(port, what(s));
      assert.ok(x.closed, `${name}: the server closes the connection`);
      assert.equal(x.status, status(s), `${name}: ${JSON.stringify(x.data.slice(0, 120))}`);
    },
  };
}

const TLS_HELLO = Buffer.from('160301020001000001fc0303' + 'ab'.repeat(40), 'hex');

const CASES: Case[] = [
  expectStatus('GET //', () => req('//'), (s) => s.doubleSlash),
  expectStatus('GET /%', () => req('/%'), () => 400),
  expectStatus('GET /%zz/..', () => req('/%zz/..'), () => 400),
  expectStatus('GET *', () => req('*'), (s) => s.asterisk),
  expectStatus('absolute-form target', (s) => req(`http://example.invalid${s.path}`), () => 200),
  expectStatus('NUL byte in the path', () => req('/he\0althz'), () => 400),
  expectStatus('NUL byte in a header', () => req('/', 'X-A: a\0b\r\n'), () => 400),
  expectStatus('non-HTTP garbage (a TLS ClientHello)', () => TLS_HELLO, () => 400),
  expectStatus('unknown method', () => 'BREW /livez HTTP/1.1\r\nHost: x\r\n\r\n', () => 400),
  expectStatus('10 KiB path (under the header limit, over the target limit)', () => req(`/${'a'.repeat(10 * 1024)}`), () => 400),
  expectStatus('100 KiB request line', () => req(`/${'a'.repeat(100 * 1024)}`), () => 431),
  // req() sends Host and Connection: 998 more make the 1000 fields the limit allows, 999 one too many.
  expectStatus('1000 header fields (the limit: answered)', (s) => req(s.path, fields(998)), () => 200),
  expectStatus('1001 header fields (over the limit, on every Node line)', (s) => req(s.path, fields(999)), () => 431),
  expectStatus('one 64 KiB header', () => req('/', `X-Big: ${'b'.repeat(64 * 1024)}\r\n`), () => 431),
  expectStatus('Content-Length not a number', () => req('/', 'Content-Length: abc\r\n'), () => 400),
  expectStatus('two different Content-Lengths', () => 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab', () => 400),
  expectStatus('chunked garbage', () => 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n', () => 400),
  expectStatus('chunked body over the cap', () => `POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${'1000\r\n' + 'c'.repeat(4096) + '\r\n'}${'1000\r\n' + 'c'.repeat(4096) + '\r\n'}0\r\n\r\n`, () => 413),
  expectStatus('POST with a 10 MB body', (s) => streamBody(`POST ${s.path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`, 10 * 1024 * 1024), () => 413),
  expectStatus('POST without a body (any method, as upstream)', (s) => `POST ${s.path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`, () => 200),
  expectStatus('HTTP/1.1 without Host', (s) => `GET ${s.path} HTTP/1.1\r\n\r\n`, () => 400),
  expectStatus('HTTP/2 preface', () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', () => 400),
  expectStatus('Upgrade: h2c (ignored, answered)', (s) => `GET ${s.path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n`, () => 200),
  expectStatus('CONNECT (closed)', () => 'CONNECT example.invalid:443 HTTP/1.1\r\nHost: example.invalid:443\r\n\r\n', () => undefined),
  {
    name: 'HTTP/0.9 request (never answered with 200, cut off)',
    async run(port) {
      const x = await exchange(port, 'GET /\r\n');
      assert.ok(x.closed, 'closed by the headers timeout');
      assert.ok(x.status === undefined || x.status >= 400, x.data.slice(0, 80));
    },
  },
  {
    name: '1000 pipelined requests',
    async run(port, s) {
      const one = `GET ${s.path} HTTP/1.1\r\nHost: x\r\n\r\n`;
      const x = await exchange(port, one.repeat(999) + req(s.path));
      assert.ok(x.closed);
      assert.equal(x.data.match(/HTTP\/1\.1 200 OK\r\n/g)?.length, 1000);
    },
  },
  {
    name: 'a slow client sending one byte per second is cut off, and others are served meanwhile',
    async run(port, s) {
      const text = `GET ${s.path} HTTP/1.1\r\nHost: x\r\nX-Slowloris: ${'z'.repeat(40)}\r\n\r\n`;
      const sent = { n: 0 };
      const slow = exchange(port, slowly(text, sent));
      s.checkNormal(await exchange(port, req(s.path)));
      const x = await slow;
      assert.ok(x.closed, 'cut off');
      assert.equal(x.status, 408);
      assert.ok(sent.n < text.length, `cut off after ${sent.n} of ${text.length} bytes`);
    },
  },
  {
    name: 'idle connections below the cap do not stop service',
    async run(port, s) {
      const idle = await idleConnections(port, 30);
      try {
        s.checkNormal(await exchange(port, req(s.path)));
      } finally {
        for (const c of idle.sockets) c.destroy();
      }
    },
  },
  {
    name: 'connections beyond the cap are refused at once; the rest are cut off idle',
    async run(port) {
      const idle = await idleConnections(port, 120);
      try {
        assert.ok(await eventually(() => idle.closedWithoutData() >= 80, 30_000), `refused: ${idle.closedWithoutData()}`);
        assert.ok(await eventually(() => idle.sockets.every((c) => c.destroyed || c.readyState === 'closed'), 30_000), 'all cut off');
        const answers = idle.answered();
        assert.ok(answers.length <= 40, `at most maxConnections were accepted: ${answers.length}`);
        for (const a of answers) assert.match(a, /^HTTP\/1\.1 408 /);
      } finally {
        for (const c of idle.sockets) c.destroy();
      }
    },
  },
];

for (const subject of SUBJECTS) {
  describe(`malformed requests: ${subject.name}`, { timeout: 300_000 }, () => {
    const log = captureLog();
    let server: { port: number; close(): Promise<void> };
    before(async () => {
      server = await subject.start(log);
      subject.checkNormal(await exchange(server.port, req(subject.path)));
    });

    for (const c of CASES) {
      it(`${c.name}, then still answers a normal request`, async () => {
        await c.run(server.port, subject);
        subject.checkNormal(await exchange(server.port, req(subject.path)));
      });
    }

    it('logged the flood in at most one line per interval, counting every refusal', async () => {
      const bad = (): LogLine[] => log.lines.filter((l) => l.msg === 'Refused bad HTTP requests');
      assert.equal(bad().length, 1, 'one line for the whole run (the interval is 10 minutes)');
      assert.equal(bad()[0].obj.count, 1);
      assert.equal(log.lines.filter((l) => l.level === 'error').length, 0, 'no handler failed');
      await server.close();
      assert.equal(bad().length, 2, 'closing writes out what was counted');
      const summary = bad()[1].obj as { count: number; kinds: Record<string, number>; server: string };
      assert.ok(summary.count > 100, `counted ${summary.count}`);
      assert.ok(summary.kinds['connection limit'] >= 80, JSON.stringify(summary.kinds));
      assert.ok(summary.kinds.HPE_HEADER_OVERFLOW >= 2, JSON.stringify(summary.kinds));
      assert.ok(summary.kinds.ERR_HTTP_REQUEST_TIMEOUT >= 1, JSON.stringify(summary.kinds));
    });
  });
}
