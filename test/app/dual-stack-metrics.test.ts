// On a dual-stack node, a change that concerns IPv6 only moves only the ipv6 series, as upstream's
// per-family proxiers would (pkg/proxy/runner.go Runner: a slice goes to its address type's proxier;
// sync() stamps last_queued per family; syncNow() observes durations and last_timestamp per family).
// Our one transaction covers both families, so the sync durations and last_timestamp are the same
// sync's, observed under each family; a failed transaction failed for both. Upstream's Runner hands
// every Service to every family's tracker, whose Update counts it before looking at its IPs, so
// service_changes_total moves for both families too. nftables mode (FakeKernel) and IPVS mode
// (FakeIpvs), with the real conntrack reconciler over a fake flow table.
import { silentLog } from '../../src/base/log';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { ipvsProxierMetrics } from '../../src/app/ipvs-parts';
import { nftablesProxierMetrics } from '../../src/app/nftables-parts';
import { SyncLoop } from '../../src/app/sync-loop';
import { ConntrackCleanup } from '../../src/conntrack';
import { ProxyState, type Proxier } from '../../src/core';
import { ProxyHealth } from '../../src/health/proxy-health';
import { createProxyMetrics, type ProxyMetrics } from '../../src/metrics/proxy-metrics';
import type { ConntrackFilter } from '../../src/native';
import { FakeKernel } from '../../src/native/testing';
import { NftablesProxier } from '../../src/proxier/nftables';
import { recordingLogger, service, slice, sliceEndpoint } from '../core/fixtures';
import { proxierOptions } from '../proxier/nftables/fixtures';
import { setup as ipvsSetup } from '../proxier/ipvs/helpers';

const NOW = 1_800_000_000_000;
const UDP_DNS = [{ name: 'dns', port: 5353, protocol: 'UDP' }];

/** Deletes one flow per filter; remembers the families of each call's filters. */
class FakeFlows {
  readonly calls: (4 | 6)[][] = [];
  async deleteFlows(filters: readonly ConntrackFilter[]) {
    this.calls.push([...new Set(filters.map((f) => f.family))]);
    return {
      deleted: filters.length, deletedByProtocol: { udp: filters.length, tcp: 0, sctp: 0 }, notFound: 0, failed: 0,
      received: filters.length, matched: filters.length, dumps: 1, tableEntries: -1,
    };
  }
  async listDnatFlows() {
    return { flows: [], truncated: false, received: 0 };
  }
}

function world(proxierFor: (m: ProxyMetrics) => Proxier & { injectFailure(): void }) {
  let now = NOW;
  const state = new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4', 'IPv6'], log: recordingLogger(), startTime: new Date(0) });
  const registry = new Registry();
  const metrics = createProxyMetrics(registry, { processMetrics: false });
  const proxier = proxierFor(metrics);
  const flows = new FakeFlows();
  const clock = { wall: () => new Date(now) };
  const loop = new SyncLoop({
    state, proxier, families: ['IPv4', 'IPv6'], metrics, health: new ProxyHealth(60_000, clock), log: silentLog, clock,
    conntrack: new ConntrackCleanup(flows),
  });
  const onService = (...a: Parameters<ProxyState['onService']>) => { if (state.onService(...a)) loop.queued(); };
  const onSlice = (s: V1EndpointSlice) => { if (state.onEndpointSlice('update', s)) loop.queued(); };
  return { state, registry, proxier, flows, loop, onService, onSlice, advance: (ms: number) => { now += ms; } };
}

/** Every sample of every kubeproxy_ family, by name and labels. */
async function series(registry: Registry): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of await registry.getMetricsAsJSON()) {
    if (!m.name.startsWith('kubeproxy_') || m.name.startsWith('kubeproxy_native_')) continue;
    for (const v of m.values as { labels: Record<string, string | number>; value: number; metricName?: string }[]) {
      const labels = Object.entries(v.labels).sort().map(([k, l]) => `${k}=${l}`).join(',');
      out.set(`${v.metricName ?? m.name}{${labels}}`, v.value);
    }
  }
  return out;
}

function movedOf(before: Map<string, number>, after: Map<string, number>, family: string): string[] {
  const names = new Set<string>();
  for (const [k, v] of after) if (k.includes(`ip_family=${family}`) && before.get(k) !== v) names.add(k.slice(0, k.indexOf('{')).replace(/_(bucket|sum|count)$/, ''));
  return [...names].sort();
}

const SHARED = [
  'kubeproxy_sync_partial_proxy_rules_duration_seconds',
  'kubeproxy_sync_proxy_rules_duration_seconds',
  'kubeproxy_sync_proxy_rules_last_timestamp_seconds',
  'kubeproxy_sync_proxy_rules_service_changes_total',
];

async function ipv6OnlyChangeMovesIpv6Series(w: ReturnType<typeof world>): Promise<void> {
  w.onService('add', service('dual', {
    clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00:96::10'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack',
    ports: [{ name: 'dns', port: 53, protocol: 'UDP' }],
  }));
  w.onSlice(slice('dual-v4', 'dual', [sliceEndpoint('10.1.0.1')], { ports: UDP_DNS }));
  w.onSlice(slice('dual-v6', 'dual', [sliceEndpoint('fd00:1::1')], { ports: UDP_DNS, addressType: 'IPv6' }));
  w.onService('add', service('v4', { clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] }));
  assert.equal(await w.loop.run('requested'), true);
  w.advance(10_000);
  const before = await series(w.registry);

  // An IPv6-only Service with an Local internal policy and no local endpoint, and a changed IPv6 slice
  // of the dual-stack one (its UDP endpoint leaves: a stale flow to delete).
  const trigger = new Date(NOW + 8_000).toISOString();
  w.onService('add', service('v6only', {
    clusterIP: 'fd00:96::20', clusterIPs: ['fd00:96::20'], ipFamilies: ['IPv6'], internalTrafficPolicy: 'Local',
  }));
  w.onSlice(slice('v6only-1', 'v6only', [sliceEndpoint('fd00:1::9', { nodeName: 'node-b' })], {
    addressType: 'IPv6', annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': trigger },
  }));
  w.onSlice(slice('dual-v6', 'dual', [sliceEndpoint('fd00:1::2')], { ports: UDP_DNS, addressType: 'IPv6' }));
  const queued = await series(w.registry);
  assert.deepEqual(movedOf(before, queued, 'IPv4'), [], 'nothing ipv4 moves while the change is pending');
  assert.deepEqual(movedOf(before, queued, 'IPv6'), [
    'kubeproxy_sync_proxy_rules_endpoint_changes_pending', 'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds',
    'kubeproxy_sync_proxy_rules_service_changes_pending',
  ]);
  assert.equal(queued.get('kubeproxy_sync_proxy_rules_service_changes_pending{ip_family=IPv6}'), 1);
  assert.equal(queued.get('kubeproxy_sync_proxy_rules_endpoint_changes_pending{ip_family=IPv6}'), 2);
  assert.equal(queued.get('kubeproxy_sync_proxy_rules_endpoint_changes_pending{ip_family=IPv4}'), 0);

  w.flows.calls.length = 0;
  assert.equal(await w.loop.run('requested'), true);
  const after = await series(w.registry);
  assert.deepEqual(movedOf(before, after, 'IPv4'), SHARED, 'ipv4: only what the shared sync and every Service event move');
  assert.deepEqual(movedOf(before, after, 'IPv6'), [
    'kubeproxy_conntrack_reconciler_deleted_entries_total', 'kubeproxy_conntrack_reconciler_sync_duration_seconds',
    'kubeproxy_network_programming_duration_seconds',
    ...SHARED.slice(0, 2),
    'kubeproxy_sync_proxy_rules_endpoint_changes_total', 'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds',
    SHARED[2], 'kubeproxy_sync_proxy_rules_no_local_endpoints_total', SHARED[3],
  ].sort());
  assert.deepEqual(w.flows.calls, [[6]], 'one conntrack pass, of IPv6 flows only');
  const reconciled = (m: Map<string, number>): number => (m.get('kubeproxy_conntrack_reconciler_deleted_entries_total{ip_family=IPv4}') ?? 0) + (m.get('kubeproxy_conntrack_reconciler_deleted_entries_total{ip_family=IPv6}') ?? 0);
  const byProtocol = (await w.registry.getSingleMetric('kubeproxy_native_conntrack_stale_flows_deleted_total')!.get()).values;
  assert.ok(reconciled(after) > 0);
  assert.deepEqual(byProtocol.map((v) => [v.labels.protocol, v.value]), [['UDP', reconciled(after)]], 'the same deletions, by protocol');
  assert.equal(after.get('kubeproxy_sync_proxy_rules_endpoint_changes_total{ip_family=IPv6}')! - before.get('kubeproxy_sync_proxy_rules_endpoint_changes_total{ip_family=IPv6}')!, 2);
  assert.equal(after.get('kubeproxy_network_programming_duration_seconds_count{ip_family=IPv6}'), 1);
  assert.equal(after.get('kubeproxy_network_programming_duration_seconds_sum{ip_family=IPv6}'), 2);
  assert.equal(after.get('kubeproxy_sync_proxy_rules_no_local_endpoints_total{ip_family=IPv6,traffic_policy=internal}'), 1);

  // A failed transaction failed for both families.
  w.proxier.injectFailure();
  w.onService('add', service('v6-more', { clusterIP: 'fd00:96::21', clusterIPs: ['fd00:96::21'], ipFamilies: ['IPv6'] }));
  assert.equal(await w.loop.run('requested'), false);
}

describe('dual-stack metrics', () => {
  it('nftables mode: an IPv6-only change moves only the ipv6 series, besides the shared sync\'s', async () => {
    const kernel = new FakeKernel();
    const nft = kernel.open();
    const w = world((m) => Object.assign(new NftablesProxier(proxierOptions(nft, { metrics: nftablesProxierMetrics(m, ['IPv4', 'IPv6']) })), {
      injectFailure: () => { nft.inject({ errno: 'ENOMEM', at: -1 }); },
    }));
    await ipv6OnlyChangeMovesIpv6Series(w);
    const s = await series(w.registry);
    assert.equal(s.get('kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family=IPv4}'), 1);
    assert.equal(s.get('kubeproxy_sync_proxy_rules_nftables_sync_failures_total{ip_family=IPv6}'), 1);
  });

  it('IPVS mode: the same', async () => {
    let failNext = false;
    const w = world((m) => {
      const s = ipvsSetup({ metrics: ipvsProxierMetrics(m, ['IPv4', 'IPv6']) });
      const proxier = Object.assign(s.proxier, { injectFailure: () => { failNext = true; } });
      const sync = proxier.sync.bind(proxier);
      proxier.sync = async (...a) => {
        if (failNext) { failNext = false; s.helper.failNext = true; }
        return sync(...a);
      };
      return proxier;
    });
    await ipv6OnlyChangeMovesIpv6Series(w);
    const s = await series(w.registry);
    assert.equal(s.get('kubeproxy_sync_proxy_rules_ipvs_sync_failures_total{ip_family=IPv4}'), 1);
    assert.equal(s.get('kubeproxy_sync_proxy_rules_ipvs_sync_failures_total{ip_family=IPv6}'), 1);
  });
});

describe('last_queued at start', () => {
  it('is stamped for every family when syncing starts (upstream Runner.Run), even one with no Services', async () => {
    const kernel = new FakeKernel();
    const nft = kernel.open();
    const w = world((m) => Object.assign(new NftablesProxier(proxierOptions(nft, { metrics: nftablesProxierMetrics(m, ['IPv4', 'IPv6']) })), { injectFailure: () => undefined }));
    w.onService('add', service('v4', { clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] }));
    let s = await series(w.registry);
    assert.equal(s.get('kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family=IPv4}'), NOW / 1000);
    assert.equal(s.has('kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family=IPv6}'), false);
    w.advance(1000);
    w.loop.started();
    s = await series(w.registry);
    assert.equal(s.get('kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family=IPv4}'), NOW / 1000 + 1);
    assert.equal(s.get('kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family=IPv6}'), NOW / 1000 + 1);
  });
});
