import { silentLog } from '../../src/base/log';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { SyncLoop, FULL_SYNC_PERIOD_MS } from '../../src/app/sync-loop';
import { ProxyState } from '../../src/core';
import type { ChangeSet, Proxier, ProxySnapshot, SyncResult } from '../../src/core/types';
import { ProxyHealth } from '../../src/health/proxy-health';
import { createProxyMetrics } from '../../src/metrics/proxy-metrics';
import { recordingLogger, service, slice, sliceEndpoint } from '../core/fixtures';

class RecordingProxier implements Proxier {
  calls: { full: boolean; changed: string[] }[] = [];
  fail = false;
  async sync(_s: ProxySnapshot, changes: ChangeSet, full: boolean): Promise<SyncResult> {
    this.calls.push({ full, changed: [...changes.services].sort() });
    return this.fail ? { full, ok: false, error: new Error('kernel said no') } : { full, ok: true };
  }
}

const quiet = silentLog;

function setup() {
  let now = 1_000_000;
  const state = new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4'], log: recordingLogger(), startTime: new Date(0) });
  const proxier = new RecordingProxier();
  const registry = new Registry();
  const metrics = createProxyMetrics(registry, { processMetrics: false });
  const health = new ProxyHealth(60_000, { wall: () => new Date(now) });
  const loop = new SyncLoop({ state, proxier, families: ['IPv4'], metrics, health, log: quiet, clock: { wall: () => new Date(now) } });
  return { state, proxier, registry, metrics, health, loop, advance: (ms: number) => { now += ms; } };
}

async function value(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const m = await registry.getSingleMetric(name)!.get();
  return m.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value;
}

describe('SyncLoop', () => {
  it('syncs fully first, then partially with only the changed ServicePorts', async () => {
    const t = setup();
    t.state.onService('add', service('a'));
    assert.equal(await t.loop.run('requested'), true);
    t.state.onService('add', service('b', { clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] }));
    assert.equal(await t.loop.run('requested'), true);
    assert.deepEqual(t.proxier.calls.map((c) => c.full), [true, false]);
    assert.equal(t.proxier.calls[1].changed.length, 1);
    assert.match(t.proxier.calls[1].changed[0], /^ns\/b:/);
  });

  it('releases memory before the first full sync and after each successful full sync only', async () => {
    let now = 1_000_000;
    const state = new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4'], log: recordingLogger(), startTime: new Date(0) });
    const proxier = new RecordingProxier();
    const releases: string[] = [];
    const loop = new SyncLoop({
      state, proxier, families: ['IPv4'], metrics: createProxyMetrics(new Registry(), { processMetrics: false }),
      health: new ProxyHealth(60_000, { wall: () => new Date(now) }), log: quiet, clock: { wall: () => new Date(now) },
      releaseMemory: (when) => releases.push(`${when} (${proxier.calls.length} syncs so far)`),
    });
    await loop.run('requested');
    state.onService('add', service('a'));
    await loop.run('requested');
    proxier.fail = true;
    await loop.run('retry');
    proxier.fail = false;
    now += FULL_SYNC_PERIOD_MS;
    await loop.run('periodic');
    assert.deepEqual(proxier.calls.map((c) => c.full), [true, false, true, true]);
    assert.deepEqual(releases, [
      'before the first full sync (0 syncs so far)', 'after a full sync (1 syncs so far)', 'after a full sync (4 syncs so far)',
    ], 'before and after the first full sync and after the last; not around the partial or the failed one');
  });

  it('makes the periodic run a full sync only once the full-sync period has passed', async () => {
    const t = setup();
    await t.loop.run('requested');
    t.advance(30_000);
    await t.loop.run('periodic');
    t.advance(FULL_SYNC_PERIOD_MS);
    await t.loop.run('periodic');
    assert.deepEqual(t.proxier.calls.map((c) => c.full), [true, false, true]);
  });

  it('puts the changes back after a failed sync, counts nothing as synced, and retries fully', async () => {
    const t = setup();
    await t.loop.run('requested');
    t.state.onService('add', service('a'));
    t.proxier.fail = true;
    assert.equal(await t.loop.run('requested'), false);
    t.proxier.fail = false;
    assert.equal(await t.loop.run('retry'), true);
    assert.deepEqual(t.proxier.calls.slice(1).map((c) => [c.full, c.changed.length]), [[false, 1], [true, 1]]);
    assert.equal(t.state.pending().services, 0);
  });

  it('records durations, last-sync time, change counters and health', async () => {
    const t = setup();
    t.state.onService('add', service('a'));
    t.state.onEndpointSlice('add', slice('a-1', 'a', [sliceEndpoint('10.1.0.1')], {
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': new Date(1_000_000 - 2000).toISOString() },
    }));
    t.loop.queued();
    assert.equal(await value(t.registry, 'kubeproxy_sync_proxy_rules_service_changes_pending'), 1);
    t.advance(5);
    await t.loop.run('requested');
    assert.equal(await value(t.registry, 'kubeproxy_sync_proxy_rules_service_changes_total'), 1);
    assert.equal(await value(t.registry, 'kubeproxy_sync_proxy_rules_endpoint_changes_total'), 1);
    assert.equal(await value(t.registry, 'kubeproxy_sync_proxy_rules_service_changes_pending'), 0);
    assert.equal(await value(t.registry, 'kubeproxy_sync_proxy_rules_last_timestamp_seconds', { ip_family: 'IPv4' }), 1_000_005 / 1000);
    const count = (await t.registry.getSingleMetric('kubeproxy_sync_full_proxy_rules_duration_seconds')!.get()).values
      .find((v) => (v as { metricName?: string }).metricName?.endsWith('_count'))?.value;
    assert.equal(count, 1);
    const np = (await t.registry.getSingleMetric('kubeproxy_network_programming_duration_seconds')!.get()).values
      .find((v) => (v as { metricName?: string }).metricName?.endsWith('_sum'))?.value;
    assert.equal(np, 2.005);
    assert.equal(t.health.report().healthy, true);
  });

  it('counts Local-policy ServicePorts without local endpoints', async () => {
    const t = setup();
    t.state.onService('add', service('loc', { internalTrafficPolicy: 'Local' }));
    t.state.onEndpointSlice('add', slice('loc-1', 'loc', [sliceEndpoint('10.1.0.9', { nodeName: 'node-b' })]));
    await t.loop.run('requested');
    assert.equal(await value(t.registry, 'kubeproxy_sync_proxy_rules_no_local_endpoints_total', { ip_family: 'IPv4', traffic_policy: 'internal' }), 1);
    t.state.onEndpointSlice('update', slice('loc-1', 'loc', [sliceEndpoint('10.1.0.9', { nodeName: 'node-a' })]));
    await t.loop.run('requested');
    assert.equal(await value(t.registry, 'kubeproxy_sync_proxy_rules_no_local_endpoints_total', { ip_family: 'IPv4', traffic_policy: 'internal' }), 0);
  });
});
