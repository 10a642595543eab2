// The nftables traffic end to end against the real kube-apiserver, over time (issue 29): the
// namespace opt-out label set and removed through the real API, a restart of our proxy under
// continuous traffic, and issue 36's claimed address: the real API server accepts an externalIPs
// entry equal to another Service's ClusterIP, and our proxy keeps that ClusterIP its owner's.
// Objects, slices and the node as in traffic.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, answers, eventually } from '../traffic/harness';
import { createControllerSlice, createService, updateControllerSlice, type PodEndpoint } from './controller-slices';
import { tier } from './harness';
import { getJson, kubectl } from './kubectl';
import { ruleset, syncs, trafficNode, ZONE, type TrafficNode } from './traffic-node';
import { waitFor } from './traffic-probes';
import { tally } from '../helpers/probe-tally';

const OPT_OUT = 'networking.k8s.io/kube-proxy';
const TCP_UDP = [
  { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' },
  { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' },
];

test('Services over time through our proxy, objects from the real kube-apiserver', async (t) => {
  const tt = tier(t);
  const [team, other, claims] = tt.namespaces(3);
  const tn: TrafficNode = await trafficNode(tt, 3);
  const pods = tn.topo.pods;
  const ep = (i: number): PodEndpoint => ({ pod: `${pods[i].name}-q8w4z`, ip: pods[i].ip, nodeName: tn.node.name, zone: ZONE });
  const probe = tn.topo.probe.bind(tn.topo);
  /** How many of one TCP and one UDP request to `ip` an endpoint answered. */
  const answered = (ip: string) => answers([...probe('tcp', ip, 80, 1, { timeoutMs: 500 }), ...probe('udp', ip, 53, 1, { timeoutMs: 500 })]).length;
  const inRules = (ip: string) => new RegExp(`\\b${ip.replace(/\./g, '\\.')}\\b`).test(ruleset(tn));

  await t.test('namespace opt-out: a labelled namespace\'s Services get no rules; removing the label brings them back at once', async () => {
    const web = createService(team, 'web', { selector: { app: 'web' }, ports: TCP_UDP });
    createControllerSlice(web, [ep(0)]);
    const kept = createService(other, 'web', { selector: { app: 'web' }, ports: TCP_UDP });
    createControllerSlice(kept, [ep(1)]);
    await waitFor(tn, 'tcp', web.spec.clusterIP, 80);
    await waitFor(tn, 'tcp', kept.spec.clusterIP, 80);

    kubectl(['label', 'namespace', team, `${OPT_OUT}=disabled`]);
    await eventually(() => !inRules(web.spec.clusterIP), `${web.spec.clusterIP} to leave the ruleset`);
    // A Service made while the label is on gets no rules either.
    const late = createService(team, 'late', { selector: { app: 'late' }, ports: TCP_UDP });
    createControllerSlice(late, [ep(2)]);
    const before = syncs(tn);
    // Something outside the namespace changes, so a sync runs after the late Service exists.
    const marker = createService(other, 'marker', { selector: { app: 'marker' }, ports: TCP_UDP });
    createControllerSlice(marker, [ep(2)]);
    await waitFor(tn, 'tcp', marker.spec.clusterIP, 80);
    assert.ok(syncs(tn) > before);
    assert.equal(inRules(web.spec.clusterIP) || inRules(late.spec.clusterIP), false, 'an opted-out Service has rules');
    assert.equal(answered(web.spec.clusterIP), 0, 'the opted-out Service still answers');
    assert.equal(answered(kept.spec.clusterIP), 2, 'a Service of another namespace stopped answering');

    // Removing the label: back with the sync that follows it, not at the 30 s periodic resync.
    const t0 = Date.now();
    kubectl(['label', 'namespace', team, `${OPT_OUT}-`]);
    await waitFor(tn, 'tcp', web.spec.clusterIP, 80, {}, 5_000);
    await waitFor(tn, 'tcp', late.spec.clusterIP, 80, {}, 5_000);
    t.diagnostic(`both Services answered ${Date.now() - t0} ms after the label was removed`);
    assert.deepEqual(tally(probe('tcp', late.spec.clusterIP, 80, 5)), { pod2: 5 });
    assert.deepEqual(tally(probe('udp', web.spec.clusterIP, 53, 5)), { pod0: 5 });
  });

  await t.test('a restart of our proxy under continuous TCP and UDP traffic fails no request, and the new proxy applies changes', async () => {
    const svc = createService(other, 'steady', { selector: { app: 'steady' }, ports: TCP_UDP });
    const slice = createControllerSlice(svc, [ep(0), ep(1), ep(2)]);
    const ip = svc.spec.clusterIP;
    await waitFor(tn, 'tcp', ip, 80);
    await waitFor(tn, 'udp', ip, 53);
    const tcp = tn.topo.probeUntilStopped('tcp', ip, 80);
    const udp = tn.topo.probeUntilStopped('udp', ip, 53);
    let lines: string[];
    try {
      const firstProxy = tn.proxy;
      await tn.restart();
      assert.equal(await firstProxy.exited, 0, 'the first proxy exited cleanly on SIGTERM');
      updateControllerSlice(svc, slice, [ep(0), ep(1)]);
      // pod2 serves other Services of this test: its leaving is seen in the answers, not in the ruleset.
      await eventually(() => !answeredBy(probe('tcp', ip, 80, 20)).has('pod2'), 'pod2 to stop answering');
    } finally {
      lines = [...await tcp.stop(), ...await udp.stop()];
    }
    t.diagnostic(`${lines.length} requests across the restart`);
    assert.ok(lines.length > 20, `only ${lines.length} requests were sent across the restart`);
    assert.deepEqual(lines.filter((l) => l.startsWith('ERR')), [], 'requests failed across the restart');
    assert.deepEqual([...answeredBy(probe('tcp', ip, 80, 40))].sort(), ['pod0', 'pod1']);
    assert.deepEqual([...answeredBy(probe('udp', ip, 53, 40))].sort(), ['pod0', 'pod1']);
  });

  await t.test('issue 36: an externalIP equal to another Service\'s ClusterIP, accepted by the API server, never takes its traffic', async () => {
    const v = createService(claims, 'victim', { selector: { app: 'victim' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] });
    const vSlice = createControllerSlice(v, [ep(0)]);
    const x: string = v.spec.clusterIP;
    await waitFor(tn, 'tcp', x, 80);
    // The CVE-2020-8554 kind of object: without the DenyServiceExternalIPs admission plugin the API accepts it.
    const c = createService(claims, 'claimant', { selector: { app: 'claimant' }, externalIPs: [x], ports: [{ name: 'http', port: 80, targetPort: 8080 }] });
    assert.deepEqual(c.spec.externalIPs, [x], 'the API server stored the claim');
    createControllerSlice(c, [ep(1)]);
    await waitFor(tn, 'tcp', c.spec.clusterIP, 80);
    assert.deepEqual(tally(probe('tcp', x, 80, 30)), { pod0: 30 }, 'V\'s ClusterIP once C claimed it');

    // V's rollout: its endpoint moves. C's pod must not take X:80.
    updateControllerSlice(v, vSlice, [ep(2)]);
    await waitFor(tn, 'tcp', x, 80).then(() => eventually(() => probe('tcp', x, 80, 1)[0].startsWith('pod2 '), 'V\'s new pod to answer on X:80'));
    assert.deepEqual(tally(probe('tcp', x, 80, 40)), { pod2: 40 }, 'V\'s clients after V\'s rollout');
    assert.deepEqual(tally(probe('tcp', c.spec.clusterIP, 80, 20)), { pod1: 20 }, 'C\'s own ClusterIP');

    const event = await eventually(() => getJson(['events', '-n', claims, '--field-selector', 'involvedObject.name=claimant,reason=AddressClaimRefused']).items[0],
      'an AddressClaimRefused event on the claimant in kubectl get events');
    assert.equal(event.type, 'Warning');
    assert.equal(event.involvedObject.kind, 'Service');
    assert.match(event.message, new RegExp(`${x.replace(/\./g, '\\.')}.*${claims}/victim|${claims}/victim.*${x.replace(/\./g, '\\.')}`));
    t.diagnostic(`event: ${event.message}`);
    // `kubectl describe service` lists the events whose involvedObject names the Service by its UID too
    // (kubectl's events.Search field selector): an event with any other UID is invisible there.
    assert.equal(event.involvedObject.uid, c.metadata.uid, 'the event names the claimant by its UID');
    const described = kubectl(['describe', 'service', 'claimant', '-n', claims]);
    assert.match(described, /Warning\s+AddressClaimRefused/, `kubectl describe service shows the event:\n${described}`);
  });
});
