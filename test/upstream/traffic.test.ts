// The nftables traffic end to end against the real kube-apiserver (issue 29): Services made through
// the real API (its ClusterIP and NodePort allocation, its defaulting), EndpointSlices written as
// kube-controller-manager writes them (controller-slices.ts), our proxy on a tier node, and real
// packets from an off-cluster client and from pods (traffic-node.ts). Each case says which pods
// answered and what source address they saw. The restart, the namespace opt-out and issue 36's
// claimed address are in traffic-lifecycle.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, answers, eventually, sourcesSeen } from '../traffic/harness';
import { CLIENT_IP, NODE_POD_SIDE_IP } from '../helpers/topology';
import { createControllerSlice, createService, updateControllerSlice, type PodEndpoint } from './controller-slices';
import { tier } from './harness';
import { getJson, kubectl } from './kubectl';
import { tally } from '../helpers/probe-tally';
import { remoteNodeObject, ruleset, SERVICE_CIDR, syncs, trafficNode, ZONE, type TrafficNode } from './traffic-node';
import { waitFor } from './traffic-probes';

const ALL = ['pod0', 'pod1', 'pod2'];
const TCP_UDP = [
  { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
  { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const escape = (s: string) => s.replace(/\./g, '\\.');

function inServiceCidr(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number);
  return SERVICE_CIDR === '10.96.0.0/16' && a === 10 && b === 96;
}

test('Service traffic through our proxy, objects from the real kube-apiserver', async (t) => {
  const tt = tier(t);
  const [ns] = tt.namespaces(1);
  const tn: TrafficNode = await trafficNode(tt, 3);
  const remote = `${tn.node.name}-b`;
  remoteNodeObject(tt, remote, '10.100.255.254');
  const pods = tn.topo.pods;
  /** pod i as the controller lists it, on this node unless `onRemote`. */
  const ep = (i: number, o: Partial<PodEndpoint> & { onRemote?: boolean } = {}): PodEndpoint =>
    ({ pod: `${pods[i].name}-x7k2p`, ip: pods[i].ip, nodeName: o.onRemote ? remote : tn.node.name, zone: o.onRemote ? 'zone-b' : ZONE, ...o });
  const probe = tn.topo.probe.bind(tn.topo);

  await t.test('ClusterIP over TCP and UDP: every pod answers; off-cluster clients are masqueraded, pods are not', async () => {
    const svc = createService(ns, 'web', { selector: { app: 'web' }, ports: TCP_UDP });
    assert.ok(inServiceCidr(svc.spec.clusterIP), `ClusterIP ${svc.spec.clusterIP} allocated from ${SERVICE_CIDR}`);
    createControllerSlice(svc, [ep(0), ep(1), ep(2)]);
    const ip = svc.spec.clusterIP;
    await waitFor(tn, 'tcp', ip, 80);
    await waitFor(tn, 'udp', ip, 53);
    const fromClient = [...probe('tcp', ip, 80, 60), ...probe('udp', ip, 53, 60)];
    assert.deepEqual([...answeredBy(fromClient)].sort(), ALL);
    assert.equal(answers(fromClient).length, 120, `every request answered: ${fromClient.filter((l) => l.startsWith('ERR')).join(', ')}`);
    assert.deepEqual([...sourcesSeen(fromClient)], [NODE_POD_SIDE_IP], 'an off-cluster client is masqueraded');
    const pod1 = pods[1];
    const fromPod = probe('tcp', ip, 80, 60, { from: pod1.ns });
    assert.deepEqual([...answeredBy(fromPod)].sort(), ALL);
    // pod1 reaching itself through the Service is masqueraded (hairpin); the others see pod1's own address.
    assert.deepEqual([...sourcesSeen(fromPod.filter((l) => !l.startsWith('pod1 ')))], [pod1.ip]);
  });

  await t.test('NodePort allocated by the API server, on the node\'s InternalIP, unnamed port: every pod, client masqueraded', async () => {
    const svc = createService(ns, 'np', { type: 'NodePort', selector: { app: 'np' }, ports: [{ port: 80, targetPort: 8080 }] });
    const nodePort: number = svc.spec.ports[0].nodePort;
    assert.ok(nodePort >= 30000 && nodePort <= 32767, `nodePort ${nodePort} in the default range`);
    assert.equal(svc.spec.externalTrafficPolicy, 'Cluster', 'the API server defaults the policy');
    const slice = createControllerSlice(svc, [ep(0), ep(1), ep(2)]);
    assert.equal(slice.ports[0].name, '', 'the controller names an unnamed Service port ""');
    await waitFor(tn, 'tcp', tn.node.ip, nodePort);
    const lines = probe('tcp', tn.node.ip, nodePort, 60);
    assert.deepEqual([...answeredBy(lines)].sort(), ALL);
    assert.equal(answers(lines).length, 60);
    assert.deepEqual([...sourcesSeen(lines)], [NODE_POD_SIDE_IP]);
  });

  await t.test('externalTrafficPolicy Local: only the local pod answers, with the client\'s address; a node without local endpoints drops', async () => {
    // A LoadBalancer (no cloud provider fills its status): only then does the API server allocate a healthCheckNodePort.
    const spec = { type: 'LoadBalancer', externalTrafficPolicy: 'Local', selector: { app: 'local' }, ports: TCP_UDP };
    const svc = createService(ns, 'local', spec);
    assert.ok(svc.spec.healthCheckNodePort > 0, 'the API server allocates a healthCheckNodePort');
    createControllerSlice(svc, [ep(0), ep(1, { onRemote: true }), ep(2, { onRemote: true })]);
    const [tcpPort, udpPort] = svc.spec.ports.map((p: any) => p.nodePort as number);
    await waitFor(tn, 'tcp', tn.node.ip, tcpPort);
    const lines = [...probe('tcp', tn.node.ip, tcpPort, 30), ...probe('udp', tn.node.ip, udpPort, 30)];
    assert.deepEqual(lines, Array(60).fill(`pod0 ${CLIENT_IP}`));
    // The ClusterIP keeps the Cluster policy: every endpoint, wherever it runs.
    assert.deepEqual([...answeredBy(probe('tcp', svc.spec.clusterIP, 80, 60))].sort(), ALL);

    // The same Service with its endpoints all on the other node: this node has none of its own.
    const none = createService(ns, 'local-none', { ...spec, selector: { app: 'local-none' } });
    createControllerSlice(none, [ep(1, { onRemote: true }), ep(2, { onRemote: true })]);
    const [noneTcp, noneUdp] = none.spec.ports.map((p: any) => p.nodePort as number);
    await waitFor(tn, 'tcp', none.spec.clusterIP, 80);
    const dropSet = new RegExp(`set no-local-endpoint-nodeports \\{[^}]*elements = \\{[^}]*tcp \\. ${noneTcp}\\b`);
    await eventually(() => dropSet.test(ruleset(tn)), `NodePort ${noneTcp} in no-local-endpoint-nodeports`);
    // Dropped, not rejected: a client retries another node instead of failing.
    assert.deepEqual(probe('tcp', tn.node.ip, noneTcp, 2, { timeoutMs: 700 }), ['ERR TIMEOUT', 'ERR TIMEOUT']);
    assert.deepEqual(probe('udp', tn.node.ip, noneUdp, 2, { timeoutMs: 700 }), ['ERR TIMEOUT', 'ERR TIMEOUT']);
    assert.deepEqual([...answeredBy(probe('tcp', none.spec.clusterIP, 80, 40))].sort(), ['pod1', 'pod2']);
    // The health check node port tells a load balancer which node to use (upstream's JSON).
    const health = (s: any) => tn.topo.client.exec('curl', ['-s', '-m', '3', '-w', ' %{http_code}', `http://${tn.node.ip}:${s.spec.healthCheckNodePort}/`]);
    assert.match(health(svc), /"localEndpoints": ?1.* 200$/s);
    assert.match(health(none), /"localEndpoints": ?0.* 503$/s);
  });

  await t.test('ClientIP session affinity: each client sticks to one pod', async () => {
    const svc = createService(ns, 'sticky', { selector: { app: 'sticky' }, sessionAffinity: 'ClientIP', ports: TCP_UDP });
    assert.equal(svc.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds, 10800, 'the API server defaults the timeout');
    createControllerSlice(svc, [ep(0), ep(1), ep(2)]);
    const ip = svc.spec.clusterIP;
    await waitFor(tn, 'tcp', ip, 80);
    tn.topo.addClientAddress('198.18.0.3');
    for (const sourceAddress of [CLIENT_IP, '198.18.0.3']) {
      for (const [proto, port] of [['tcp', 80], ['udp', 53]] as const) {
        const lines = probe(proto, ip, port, 30, { sourceAddress });
        assert.equal(answers(lines).length, 30, `${proto} from ${sourceAddress}: ${lines.join(', ')}`);
        assert.equal(answeredBy(lines).size, 1, `${proto} from ${sourceAddress} went to ${[...answeredBy(lines)]}`);
      }
    }
  });

  await t.test('no endpoints, or none ready: TCP refused and UDP answered by ICMP', async () => {
    const svc = createService(ns, 'empty', { selector: { app: 'empty' }, ports: TCP_UDP });
    const ip = svc.spec.clusterIP;
    // The controller writes a slice with no endpoints for a Service whose selector matches no pod.
    let slice = createControllerSlice(svc, []);
    await eventually(() => new RegExp(`${ip.replace(/\./g, '\\.')} \\. tcp \\. 80`).test(ruleset(tn)), `${ip} in the no-endpoint set`);
    assert.deepEqual(probe('tcp', ip, 80, 3), Array(3).fill('ERR ECONNREFUSED'));
    assert.deepEqual(probe('udp', ip, 53, 3), Array(3).fill('ERR ECONNREFUSED'));
    // A pod that exists but is not Ready: ready and serving false. Still nothing to serve.
    const before = syncs(tn);
    slice = updateControllerSlice(svc, slice, [ep(0, { ready: false })]);
    await eventually(() => syncs(tn) > before, 'a sync after the not-ready endpoint');
    assert.deepEqual(probe('tcp', ip, 80, 3), Array(3).fill('ERR ECONNREFUSED'));
    // Ready: served.
    updateControllerSlice(svc, slice, [ep(0)]);
    assert.equal(await waitFor(tn, 'tcp', ip, 80), `pod0 ${NODE_POD_SIDE_IP}`);
  });
  await t.test('a rollout as the controller writes it: a terminating pod still serving is used only while no pod is ready, and not once it stops serving', async () => {
    const svc = createService(ns, 'roll', { selector: { app: 'roll' }, ports: TCP_UDP });
    const ip = svc.spec.clusterIP;
    let slice = createControllerSlice(svc, [ep(0), ep(1)]);
    await waitFor(tn, 'tcp', ip, 80);
    const step = async (endpoints: PodEndpoint[], want: string[], what: string) => {
      slice = updateControllerSlice(svc, slice, endpoints);
      const got = await eventually(() => {
        const lines = probe('tcp', ip, 80, 30, { timeoutMs: 700 });
        const who = [...answeredBy(lines)].sort();
        return JSON.stringify(who) === JSON.stringify(want) && answers(lines).length === 30 ? lines : undefined;
      }, () => `${what}: answered by ${want.join(', ')} only`, 15_000);
      assert.deepEqual([...answeredBy(probe('udp', ip, 53, 30))].sort(), want, `${what} (UDP)`);
      return got;
    };
    // pod1 is deleted: terminating, still serving (ready false, serving true). pod0 is ready: pod0 alone.
    await step([ep(0), ep(1, { terminating: true })], ['pod0'], 'one pod ready, one terminating');
    // pod0 is deleted too: no pod is ready, so both terminating pods serve (KEP-1669, not a reject).
    await step([ep(0, { terminating: true }), ep(1, { terminating: true })], ['pod0', 'pod1'], 'every pod terminating and serving');
    // pod0's readiness probe fails while it terminates: serving false, not used.
    await step([ep(0, { terminating: true, ready: false }), ep(1, { terminating: true })], ['pod1'], 'pod0 terminating and no longer serving');
    // Neither serves: rejected, as a Service without endpoints.
    slice = updateControllerSlice(svc, slice, [ep(0, { terminating: true, ready: false }), ep(1, { terminating: true, ready: false })]);
    await eventually(() => probe('tcp', ip, 80, 1, { timeoutMs: 700 })[0] === 'ERR ECONNREFUSED', 'refused once no pod serves');
    assert.deepEqual(probe('udp', ip, 53, 3), Array(3).fill('ERR ECONNREFUSED'));
  });

  await t.test('NodePort to ClusterIP and back with kubectl: the API server releases the port and our rules drop it; the new one answers', async () => {
    const svc = createService(ns, 'flip', { type: 'NodePort', selector: { app: 'flip' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] });
    const first: number = svc.spec.ports[0].nodePort;
    createControllerSlice(svc, [ep(0), ep(1), ep(2)]);
    await waitFor(tn, 'tcp', tn.node.ip, first);
    const hasPort = (port: number) => new RegExp(`\\btcp \\. ${port}\\b`).test(ruleset(tn));
    assert.ok(hasPort(first), `nodePort ${first} in the ruleset`);

    kubectl(['patch', 'service', 'flip', '-n', ns, '--type=merge', '-p', '{"spec":{"type":"ClusterIP"}}']);
    const asClusterIP = getJson(['service', 'flip', '-n', ns]);
    assert.equal(asClusterIP.spec.ports[0].nodePort, undefined, 'the API server cleared the nodePort with the type');
    await eventually(() => !hasPort(first), `nodePort ${first} out of the ruleset`);
    assert.deepEqual(probe('tcp', tn.node.ip, first, 3, { timeoutMs: 700 }), Array(3).fill('ERR ECONNREFUSED'), 'the old NodePort refused');
    assert.deepEqual([...answeredBy(probe('tcp', svc.spec.clusterIP, 80, 40))].sort(), ALL, 'the ClusterIP kept serving');

    kubectl(['patch', 'service', 'flip', '-n', ns, '--type=merge', '-p', '{"spec":{"type":"NodePort"}}']);
    const again = getJson(['service', 'flip', '-n', ns]);
    const second: number = again.spec.ports[0].nodePort;
    assert.ok(second >= 30000 && second <= 32767, `a nodePort allocated again: ${second}`);
    assert.equal(again.spec.clusterIP, svc.spec.clusterIP, 'the ClusterIP kept');
    await waitFor(tn, 'tcp', tn.node.ip, second);
    assert.deepEqual([...answeredBy(probe('tcp', tn.node.ip, second, 40))].sort(), ALL);
    if (second !== first) assert.ok(!hasPort(first), `nodePort ${first} stays out of the ruleset`);
    t.diagnostic(`nodePort ${first}, then none, then ${second}`);
  });

  await t.test('deleted and created again under the same name (kubectl replace --force): the new ClusterIP answers; the old one no longer does, not even for a UDP flow that keeps its source port', async () => {
    const manifest = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'again', namespace: ns }, spec: { selector: { app: 'again' }, ports: TCP_UDP } };
    const old = createService(ns, 'again', manifest.spec);
    const oldSlice = createControllerSlice(old, [ep(0), ep(1)]);
    const oldIP: string = old.spec.clusterIP;
    await waitFor(tn, 'udp', oldIP, 53);
    // One UDP flow (one source port: one conntrack entry, DNATed to one pod) kept going across the change.
    const flow = tn.topo.probeUntilStopped('udp', oldIP, 53, { sourcePort: 41053, timeoutMs: 400 });
    let lines: string[] = [];
    let now: any;
    try {
      await sleep(1000);
      kubectl(['replace', '--force', '-f', '-'], { input: JSON.stringify(manifest) });
      // The garbage collector deletes the slice the old Service owned; the controller writes the new one's.
      kubectl(['delete', 'endpointslice', oldSlice.metadata.name, '-n', ns]);
      now = getJson(['service', 'again', '-n', ns]);
      assert.notEqual(now.metadata.uid, old.metadata.uid, 'a new UID');
      assert.notEqual(now.spec.clusterIP, oldIP, 'a new ClusterIP');
      createControllerSlice(now, [ep(2)]);
      assert.match(await waitFor(tn, 'udp', now.spec.clusterIP, 53), /^pod2 /);
      await eventually(() => !new RegExp(`\\b${escape(oldIP)}\\b`).test(ruleset(tn)), `${oldIP} out of the ruleset`);
      await sleep(1500); // a few more tries of the flow (400 ms each when unanswered)
    } finally {
      lines = await flow.stop();
    }
    const answered = answers(lines);
    assert.ok(answered.length >= 2 && answered.every((l) => /^pod[01] /.test(l)), `the flow answered by the old pods first: ${JSON.stringify(tally(lines))}`);
    // Once the old ClusterIP is out of the rules, nothing answers the flow: its conntrack entry went with it.
    assert.ok(lines.slice(-2).every((l) => l.startsWith('ERR')), `the flow's last tries answered: ${lines.slice(-6).join(', ')}`);
    assert.deepEqual(answers(probe('tcp', oldIP, 80, 2, { timeoutMs: 700 })), [], 'the old ClusterIP over TCP');
    assert.deepEqual(tally(probe('tcp', now.spec.clusterIP, 80, 20)), { pod2: 20 });
    t.diagnostic(`old ${oldIP}, new ${now.spec.clusterIP}; the flow: ${JSON.stringify(tally(lines))}`);
  });
});
