// Live: a proxy in a test namespace, scraped by a real Prometheus evaluating the shipped rules
// (shortened: test-rules.ts). The sync alerts are caused as on a node, seen firing, then resolving:
// - a refused commit: another process owns our table, the kernel refuses every sync (EPERM) ->
//   KubeProxyNativeSyncFailing; it resolves once the table is free and the proxy has synced;
// - a stale sync: the same refusal while a Service change waits -> KubeProxyNativeNotSyncing;
// - slow network programming: an EndpointSlice whose change was triggered a minute before the proxy
//   saw it -> KubeProxyNativeNetworkProgrammingSlow (p99 above the 30 s SLO).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { endpointSlice, service } from '../traffic/fixtures';
import { waitForAnswer } from '../traffic/harness';
import { firing, firingNames, resolved, startLiveCluster, tableText, takeTable, until, value, type LiveCluster } from './live-cluster';

const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
const say = (s: string) => { if (process.env.KPN_TEST_LOG) console.error(s); };

describe('live: sync alerts against a real Prometheus', () => {
  let l: LiveCluster;
  before(async () => {
    l = await startLiveCluster();
    l.c.api.create('services', service('web', { clusterIP: '100.100.9.10', ports }));
    l.c.api.create('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: l.c.topo.pods.map((p) => ({ ip: p.ip })) }));
    await waitForAnswer(l.c, 'tcp', '100.100.9.10', 80);
  });
  after(async () => { await l?.stop(); });

  it('quiet while the proxy works: no alert fires', async () => {
    await new Promise((r) => setTimeout(r, 8_000)); // longer than the shortened for: (5 s)
    assert.deepEqual(await firingNames(l), []);
    assert.ok(await value(l, 'kubeproxy_sync_proxy_rules_last_timestamp_seconds') > 0, 'the proxy has synced, as Prometheus sees it');
  });

  it('a refused commit: KubeProxyNativeSyncFailing fires while the kernel refuses every sync, resolves after', async () => {
    const failuresBefore = await value(l, 'sum(kubeproxy_sync_proxy_rules_nftables_sync_failures_total)');
    const table = await takeTable(l);
    let up: { afterMs: number; alerts: unknown[] };
    try {
      up = await firing(l, 'KubeProxyNativeSyncFailing', 60_000);
      const failures = await value(l, 'sum(kubeproxy_sync_proxy_rules_nftables_sync_failures_total)');
      assert.ok(failures > (Number.isNaN(failuresBefore) ? 0 : failuresBefore), `failures counted: ${failuresBefore} -> ${failures}`);
      assert.ok(l.log.some((line) => /nftables sync failed/.test(line) && /EPERM .*add table ip kube-proxy/.test(line)), 'the proxy logged the refusal: EPERM, and the operation');
      assert.ok(l.log.some((line) => /Sync failed; retrying/.test(line)), 'and that it retries');
    } finally {
      await table.release();
    }
    await until(() => /chain nat-prerouting/.test(tableText(l)), 'our table back', 30_000);
    const downMs = await resolved(l, 'KubeProxyNativeSyncFailing', 90_000);
    say(`SyncFailing fired ${up.afterMs} ms after the table was taken, resolved ${downMs} ms after it was released`);
    await waitForAnswer(l.c, 'tcp', '100.100.9.10', 80);
  });

  it('a stale sync: KubeProxyNativeNotSyncing fires while a change waits and no sync succeeds, resolves after', async () => {
    const table = await takeTable(l);
    let up: { afterMs: number; alerts: Array<{ labels: Record<string, string> }> };
    try {
      l.c.api.create('services', service('late', { clusterIP: '100.100.9.11', ports }));
      l.c.api.create('endpointslices', endpointSlice('late', 'late-1', { ports, endpoints: [{ ip: l.c.topo.pods[0].ip }] }));
      up = await firing(l, 'KubeProxyNativeNotSyncing', 90_000, [
        'time() - kubeproxy_sync_proxy_rules_last_timestamp_seconds', 'kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds - kubeproxy_sync_proxy_rules_last_timestamp_seconds']);
      // The Service is IPv4: its family waits; IPv6 has nothing queued.
      assert.deepEqual(up.alerts.map((a) => [a.labels.instance, a.labels.ip_family]), [[l.metricsAddress, 'IPv4']]);
    } finally {
      await table.release();
    }
    await waitForAnswer(l.c, 'tcp', '100.100.9.11', 80);
    const downMs = await resolved(l, 'KubeProxyNativeNotSyncing', 60_000);
    say(`NotSyncing fired ${up.afterMs} ms after the table was taken and a Service created, resolved ${downMs} ms after release`);
    await resolved(l, 'KubeProxyNativeSyncFailing', 90_000);
  });

  it('slow network programming: KubeProxyNativeNetworkProgrammingSlow fires on a change triggered a minute ago, resolves after', async () => {
    const slice = endpointSlice('slow', 'slow-1', { ports, endpoints: [{ ip: l.c.topo.pods[1].ip }] });
    slice.metadata.annotations['endpoints.kubernetes.io/last-change-trigger-time'] = new Date(Date.now() - 60_000).toISOString();
    l.c.api.create('services', service('slow', { clusterIP: '100.100.9.12', ports }));
    l.c.api.create('endpointslices', slice);
    await waitForAnswer(l.c, 'tcp', '100.100.9.12', 80);
    const up = await firing(l, 'KubeProxyNativeNetworkProgrammingSlow', 60_000);
    assert.match(up.alerts[0].annotations.summary, /network programming p99 is 1m \d|network programming p99 is \d+(\.\d+)?s/);
    const downMs = await resolved(l, 'KubeProxyNativeNetworkProgrammingSlow', 60_000);
    say(`NetworkProgrammingSlow fired after ${up.afterMs} ms (${up.alerts[0].annotations.summary}), resolved ${downMs} ms later`);
  });
});
