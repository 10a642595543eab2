// Health-check node ports over real HTTP: opened and closed as Services come and go, 200 only with
// local endpoints and a healthy proxy, the endpoint-weight header, upstream's JSON body.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { ServiceHealthServer } from '../../src/health/service-health';

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

  it('reports a port it cannot open with upstream\'s message (service_health.go SyncServices), each time it tries', async () => {
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
      assert.equal(failures.length, 2);
      assert.deepEqual(failures[0].service, { namespace: 'shop', name: 'web' });
      assert.equal(failures[0].message, `node node-a failed to start healthcheck "shop/web" on port ${taken}: healthCheckNodePort of shop/web: cannot listen on 127.0.0.1:${taken}: EADDRINUSE`);
    } finally {
      await h.closeAll();
      await new Promise<void>((r) => blocker.close(() => r()));
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
