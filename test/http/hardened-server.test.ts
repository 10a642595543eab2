// The hardened server's containment: a handler that throws or rejects costs one 500 and one log line
// with the stack, never the process; bad limits are refused at start-up.
import { afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHardenedServer, DEFAULT_HTTP_LIMITS, listen, resolveLimits, RunningServer, serveHardened, RequestHandler } from '../../src/http';
import { clientErrorStatus, rawResponse } from '../../src/http/client-error';
import { bodyOf, exchange } from '../helpers/raw-http';

interface Line {
  level: string;
  obj: Record<string, unknown>;
  msg: string;
}

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(handler: RequestHandler, lines: Line[] = []): Promise<number> {
  const log = {
    warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    error: (obj: object, msg: string) => lines.push({ level: 'error', obj: obj as Record<string, unknown>, msg }),
  };
  server = await serveHardened({ name: 'test', log, host: '127.0.0.1', port: 0, what: 'test server' }, handler);
  return server.port;
}

const get = (port: number, path: string) => exchange(port, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);

describe('hardened server', { timeout: 60_000 }, () => {
  it('turns a thrown exception into a 500 and an error line with the stack, and keeps serving', async () => {
    const lines: Line[] = [];
    const port = await start((_req, res, target) => {
      if (target.path === '/boom') {
        res.setHeader('Content-Type', 'application/json');
        throw new Error('handler bug');
      }
      res.end('fine');
    }, lines);
    const x = await get(port, '/boom');
    assert.equal(x.status, 500);
    assert.equal(bodyOf(x.data), '500 Internal Server Error\n');
    assert.match(x.data, /content-type: text\/plain; charset=utf-8/i, 'headers the handler set before failing are dropped');
    assert.equal(lines.length, 1);
    assert.equal(lines[0].level, 'error');
    assert.equal(lines[0].msg, 'HTTP handler failed; answered 500');
    assert.match(String((lines[0].obj.first as { err: string }).err), /Error: handler bug\n\s+at /);
    assert.equal(bodyOf((await get(port, '/ok')).data), 'fine');
  });

  it('turns a rejected promise into a 500', async () => {
    const port = await start(async (_req, res, target) => {
      await new Promise((r) => setImmediate(r));
      if (target.path === '/reject') throw new Error('async bug');
      res.end('fine');
    });
    assert.equal((await get(port, '/reject')).status, 500);
    assert.equal(bodyOf((await get(port, '/ok')).data), 'fine');
  });

  it('drops the connection when the handler fails after the headers went out', async () => {
    const port = await start((_req, res, target) => {
      if (target.path === '/late') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('partial');
        throw new Error('late bug');
      }
      res.end('fine');
    });
    const x = await get(port, '/late');
    assert.ok(x.closed);
    assert.doesNotMatch(x.data, /500/);
    assert.equal(bodyOf((await get(port, '/ok')).data), 'fine');
  });

  it('answers bad targets 400 before the handler runs', async () => {
    let calls = 0;
    const port = await start((_req, res) => {
      calls++;
      res.end('x');
    });
    assert.equal((await get(port, '/%')).status, 400);
    assert.equal((await get(port, 'relative')).status, 400);
    assert.equal(calls, 0);
  });

  it('logs an error the listening server meets (EMFILE on accept) instead of dying of it', async () => {
    const lines: Line[] = [];
    const log = { warn: () => undefined, error: (obj: object, msg: string) => lines.push({ level: 'error', obj: obj as Record<string, unknown>, msg }) };
    const h = createHardenedServer({ name: 'emfile', log }, (_req, res) => void res.end('fine'));
    server = await listen(h.server, '127.0.0.1', 0, 'test', h.onServerError, h.flushLogs);
    const emfile = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' });
    assert.doesNotThrow(() => h.server.emit('error', emfile));
    assert.equal(lines.length, 1);
    assert.equal((lines[0].obj.kinds as Record<string, number>)['server error'], 1);
    assert.equal(bodyOf((await get(server.port, '/')).data), 'fine');
  });

  it('reports a failing listen by the setting it serves', async () => {
    const port = await start((_req, res) => void res.end());
    await assert.rejects(
      serveHardened({ name: 'again', host: '127.0.0.1', port, what: 'healthzBindAddress' }, (_req, res) => void res.end()),
      /^Error: healthzBindAddress: cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE$/,
    );
  });
});

describe('limits', () => {
  it('defaults are tight and consistent', () => {
    const l = resolveLimits();
    assert.deepEqual(l, { ...DEFAULT_HTTP_LIMITS });
    assert.ok(l.requestTimeoutMs >= l.headersTimeoutMs);
    assert.ok(l.headersTimeoutMs <= 10_000 && l.keepAliveTimeoutMs <= 5_000);
  });

  it('refuses bad overrides by name', () => {
    assert.throws(() => resolveLimits({ maxConnections: 0 }), /HTTP limit maxConnections: must be a positive integer, got 0/);
    assert.throws(() => resolveLimits({ headersTimeoutMs: 1.5 }), /headersTimeoutMs/);
    assert.throws(() => resolveLimits({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 }), /requestTimeoutMs \(1000\) must not be less than headersTimeoutMs \(5000\)/);
  });
});

describe('client errors', () => {
  it('map to Go-like answers', () => {
    assert.equal(clientErrorStatus('HPE_HEADER_OVERFLOW'), 431);
    assert.equal(clientErrorStatus('ERR_HTTP_REQUEST_TIMEOUT'), 408);
    assert.equal(clientErrorStatus('HPE_INVALID_METHOD'), 400);
    assert.equal(clientErrorStatus(undefined), 400);
    assert.equal(clientErrorStatus('ECONNRESET'), undefined);
    assert.equal(clientErrorStatus('HPE_INVALID_EOF_STATE'), undefined);
    assert.equal(rawResponse(400), 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 15\r\nConnection: close\r\n\r\n400 Bad Request');
  });
});
