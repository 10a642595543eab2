// Health-check node ports over real HTTP: opened and closed as Services come and go, 200 only with
// local endpoints and a healthy proxy, the endpoint-weight header, upstream's JSON body.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { ServiceHealthServer } from '../../src/health/service-health';

interface LogLine { level: string; obj: Record<string, unknown>; msg: string }
function recordingLog() {
  const lines: LogLine[] = [];
  const at = (level: string) => (obj: object, msg: string) => lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

let proxyHealthy = true;
let hc: ServiceHealthServer;

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function probe(port: number): Promise<{ status: number; weight: string | null; body: unknown; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/`);
  const text = await res.text();
  return { status: res.status, weight: res.headers.get('x-load-balancing-endpoint-weight'), body: JSON.parse(text), text };
}

const refused = (port: number): Promise<boolean> =>
  fetch(`http://127.0.0.1:${port}/`).then(
    () => false,
    () => true,
  );

beforeEach(() => {
  proxyHealthy = true;
  hc = new ServiceHealthServer({ addresses: ['127.0.0.1'], proxyHealthy: () => proxyHealthy });
});
afterEach(() => hc.closeAll());

describe('service health-check node ports', { timeout: 60_000 }, () => {
  it('answers 503 without local endpoints, 200 with them, and 503 when the proxy is unhealthy', async () => {
    const port = await freePort();
    await hc.syncServices(new Map([['shop/web', port]]));
    let r = await probe(port);
    assert.equal(r.status, 503);
    assert.equal(r.weight, '0');
    assert.deepEqual(r.body, { service: { namespace: 'shop', name: 'web' }, localEndpoints: 0, serviceProxyHealthy: true });
    hc.syncEndpoints(new Map([['shop/web', 2]]));
    r = await probe(port);
    assert.equal(r.status, 200);
    assert.equal(r.weight, '2');
    assert.equal(r.text, '{\n\t"service": {\n\t\t"namespace": "shop",\n\t\t"name": "web"\n\t},\n\t"localEndpoints": 2,\n\t"serviceProxyHealthy": true\n}');
    proxyHealthy = false;
    r = await probe(port);
    assert.equal(r.status, 503);
    assert.equal((r.body as { serviceProxyHealthy: boolean }).serviceProxyHealthy, false);
    proxyHealthy = true;
    hc.syncEndpoints(new Map());
    assert.equal((await probe(port)).status, 503, 'a Service missing from the counts has none');
  });

  it('opens and closes servers as Services come, go and change port', async () => {
    const [p1, p2, p3] = [await freePort(), await freePort(), await freePort()];
    await hc.syncServices(new Map([['a/one', p1], ['b/two', p2]]));
    assert.deepEqual(hc.openServices(), ['a/one', 'b/two']);
    hc.syncEndpoints(new Map([['a/one', 1], ['b/two', 1]]));
    assert.equal((await probe(p1)).status, 200);
    await hc.syncServices(new Map([['b/two', p3]]));
    assert.ok(await refused(p1), 'a/one closed');
    assert.ok(await refused(p2), 'b/two left its old port');
    const moved = await probe(p3);
    assert.deepEqual((moved.body as { service: unknown }).service, { namespace: 'b', name: 'two' });
    assert.equal(moved.status, 503, 'a reopened server starts with no endpoints until told');
    await hc.closeAll();
    assert.ok(await refused(p3));
    assert.deepEqual(hc.openServices(), []);
  });

  it('leaves out a Service whose port is taken and keeps serving the others', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as net.AddressInfo).port;
    const ok = await freePort();
    await hc.syncServices(new Map([['x/taken', taken], ['x/ok', ok]]));
    assert.deepEqual(hc.openServices(), ['x/ok']);
    assert.equal((await probe(ok)).status, 503);
    await new Promise<void>((r) => blocker.close(() => r()));
    await hc.syncServices(new Map([['x/taken', taken], ['x/ok', ok]]));
    assert.deepEqual(hc.openServices(), ['x/ok', 'x/taken'], 'retried on the next sync');
  });

  it('reports a port it cannot open with upstream\'s message (service_health.go SyncServices), once while nothing changes', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as net.AddressInfo).port;
    const failures: Array<{ service: unknown; message: string }> = [];
    const h = new ServiceHealthServer({
      addresses: ['127.0.0.1'], proxyHealthy: () => true, nodeName: 'node-a',
      onFailedToStart: (service, message) => failures.push({ service, message }),
    });
    try {
      await h.syncServices(new Map([['shop/web', taken]]));
      await h.syncServices(new Map([['shop/web', taken]]));
      assert.equal(failures.length, 1, 'upstream records it on every try; we record it once per change');
      assert.deepEqual(failures[0].service, { namespace: 'shop', name: 'web' });
      assert.equal(failures[0].message, `node node-a failed to start healthcheck "shop/web" on port ${taken}: healthCheckNodePort of shop/web: cannot listen on 127.0.0.1:${taken}: EADDRINUSE`);
    } finally {
      await h.closeAll();
      await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('a taken port: 50 syncs give one log line and one event, keep retrying, and the freed port is bound with one line more', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as net.AddressInfo).port;
    const log = recordingLog();
    let events = 0;
    const h = new ServiceHealthServer({ addresses: ['127.0.0.1'], proxyHealthy: () => true, log, onFailedToStart: () => events++ });
    try {
      for (let i = 0; i < 50; i++) await h.syncServices(new Map([['shop/web', taken]]));
      assert.deepEqual(log.lines.map((l) => [l.level, l.msg]), [
        ['error', 'failed to start healthcheck; tried again on every sync, logged again only if the port or the reason changes'],
      ]);
      assert.equal(events, 1);
      assert.deepEqual(h.failures(), [{ service: 'shop/web', port: taken, reason: `healthCheckNodePort of shop/web: cannot listen on 127.0.0.1:${taken}: EADDRINUSE`, retries: 49 }]);
      assert.deepEqual(h.openServices(), []);

      await new Promise<void>((r) => blocker.close(() => r()));
      await h.syncServices(new Map([['shop/web', taken]]));
      assert.deepEqual(h.openServices(), ['shop/web'], 'the freed port is bound on the next sync');
      assert.equal((await probe(taken)).status, 503);
      assert.deepEqual(h.failures(), []);
      assert.equal(log.lines.length, 2);
      assert.equal(log.lines[1].msg, 'opened healthcheck after failing');
      assert.equal(log.lines[1].obj.failedBefore, `healthCheckNodePort of shop/web: cannot listen on 127.0.0.1:${taken}: EADDRINUSE`);
      for (let i = 0; i < 10; i++) await h.syncServices(new Map([['shop/web', taken]]));
      assert.equal(log.lines.length, 2, 'an open port logs nothing more');
      assert.equal(events, 1);
    } finally {
      await h.closeAll();
      if (blocker.listening) await new Promise<void>((r) => blocker.close(() => r()));
    }
  });

  it('a failure on a new port is reported again; one that fails again after recovering too', async () => {
    const blockers = [net.createServer(), net.createServer()];
    for (const b of blockers) await new Promise<void>((r) => b.listen(0, '127.0.0.1', () => r()));
    const [t1, t2] = blockers.map((b) => (b.address() as net.AddressInfo).port);
    const log = recordingLog();
    const messages: string[] = [];
    const h = new ServiceHealthServer({ addresses: ['127.0.0.1'], proxyHealthy: () => true, log, onFailedToStart: (_s, m) => messages.push(m) });
    try {
      for (let i = 0; i < 5; i++) await h.syncServices(new Map([['shop/web', t1]]));
      for (let i = 0; i < 5; i++) await h.syncServices(new Map([['shop/web', t2]]));
      assert.equal(messages.length, 2);
      assert.match(messages[1], new RegExp(`on port ${t2}: `));
      await h.syncServices(new Map());
      assert.deepEqual(h.failures(), [], 'a Service that no longer asks has no failure');
      await h.syncServices(new Map([['shop/web', t2]]));
      assert.equal(messages.length, 3, 'asked again after going away: a new failure');
      assert.equal(log.lines.filter((l) => l.level === 'error').length, 3);
    } finally {
      await h.closeAll();
      for (const b of blockers) await new Promise<void>((r) => b.close(() => r()));
    }
  });

  it('two Services sharing one port: the older gets it, the other is reported once, whatever the map order', async () => {
    const port = await freePort();
    const older = { port, created: 1_700_000_000, uid: 'b-uid' };
    const newer = { port, created: 1_700_000_100, uid: 'a-uid' };
    for (const order of [[['z/old', older], ['a/new', newer]], [['a/new', newer], ['z/old', older]]] as const) {
      const log = recordingLog();
      const messages: string[] = [];
      const h = new ServiceHealthServer({ addresses: ['127.0.0.1'], proxyHealthy: () => true, log, nodeName: 'n1', onFailedToStart: (_s, m) => messages.push(m) });
      try {
        for (let i = 0; i < 20; i++) await h.syncServices(new Map(order));
        assert.deepEqual(h.openServices(), ['z/old']);
        assert.deepEqual(((await probe(port)).body as { service: unknown }).service, { namespace: 'z', name: 'old' });
        assert.deepEqual(messages, [`node n1 failed to start healthcheck "a/new" on port ${port}: healthCheckNodePort ${port} is also the healthCheckNodePort of Service z/old, and the older Service gets it`]);
        assert.equal(log.lines.filter((l) => l.level === 'error').length, 1);
        assert.deepEqual(h.failures().map((f) => [f.service, f.retries]), [['a/new', 19]]);
      } finally {
        await h.closeAll();
      }
    }
  });

  it('a shared port moves to the older Service when it arrives, and back when it leaves', async () => {
    const port = await freePort();
    const log = recordingLog();
    const h = new ServiceHealthServer({ addresses: ['127.0.0.1'], proxyHealthy: () => true, log });
    try {
      await h.syncServices(new Map([['a/new', { port, created: 200 }]]));
      assert.deepEqual(h.openServices(), ['a/new']);
      await h.syncServices(new Map([['a/new', { port, created: 200 }], ['b/old', { port, created: 100 }]]));
      assert.deepEqual(h.openServices(), ['b/old'], 'the newer one gives the port up');
      assert.deepEqual(h.failures().map((f) => f.service), ['a/new']);
      await h.syncServices(new Map([['a/new', { port, created: 200 }]]));
      assert.deepEqual(h.openServices(), ['a/new']);
      assert.deepEqual(h.failures(), []);
      assert.equal(log.lines.at(-1)?.msg, 'opened healthcheck after failing');
    } finally {
      await h.closeAll();
    }
  });

  it('same creation second: the lower UID gets the port; no age at all: the first name', async () => {
    const port = await freePort();
    const h = new ServiceHealthServer({ addresses: ['127.0.0.1'], proxyHealthy: () => true });
    try {
      await h.syncServices(new Map([['a/x', { port, created: 5, uid: 'uid-2' }], ['b/y', { port, created: 5, uid: 'uid-1' }]]));
      assert.deepEqual(h.openServices(), ['b/y']);
      assert.match(h.failures()[0].reason, /created in the same second: the lower UID gets it$/);
      await h.syncServices(new Map([['b/y', port], ['a/x', port]]));
      assert.deepEqual(h.openServices(), ['a/x']);
      assert.match(h.failures()[0].reason, /the first name gets it$/);
    } finally {
      await h.closeAll();
    }
  });

  it('reads its addresses when a port opens; an empty list opens nothing, as upstream with no matching node IP', async () => {
    let addresses: string[] = [];
    const h = new ServiceHealthServer({ addresses: () => addresses, proxyHealthy: () => true });
    try {
      const [p1, p2] = [await freePort(), await freePort()];
      await h.syncServices(new Map([['a/one', p1]]));
      assert.deepEqual(h.boundPorts('a/one'), []);
      assert.ok(await refused(p1));
      addresses = ['127.0.0.1'];
      await h.syncServices(new Map([['a/one', p1], ['a/two', p2]]));
      assert.ok(await refused(p1), 'an open Service keeps its servers');
      assert.equal((await probe(p2)).status, 503, 'a newly opened one uses the new addresses');
    } finally {
      await h.closeAll();
    }
  });

  it('rejects malformed names and ports by name', async () => {
    await assert.rejects(hc.syncServices(new Map([['no-namespace', 1234]])), /service name "no-namespace": expected "namespace\/name"/);
    await assert.rejects(hc.syncServices(new Map([['a/b', 70000]])), /healthCheckNodePort of a\/b: 70000 is not a port/);
  });
});
