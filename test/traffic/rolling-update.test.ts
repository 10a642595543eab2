// A rolling update under steady load, through the whole proxy, with real packets: every pod of a
// Service is replaced one by one (Rollout: new pod ready, old one terminating while it drains, then
// removed, then stopped after a grace period) while a client sends short connections and keep-alive
// requests to its ClusterIP, a NodePort (externalTrafficPolicy Cluster) and a NodePort of a second
// Service over the same pods with externalTrafficPolicy Local. No request may fail on any path, and no
// connection may reach a pod that has stopped.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NODE_IP } from '../helpers/topology';
import { DrainingServer } from './draining-server';
import { service, type PortSpec } from './fixtures';
import { Cluster, startCluster } from './harness';
import { LoadClient, type LoadPath, type LoadReport } from './load-client';
import { Rollout, type Replaced } from './rollout';
import { counterDelta, tcpCounters } from './tcp-counters';

const POD_PORT = 8081;
const STEADY_PODS = 3;
const cluster: PortSpec[] = [{ port: 80, targetPort: POD_PORT, nodePort: 30580 }];
const local: PortSpec[] = [{ port: 80, targetPort: POD_PORT, nodePort: 30581 }];
const paths: LoadPath[] = [
  { name: 'ClusterIP', host: '100.100.6.10', port: 80 },
  { name: 'NodePort', host: NODE_IP, port: 30580 },
  { name: 'NodePort Local', host: NODE_IP, port: 30581 },
];

describe('a rolling update under load through the whole proxy', () => {
  let c: Cluster;
  const started: DrainingServer[] = [];
  let load: LoadClient | undefined;
  // Pods 0-2 serve first; 3-5 replace them. Every pod is on this node (node-a).
  before(async () => { c = await startCluster({ pods: 2 * STEADY_PODS, prefix: 'kpr' }); });
  after(async () => {
    load?.kill();
    for (const s of started) s.kill();
    await c?.stop();
  });

  it('replaces every pod with no failed request on the ClusterIP, a NodePort and a Local NodePort', async (t) => {
    const first = await Promise.all(c.topo.pods.slice(0, STEADY_PODS).map((p) => DrainingServer.start(p, POD_PORT)));
    started.push(...first);
    c.api.create('services', service('roll', { type: 'NodePort', clusterIP: paths[0].host, ports: cluster }));
    c.api.create('services', service('roll-local', { type: 'NodePort', clusterIP: '100.100.6.11', ports: local, externalTrafficPolicy: 'Local' }));
    const services = [{ name: 'roll', ports: cluster }, { name: 'roll-local', ports: local }];
    const rollout = new Rollout(c, services, [`${paths[0].host} . tcp . 80`, 'tcp . 30580', 'tcp . 30581'], first);
    await rollout.publish();

    const tcpBefore = tcpCounters(c.topo.client);
    load = await LoadClient.start(c.topo.client, { paths, shortPerSecond: 40, keepAliveConnections: 3, keepAliveIntervalMs: 40, slowPerSecond: 5, slowMs: 2000 });
    const replaced: Replaced[] = [];
    for (let i = 0; i < STEADY_PODS; i++) {
      const next = c.topo.pods[STEADY_PODS + i];
      const r = await rollout.replace(first[i], next, { surgeMs: 300, drainMs: 1000, graceMs: 1500 });
      started.push(...rollout.current.filter((s) => !started.includes(s)));
      replaced.push(r);
    }
    // A last second of load on the new pods alone.
    await new Promise((r) => setTimeout(r, 1000));
    const report = await load.stop();
    load = undefined;
    const tcp = counterDelta(tcpBefore, tcpCounters(c.topo.client));
    const lateSyns = first.map((s) => s.synsNotAccepted());

    t.diagnostic(`load ran ${report.seconds.toFixed(1)} s; client TCP: ${JSON.stringify(tcp)}`);
    for (const line of summary(report)) t.diagnostic(line);
    for (const r of replaced) t.diagnostic(`${r.old} -> ${r.next}: ${JSON.stringify(r.counts)}`);
    t.diagnostic(`SYNs not accepted by the stopped pods: ${lateSyns.join(', ')}`);
    t.diagnostic(`steps: ${rollout.events.join('; ')}`);

    for (const p of paths) {
      const kinds = report.paths[p.name];
      for (const [kind, stats] of Object.entries(kinds)) {
        // A retry would hide a connection closed by something else than the draining server (which
        // never closes a connection a client may still reuse): it counts as a failure here.
        assert.equal(stats.failed + stats.retried, 0, `${p.name} ${kind}: ${stats.failed} failed, ${stats.retried} retried: ${JSON.stringify(stats.failures)}; steps: ${rollout.events.join('; ')}`);
      }
      // Seconds of each kind of traffic (the rollout takes several).
      assert.ok(kinds.short.ok >= 100 && kinds.keepAlive.ok >= 100 && kinds.slow.ok >= 10, `${p.name}: too few answers: ${summary(report).join('; ')}`);
      // The new pods took over on every path.
      for (const next of replaced.map((r) => r.next)) assert.ok((kinds.short.pods[next] ?? 0) > 0, `${p.name}: ${next} never answered`);
    }
    assert.deepEqual(lateSyns, first.map(() => 0), 'connections reached a pod after it stopped');
    assert.deepEqual(replaced.map((r) => r.counts.openAtStop), first.map(() => 0), 'connections were still open when a pod stopped');
    // The drain and the grace period were exercised: every keep-alive connection started on an old pod
    // and was closed by its drain, and slow requests were answered by pods already out of the slice.
    const closed = paths.reduce((n, p) => n + report.paths[p.name].keepAlive.closedByServer, 0);
    assert.ok(closed >= paths.length, `only ${closed} keep-alive connections were closed by a draining pod`);
    const afterRemoval = replaced.reduce((n, r) => n + r.counts.answeredAfterRemoval, 0);
    assert.ok(afterRemoval > 0, 'no request was answered by a pod after its removal');
  });
});

/** One line per path and kind: sent, failed, retried, connections, answers per pod. */
function summary(report: LoadReport): string[] {
  return Object.entries(report.paths).flatMap(([name, kinds]) => Object.entries(kinds).map(([kind, s]) =>
    `${name} ${kind}: sent ${s.sent}, failed ${s.failed}, retried ${s.retried}, connections ${s.connections}, closed by a draining pod ${s.closedByServer}, answers ${JSON.stringify(s.pods)}${s.failed ? `, errors ${JSON.stringify(s.errors)}` : ''}`));
}
