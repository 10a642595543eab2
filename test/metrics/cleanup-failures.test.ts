// kubeproxy_sync_proxy_rules_nftables_cleanup_failures_total is not exposed. Upstream's nftables
// proxier (pkg/proxy/nftables/proxier.go, syncProxyRules) counts there the failures of a second
// transaction, run after the sync, that deletes chains it flushed at least a second earlier. We have
// no such step: a chain or set we no longer need is deleted in the sync's own transaction, so its
// failure fails the sync and counts under sync_failures_total. Upstream creates the series only at
// its first failure, so a healthy upstream node shows none either.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { createProxyMetrics } from '../../src/metrics/proxy-metrics';
import { chainNames, countingMetric, proxierOnFake } from '../proxier/nftables/fake-helpers';
import { changed, ep, fourServices, snapshot, sp } from '../proxier/nftables/fixtures';

describe('nftables cleanup failures', () => {
  it('has no series: we never run a cleanup apart from the sync', async () => {
    const registry = new Registry();
    createProxyMetrics(registry, { processMetrics: false });
    assert.doesNotMatch(await registry.metrics(), /cleanup_failures/);
  });

  it('counts a failed deletion of a Service\'s leftover chain as a sync failure, and the next sync removes it', async () => {
    const syncFailures = countingMetric();
    const { proxier, nft, kernel } = proxierOnFake({ metrics: { syncFailures } });
    // An IPv6 Service with session affinity has chains of its own (affinity-chains.ts).
    const aff6 = sp('aff6', { key: 'ns1/aff6:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::44', affinityTimeoutSeconds: 60 });
    const entries: Parameters<typeof snapshot>[0] = [...fourServices().entries, [aff6, [ep('fd00:10::44')]]];
    assert.equal((await proxier.sync(snapshot(entries), changed(), true)).ok, true);
    const own = chainNames(kernel, 'ip6').filter((c) => c.includes('aff6'));
    assert.ok(own.length > 0, 'aff6 (IPv6, session affinity) has a chain of its own');
    nft.inject({ errno: 'EBUSY', at: /^delete chain ip6 kube-proxy .*aff6/ });
    const without = entries.filter(([s]) => s.key !== aff6.key);
    const failed = await proxier.sync(snapshot(without), { ...changed(aff6.key), removedServices: new Map([[aff6.key, aff6]]) }, false);
    assert.equal(failed.ok, false);
    assert.match(failed.error!.message, /EBUSY/);
    assert.equal(syncFailures.count, 1);
    assert.ok(chainNames(kernel, 'ip6').some((c) => c.includes('aff6')), 'the failed transaction changed nothing');
    assert.equal((await proxier.sync(snapshot(without), changed(), true)).ok, true);
    assert.equal(chainNames(kernel, 'ip6').some((c) => c.includes('aff6')), false);
    assert.equal(syncFailures.count, 1);
  });
});
