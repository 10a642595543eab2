// A rolling update under steady load, through the whole proxy, with real packets: a Service's pods are
// replaced one by one (Rollout: as Kubernetes does, with a drain while terminating and a grace period
// after removal) while a client sends short connections, keep-alive requests and slow requests to its
// ClusterIP, its NodePort (externalTrafficPolicy Cluster) and the NodePort of a second Service over the
// same pods with externalTrafficPolicy Local. No request may fail or need a retry on any path, and no
// connection may reach a pod that has stopped.
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { NODE_IP } from '../helpers/topology';
import { DrainingServer } from './draining-server';
import { service, type PortSpec } from './fixtures';
import { Cluster, startCluster } from './harness';
import { LoadClient, type LoadPath, type LoadReport } from './load-client';
import { Rollout, type Replaced, type RolloutTiming } from './rollout';
import { counterDelta, tcpCounters } from './tcp-counters';

const POD_PORT = 8081;
const LOAD = { shortPerSecond: 40, keepAliveConnections: 3, keepAliveIntervalMs: 40, slowPerSecond: 5, slowMs: 2000 };

/** A Service `name` (Cluster policy) and `name-local` (Local policy) over the same pods. */
interface ServicePair { name: string; clusterIP: string; localClusterIP: string; nodePort: number; localNodePort: number }

function pathsOf(s: ServicePair): LoadPath[] {
  return [
    { name: 'ClusterIP', host: s.clusterIP, port: 80 },
    { name: 'NodePort', host: NODE_IP, port: s.nodePort },
    { name: 'NodePort Local', host: NODE_IP, port: s.localNodePort },
  ];
}

describe('a rolling update under load through the whole proxy', () => {
  let c: Cluster;
  const servers: DrainingServer[] = [];
  let load: LoadClient | undefined;
  // Pods 0-2 serve first and 3-5 replace them; then (their servers stopped) pod 0 is replaced by pod 1
  // next to pod 2 (another node's), for other Services.
  before(async () => { c = await startCluster({ pods: 6, prefix: 'kpr' }); });
  after(async () => {
    load?.kill();
    for (const s of servers) s.kill();
    await c?.stop();
  });

  /** Creates the pair, starts the load, replaces `olds[i]` by `nexts[i]` in turn, and returns what happened. */
  async function rollUnderLoad(s: ServicePair, olds: number[], nexts: number[], timing: RolloutTiming, remote: number[] = []) {
    const start = (i: number) => DrainingServer.start(c.topo.pods[i], POD_PORT).then((srv) => { servers.push(srv); return srv; });
    const first = await Promise.all(olds.map(start));
    const others = await Promise.all(remote.map(start));
    const ports = (nodePort: number): PortSpec[] => [{ port: 80, targetPort: POD_PORT, nodePort }];
    c.api.create('services', service(s.name, { type: 'NodePort', clusterIP: s.clusterIP, ports: ports(s.nodePort) }));
    c.api.create('services', service(`${s.name}-local`, { type: 'NodePort', clusterIP: s.localClusterIP, ports: ports(s.localNodePort), externalTrafficPolicy: 'Local' }));
    const rollout = new Rollout(c, {
      services: [{ name: s.name, ports: ports(s.nodePort) }, { name: `${s.name}-local`, ports: ports(s.localNodePort) }],
      destinations: [
        { map: 'endpoints-', key: `${s.clusterIP} . tcp . 80` },
        { map: 'nodeport-endpoints-', key: `tcp . ${s.nodePort}` },
        // The Local Service's external path (its ClusterIP, and pods' traffic to its NodePort, use every endpoint).
        { map: 'nodeport-local-endpoints-', key: `tcp . ${s.localNodePort}` },
      ],
    }, first, others);
    await rollout.publish();

    const tcpBefore = tcpCounters(c.topo.client);
    load?.kill(); // an earlier test's, if it failed before stopping it
    load = await LoadClient.start(c.topo.client, { paths: pathsOf(s), ...LOAD });
    // Half a second of load on the old pods alone first.
    await new Promise((r) => setTimeout(r, 500));
    const replaced: Replaced[] = [];
    for (const [i, old] of first.entries()) {
      const r = await rollout.replace(old, c.topo.pods[nexts[i]], timing);
      servers.push(...rollout.current.filter((srv) => !servers.includes(srv)));
      replaced.push(r);
    }
    // A last second of load on the new pods alone.
    await new Promise((r) => setTimeout(r, 1000));
    const report = await load.stop();
    load = undefined;
    const tcp = counterDelta(tcpBefore, tcpCounters(c.topo.client));
    return { report, replaced, tcp, lateSyns: first.map((srv) => srv.synsNotAccepted()), events: rollout.events, startedAt: rollout.startedAt };
  }

  function check(t: TestContext, s: ServicePair, run: Awaited<ReturnType<typeof rollUnderLoad>>, remotePods: string[] = []): void {
    const { report, replaced, tcp, lateSyns, events, startedAt } = run;
    t.diagnostic(`load ran ${report.seconds.toFixed(1)} s; client TCP: ${JSON.stringify(tcp)}`);
    for (const line of summary(report)) t.diagnostic(line);
    for (const r of replaced) t.diagnostic(`${r.old} -> ${r.next}: ${JSON.stringify(r.counts)}`);
    t.diagnostic(`SYNs not accepted by the stopped pods: ${lateSyns.join(', ')}`);
    t.diagnostic(`steps: ${events.join('; ')}`);

    for (const p of pathsOf(s)) {
      const kinds = report.paths[p.name];
      for (const [kind, stats] of Object.entries(kinds)) {
        // A retry would hide a connection closed by something else than the draining server (which
        // never closes a connection a client may still reuse): it counts as a failure here.
        assert.equal(stats.failed + stats.retried, 0, `${p.name} ${kind}: ${stats.failed} failed, ${stats.retried} retried: ${stats.failures.map((f) => `${f.at - startedAt}ms ${f.error}`).join(', ')}; steps: ${events.join('; ')}`);
      }
      // Seconds of each kind of traffic (a replacement takes a few).
      assert.ok(kinds.short.ok >= 80 && kinds.keepAlive.ok >= 80 && kinds.slow.ok >= 10, `${p.name}: too few answers: ${summary(report).join('; ')}`);
      for (const next of replaced.map((r) => r.next)) assert.ok((kinds.short.pods[next] ?? 0) > 0, `${p.name}: ${next} never answered`);
      if (p.name === 'NodePort Local') {
        for (const pod of remotePods) assert.equal(Object.values(kinds).reduce((n, k) => n + (k.pods[pod] ?? 0), 0), 0, `the Local path reached ${pod}, on another node`);
      }
    }
    assert.deepEqual(lateSyns, replaced.map(() => 0), 'connections reached a pod after it stopped');
    assert.deepEqual(replaced.map((r) => r.counts.openAtStop), replaced.map(() => 0), 'connections were still open when a pod stopped');
    // The drain and the grace period were exercised: every keep-alive connection started on an old
    // pod and was closed by its drain, and slow requests were answered by pods already out of the slice.
    const closed = Object.values(report.paths).reduce((n, k) => n + k.keepAlive.closedByServer, 0);
    assert.ok(closed >= 3, `only ${closed} keep-alive connections were closed by a draining pod`);
    const afterRemoval = replaced.reduce((n, r) => n + r.counts.answeredAfterRemoval, 0);
    assert.ok(afterRemoval > 0, 'no request was answered by a pod after its removal');
  }

  it('replaces three pods, each new one ready before the old one terminates, with no failed request on any path', async (t) => {
    const s: ServicePair = { name: 'roll', clusterIP: '100.100.6.10', localClusterIP: '100.100.6.11', nodePort: 30580, localNodePort: 30581 };
    // The old pod's last new connection comes before its terminating state is applied: drain + grace
    // (2.5 s) outlasts a slow request (2 s).
    const run = await rollUnderLoad(s, [0, 1, 2], [3, 4, 5], { order: 'surge-first', surgeMs: 300, drainMs: 1000, graceMs: 1500 });
    check(t, s, run);
  });

  it('replaces the only local pod, terminating before its replacement is ready, with no failed request on any path', async (t) => {
    // While pod0 terminates, the Cluster paths go to pod2 (ready, on node-b) and the Local path falls
    // back to pod0 (serving, terminating, local): Rollout waits until the node's maps show exactly that.
    const s: ServicePair = { name: 'solo', clusterIP: '100.100.6.20', localClusterIP: '100.100.6.21', nodePort: 30590, localNodePort: 30591 };
    // pod0's last new connection comes before pod1's readiness is applied: surge + grace (2.8 s)
    // outlasts a slow request (2 s).
    const run = await rollUnderLoad(s, [0], [1], { order: 'terminate-first', surgeMs: 300, drainMs: 1500, graceMs: 2500 }, [2]);
    check(t, s, run, ['pod2']);
  });
});

/** One line per path and kind: sent, failed, retried, connections, answers per pod. */
function summary(report: LoadReport): string[] {
  return Object.entries(report.paths).flatMap(([name, kinds]) => Object.entries(kinds).map(([kind, s]) =>
    `${name} ${kind}: sent ${s.sent}, failed ${s.failed}, retried ${s.retried}, connections ${s.connections}, closed by a draining pod ${s.closedByServer}, answers ${JSON.stringify(s.pods)}${s.failed ? `, errors ${JSON.stringify(s.errors)}` : ''}`));
}
