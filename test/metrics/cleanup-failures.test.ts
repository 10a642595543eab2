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
import { changed, fourServices, snapshot } from '../proxier/nftables/fixtures';

describe('nftables cleanup failures', () => {
  it('has no series: we never run a cleanup apart from the sync', async () => {
    const registry = new Registry();
    createProxyMetrics(registry, { processMetrics: false });
    assert.doesNotMatch(await registry.metrics(), /cleanup_failures/);
  });

  it('counts a failed deletion of a Service\'s leftover chain as a sync failure, and the next sync removes it', async () => {
    const syncFailures = countingMetric();
    const { proxier, nft, kernel } = proxierOnFake({ metrics: { syncFailures } });
    const { svc3, entries } = fourServices();
    assert.equal((await proxier.sync(snapshot(entries), changed(), true)).ok, true);
    const own = chainNames(kernel).filter((c) => c.includes('svc3'));
    assert.ok(own.length > 0, 'svc3 (session affinity) has a chain of its own');
    nft.inject({ errno: 'EBUSY', at: /^delete chain ip kube-proxy .*svc3/ });
    const without = entries.filter(([sp]) => sp.key !== svc3.key);
    const failed = await proxier.sync(snapshot(without), { ...changed(svc3.key), removedServices: new Map([[svc3.key, svc3]]) }, false);
    assert.equal(failed.ok, false);
    assert.match(failed.error!.message, /EBUSY/);
    assert.equal(syncFailures.count, 1);
    assert.ok(chainNames(kernel).some((c) => c.includes('svc3')), 'the failed transaction changed nothing');
    assert.equal((await proxier.sync(snapshot(without), changed(), true)).ok, true);
    assert.equal(chainNames(kernel).some((c) => c.includes('svc3')), false);
    assert.equal(syncFailures.count, 1);
  });
});
