// rest_client_requests_total{code,method,host} and rest_client_request_duration_seconds{verb,host}
// from our API client, as client-go records them (rest/request.go: updateURLMetrics once per attempt,
// with the status code or "<error>"; RequestLatency around request(), which watches do not use) under
// the names, labels and buckets component-base registers
// (component-base/metrics/prometheus/restclient/metrics.go). Against the test API server.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { ApiConnection, ApiError, hostOf } from '../../src/k8s/api-request';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import { openWatch } from '../../src/k8s/watch-stream';
import { createRestClientMetrics, REST_CLIENT_LATENCY_BUCKETS } from '../../src/metrics/rest-client-metrics';
import { postEvent } from '../../src/k8s/events-client';
import type { TestApiServer } from '../apiserver/server';
import { RecordingSink, service, serverPerTest, startTestWatcher, waitFor } from './helpers';

const RELAXED = { headersMs: 10_000, listIdleMs: 10_000, listBodyMs: 20_000, watchBookmarkIdleMs: 10_000, watchTimeoutMarginMs: 10_000 };
const t = serverPerTest();

function measured(api: TestApiServer, server?: string) {
  const registry = new Registry();
  const observer = createRestClientMetrics(registry);
  const kc = loadKubeConfig(server ? { master: server } : { kubeconfig: api.kubeconfig() });
  return { registry, conn: new ApiConnection(kc, RELAXED, observer), observer };
}

async function samples(registry: Registry, name: string): Promise<{ labels: Record<string, string | number>; value: number; metricName?: string }[]> {
  const m = await registry.getSingleMetric(name)?.get();
  return (m?.values ?? []) as { labels: Record<string, string | number>; value: number; metricName?: string }[];
}

async function requests(registry: Registry): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const s of await samples(registry, 'rest_client_requests_total')) out[`${s.labels.code} ${s.labels.method} ${s.labels.host}`] = s.value;
  return out;
}

async function latencyCount(registry: Registry, verb: string, host: string): Promise<number> {
  const s = (await samples(registry, 'rest_client_request_duration_seconds'))
    .find((v) => v.metricName?.endsWith('_count') && v.labels.verb === verb && v.labels.host === host);
  return s?.value ?? 0;
}

describe('rest client metrics (component-base restclient/metrics.go, client-go rest/request.go)', { timeout: 60_000 }, () => {
  it('host is the server URL\'s authority as Go\'s url.URL.Host gives it', () => {
    assert.equal(hostOf('https://10.96.0.1:443'), '10.96.0.1:443', 'a default port written stays');
    assert.equal(hostOf('https://api.example.com/prefix/'), 'api.example.com');
    assert.equal(hostOf('https://user:pw@[fd00::1]:6443'), '[fd00::1]:6443');
  });

  it('counts and times Event POSTs too (client-go counts every request): a 201 and a 403', async () => {
    const { registry, observer } = measured(t.api);
    const kc = loadKubeConfig({ kubeconfig: t.api.kubeconfig() });
    const host = new URL(t.api.url).host;
    const event = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'n.1', namespace: 'default' } };
    await postEvent(kc, 'default', event, 10_000, observer);
    t.api.failRequests(403, '/apis/events.k8s.io');
    const refused = await postEvent(kc, 'default', { ...event, metadata: { name: 'n.2', namespace: 'default' } }, 10_000, observer).catch((e: unknown) => e);
    assert.ok(refused instanceof ApiError && refused.code === 403);
    assert.deepEqual(await requests(registry), { [`201 POST ${host}`]: 1, [`403 POST ${host}`]: 1 });
    assert.equal(await latencyCount(registry, 'POST', host), 2);
  });

  it('counts a 200 and a 403 list by code, method and host, and times both', async () => {
    const { registry, conn } = measured(t.api);
    const host = new URL(t.api.url).host;
    t.api.create('services', service('default', 'web'));
    await conn.getJson('/api/v1/services', {});
    t.api.failRequests(403, '/api/v1/nodes');
    const forbidden = await conn.getJson('/api/v1/nodes', {}).catch((e: unknown) => e);
    assert.ok(forbidden instanceof ApiError && forbidden.code === 403);
    assert.deepEqual(await requests(registry), { [`200 GET ${host}`]: 1, [`403 GET ${host}`]: 1 });
    assert.equal(await latencyCount(registry, 'GET', host), 2, 'every non-watch request is timed, failed ones too');
    const m = await registry.getSingleMetric('rest_client_request_duration_seconds')!.get();
    const les = m.values.filter((v) => (v as { metricName?: string }).metricName?.endsWith('_bucket')).map((v) => v.labels.le);
    assert.deepEqual([...new Set(les)], [...REST_CLIENT_LATENCY_BUCKETS, '+Inf']);
    assert.equal(m.help, 'Request latency in seconds. Broken down by verb, and host.');
    assert.equal((await registry.getSingleMetric('rest_client_requests_total')!.get()).help, 'Number of HTTP requests, partitioned by status code, method, and host.');
  });

  it('counts a watch once by its status and does not time it; a request with no answer is "<error>"', async () => {
    const { registry, conn } = measured(t.api);
    const host = new URL(t.api.url).host;
    const w = openWatch(conn, { path: '/api/v1/services', params: {}, timeoutSeconds: 30, onOpen: () => undefined, onEvent: () => undefined });
    await waitFor('watch open', () => t.api.openWatches === 1);
    w.abort();
    await w.done;
    assert.deepEqual(await requests(registry), { [`200 GET ${host}`]: 1 }, 'aborting an answered watch counts nothing more');
    assert.equal(await latencyCount(registry, 'GET', host), 0);

    await t.api.stop();
    const refused = await conn.getJson('/api/v1/services', {}).catch((e: unknown) => e);
    assert.ok(refused instanceof Error);
    assert.deepEqual(await requests(registry), { [`200 GET ${host}`]: 1, [`<error> GET ${host}`]: 1 });
    await t.api.start();
  });

  it('counts every list and watch the watcher makes, as the API server saw them', async () => {
    const registry = new Registry();
    const host = new URL(t.api.url).host;
    t.api.create('services', service('default', 'web'));
    t.api.failRequests(403, '/apis/networking.k8s.io/v1/servicecidrs');
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { requestObserver: createRestClientMetrics(registry) });
    await waitFor('synced', () => sink.synced > 0);
    await waitFor('watches open', () => t.api.openWatches >= 3);
    // A request the server has seen may not have its answer back yet: wait until the counts settle.
    let seen = t.api.requests;
    let counted: Record<string, number> = {};
    for (let i = 0; i < 100; i++) {
      seen = t.api.requests.filter((r) => r.method === 'GET');
      counted = await requests(registry);
      if (Object.values(counted).reduce((a, b) => a + b, 0) === seen.length) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    t.watcher.stop();
    const forbidden = seen.filter((r) => r.path.startsWith('/apis/networking.k8s.io/v1/servicecidrs')).length;
    assert.ok(forbidden > 0);
    assert.equal(counted[`403 GET ${host}`], forbidden);
    assert.equal(counted[`200 GET ${host}`], seen.length - forbidden);
    const lists = seen.filter((r) => !r.watch).length;
    assert.equal(await latencyCount(registry, 'GET', host), lists, 'lists are timed, watches not');
  });
});
