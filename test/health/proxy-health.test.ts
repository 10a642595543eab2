// /healthz and /livez over HTTP, on a fake clock: upstream's timeout rule, node eligibility, JSON body.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Node } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { startHealthServer } from '../../src/health/health-server';
import { nodeEligible, ProxyHealth } from '../../src/health/proxy-health';
import { createProxyMetrics, ProxyMetrics } from '../../src/metrics/proxy-metrics';
import type { RunningServer } from '../../src/http';
import { parsePrometheusText, sample } from '../metrics/prom-text';
import { FakeClock } from './health-clock';


const TIMEOUT = 60_000;
let clock: FakeClock;
let health: ProxyHealth;
let server: RunningServer;
let registry: Registry;
let metrics: ProxyMetrics;

async function get(path: string): Promise<{ status: number; body: Record<string, unknown>; type: string | null }> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, type: res.headers.get('content-type') };
}

const node = (extra: Partial<V1Node> = {}): V1Node => ({ metadata: { name: 'node-a', ...extra.metadata }, spec: { ...extra.spec } });

beforeEach(async () => {
  clock = new FakeClock();
  health = new ProxyHealth(TIMEOUT, clock);
  registry = new Registry();
  metrics = createProxyMetrics(registry, { processMetrics: false });
  server = await startHealthServer({ bindAddress: '127.0.0.1:0', health, healthzTotal: metrics.proxyHealthzTotal, livezTotal: metrics.proxyLivezTotal });
});
afterEach(() => server.close());

describe('proxy health', { timeout: 60_000 }, () => {
  it('is healthy at start-up, before any sync, with Go zero time as lastUpdated', async () => {
    const r = await get('/livez');
    assert.equal(r.status, 200);
    assert.equal(r.type, 'application/json');
    assert.equal(r.body.healthy, true);
    assert.equal(r.body.currentTime, '2026-01-01T00:00:00.000Z');
    assert.equal(r.body.lastUpdated, '2026-01-01T00:00:00.000Z', 'healthy answers report now, as upstream');
    assert.equal(r.body.nodeEligible, undefined, '/livez says nothing about the node');
  });

  it('turns unhealthy only when a queued update waits a full timeout, and recovers on the next sync', async () => {
    health.updated('IPv4');
    clock.advance(1000);
    health.queuedUpdate('IPv4');
    clock.advance(TIMEOUT - 1);
    assert.equal((await get('/healthz')).status, 200);
    health.queuedUpdate('IPv4'); // a later update does not restart the clock
    clock.advance(1);
    const bad = await get('/healthz');
    assert.equal(bad.status, 503);
    assert.equal(bad.body.healthy, false);
    assert.equal(bad.body.lastUpdated, '2026-01-01T00:00:00.000Z');
    assert.deepEqual(bad.body.status, { IPv4: { lastUpdated: '2026-01-01T00:00:00.000Z', healthy: false } });
    assert.deepEqual(Object.keys(bad.body), ['lastUpdated', 'currentTime', 'nodeEligible', 'healthy', 'status', 'reasons'], "upstream's key order, then ours");
    assert.deepEqual(bad.body.reasons, ['IPv4: changes queued 60s ago are not applied yet (limit 60s)']);
    assert.equal((await get('/livez')).status, 503);
    health.updated('IPv4');
    const good = await get('/healthz');
    assert.equal(good.status, 200);
    assert.equal(good.body.lastUpdated, good.body.currentTime);
  });

  it('judges each IP family on its own', async () => {
    health.updated('IPv4');
    health.updated('IPv6');
    health.queuedUpdate('IPv6');
    clock.advance(TIMEOUT);
    const r = await get('/livez');
    assert.equal(r.status, 503);
    const status = r.body.status as Record<string, { healthy: boolean }>;
    assert.equal(status.IPv4.healthy, true);
    assert.equal(status.IPv6.healthy, false);
  });

  it('/healthz fails while the node is deleted or tainted for deletion; /livez does not', async () => {
    health.syncNode(node({ metadata: { name: 'node-a', deletionTimestamp: new Date() } }));
    let hz = await get('/healthz');
    assert.equal(hz.status, 503);
    assert.equal(hz.body.nodeEligible, false);
    assert.equal(hz.body.healthy, true, 'the proxy itself is fine');
    assert.equal((await get('/livez')).status, 200);
    health.syncNode(node({ spec: { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] } }));
    assert.equal((await get('/healthz')).status, 503);
    health.syncNode(node({ spec: { taints: [{ key: 'other', effect: 'NoSchedule' }] } }));
    hz = await get('/healthz');
    assert.equal(hz.status, 200);
    assert.equal(hz.body.nodeEligible, true);
    health.syncNode(undefined);
    assert.equal((await get('/healthz')).status, 503, 'a deleted Node is not eligible');
  });

  it('counts answers by code and 404s other paths', async () => {
    await get('/healthz');
    health.syncNode(undefined);
    await get('/healthz');
    await get('/livez');
    assert.equal((await fetch(`http://127.0.0.1:${server.port}/other`)).status, 404);
    const s = parsePrometheusText(await registry.metrics());
    assert.equal(sample(s, 'kubeproxy_proxy_healthz_total', { code: '200' }), 1);
    assert.equal(sample(s, 'kubeproxy_proxy_healthz_total', { code: '503' }), 1);
    assert.equal(sample(s, 'kubeproxy_proxy_livez_total', { code: '200' }), 1);
  });

  it('reports the API server connection in the body without changing the code', async () => {
    const other = await startHealthServer({
      bindAddress: '127.0.0.1:0',
      health,
      apiServer: () => ({ connected: false, synced: true, lastError: 'connect ECONNREFUSED 127.0.0.1:6443' }),
    });
    try {
      const res = await fetch(`http://127.0.0.1:${other.port}/healthz`);
      assert.equal(res.status, 200);
      const body = (await res.json()) as Record<string, unknown>;
      assert.deepEqual(body.apiServer, { connected: false, synced: true, lastError: 'connect ECONNREFUSED 127.0.0.1:6443' });
    } finally {
      await other.close();
    }
  });

  it('rejects a non-positive timeout by name', () => {
    assert.throws(() => new ProxyHealth(0), /healthTimeoutMs: must be > 0/);
    assert.equal(nodeEligible(undefined), false);
  });
});
