// Live: a proxy in a test namespace, scraped by a real Prometheus evaluating the shipped rules
// (shortened: test-rules.ts). Faults from outside the proxy, each seen firing its alert, then resolving:
// - our table flushed by another process, again and again -> KubeProxyNativeForeignChanges;
// - the API server stopped, /healthz asked every second as the DaemonSet's readiness probe would ->
//   KubeProxyNativeUnhealthy; it resolves once the proxy has relisted after the API server is back;
// - the node namespace's conntrack table filled past nf_conntrack_max with UDP flows ->
//   KubeProxyNativeConntrackNearlyFull and KubeProxyNativeConntrackDropping (early drops); resolved
//   by flushing the table.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { endpointSlice, service } from '../traffic/fixtures';
import { waitForAnswer } from '../traffic/harness';
import { firing, firingNames, healthz, resolved, startLiveCluster, until, value, type LiveCluster } from './live-cluster';

const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
const VIP = '100.100.8.10';
const say = (s: string) => { if (process.env.KPN_TEST_LOG) console.error(s); };

/**
 * Fills the namespace's conntrack table with `count` unreplied UDP flows from one socket on
 * loopback (distinct destination ports on 127.0.0.1-127.0.0.8), inside the namespace only. Their
 * timeout is raised in that namespace so they outlive the test's waits.
 */
function fillConntrack(l: LiveCluster, count: number): void {
  l.c.topo.node.exec('sysctl', ['-q', '-w', 'net.netfilter.nf_conntrack_udp_timeout=600']);
  const script = [
    'import socket, sys',
    's = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)',
    'n = int(sys.argv[1]); sent = 0',
    'for host in range(1, 9):',
    '    for port in range(1024, 65536):',
    '        if sent >= n: sys.exit(0)',
    '        try: s.sendto(b"x", ("127.0.0.%d" % host, port))',
    '        except OSError: pass',
    '        sent += 1',
  ].join('\n');
  l.c.topo.node.exec('python3', ['-c', script, String(count)]);
}

describe('live: alerts for faults from outside the proxy, against a real Prometheus', () => {
  let l: LiveCluster;
  before(async () => {
    l = await startLiveCluster();
    l.c.api.create('services', service('web', { clusterIP: VIP, ports }));
    l.c.api.create('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: l.c.topo.pods.map((p) => ({ ip: p.ip })) }));
    await waitForAnswer(l.c, 'tcp', VIP, 80);
    await new Promise((r) => setTimeout(r, 8_000)); // longer than the shortened for: (5 s)
    assert.deepEqual(await firingNames(l), [], 'nothing fires before the faults');
  });
  after(async () => { await l?.stop(); });

  it('our table flushed from outside, repeatedly: KubeProxyNativeForeignChanges fires, resolves once it stops', async () => {
    const t0 = Date.now();
    let flushes = 0;
    let up: { afterMs: number } | undefined;
    // A flush a second, as a process fighting the proxy would, until the alert fires (at most 60 s).
    while (!up && Date.now() - t0 < 60_000) {
      l.c.topo.node.nft('flush', 'table', 'ip', 'kube-proxy');
      flushes++;
      await new Promise((r) => setTimeout(r, 1000));
      if ((await l.prom.alertsNamed('KubeProxyNativeForeignChanges')).length > 0) up = { afterMs: Date.now() - t0 };
    }
    assert.ok(up, `KubeProxyNativeForeignChanges did not fire after ${flushes} flushes; firing: ${await firingNames(l)}`);
    assert.ok(await value(l, 'sum(kubeproxy_native_ruleset_foreign_changes_total)') > 3, 'Prometheus saw more than 3 foreign changes');
    assert.ok(await value(l, 'sum(kubeproxy_native_ruleset_repairs_total{reason="foreign_change"})') >= 1, 'and repairs');
    const downMs = await resolved(l, 'KubeProxyNativeForeignChanges', 90_000);
    say(`ForeignChanges fired after ${flushes} flushes (${up.afterMs} ms), resolved ${downMs} ms after the last`);
    // The last repair stands (the repair limiter may wait up to its back-off after a fight).
    await until(() => /^pod/.test(l.c.topo.probe('tcp', VIP, 80, 1, { timeoutMs: 300 })[0]), 'traffic after the last repair', 60_000);
  });

  it('the API server stopped: KubeProxyNativeUnhealthy fires while /healthz says 503, resolves once the proxy relisted', async () => {
    let probing = true;
    const codes: number[] = [];
    // The DaemonSet's readiness probe asks /healthz every 10 s; here every second, so short windows see it.
    const probe = (async () => { while (probing) { codes.push(await healthz(l).catch(() => 0)); await new Promise((r) => setTimeout(r, 1000)); } })();
    try {
      await until(() => codes.length >= 3, 'a few probes', 10_000);
      assert.ok(codes.every((c) => c === 200), `healthy before: ${codes}`);
      await l.c.api.stop();
      const stoppedAt = Date.now();
      await firing(l, 'KubeProxyNativeUnhealthy', 120_000);
      const firedMs = Date.now() - stoppedAt;
      assert.ok((codes as number[]).includes(503), '/healthz answered 503');
      assert.ok(/^pod/.test(l.c.topo.probe('tcp', VIP, 80, 1, { timeoutMs: 500 })[0]), 'the rules stay while the API server is gone');
      await l.c.api.start();
      const downMs = await resolved(l, 'KubeProxyNativeUnhealthy', 150_000);
      say(`Unhealthy fired ${firedMs} ms after the API server stopped, resolved ${downMs} ms after it came back`);
      assert.equal(codes[codes.length - 1], 200, 'healthy again');
    } finally {
      probing = false;
      await probe;
    }
  });

  it('the conntrack table filled: KubeProxyNativeConntrackNearlyFull and ...Dropping fire, resolve once it is flushed', async () => {
    const max = await value(l, 'kubeproxy_native_conntrack_max_entries');
    assert.ok(max > 0 && max <= 4_000_000, `nf_conntrack_max ${max}`);
    // Past the limit: the last few thousand flows evict unreplied ones (early_drop).
    fillConntrack(l, max + 5000);
    const full = await firing(l, 'KubeProxyNativeConntrackNearlyFull', 60_000);
    const drop = await firing(l, 'KubeProxyNativeConntrackDropping', 60_000);
    assert.match(full.alerts[0].annotations.summary, /is (8\d|9\d|100)(\.\d+)?% full/);
    assert.ok(await value(l, 'sum(increase(kubeproxy_native_conntrack_early_drop_total[1m]))') > 0, 'early drops seen');
    l.c.topo.node.exec('conntrack', ['-F']);
    const fullDownMs = await resolved(l, 'KubeProxyNativeConntrackNearlyFull', 60_000);
    const dropDownMs = await resolved(l, 'KubeProxyNativeConntrackDropping', 60_000);
    say(`NearlyFull fired ${full.afterMs} ms after ${max + 5000} flows were sent ("${full.alerts[0].annotations.summary}"), Dropping ${drop.afterMs} ms after that; resolved ${fullDownMs} and ${dropDownMs} ms after the flush`);
  });
});
