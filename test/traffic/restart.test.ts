// A proxy restart: the kernel keeps serving while no proxy runs, the new proxy adopts what it finds
// without a gap in traffic, and its later partial syncs work on the adopted ruleset.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, answers, applied, Cluster, eventually, ruleset, startCluster, waitForAnswer } from './harness';
import { endpointSlice, service, type PortSpec } from './fixtures';

describe('proxy restart through the whole proxy', () => {
  let c: Cluster;
  before(async () => { c = await startCluster({ pods: 3 }); });
  after(async () => { await c?.stop(); });

  it('keeps TCP and UDP traffic flowing across a restart, then applies changes on the adopted ruleset', async () => {
    const ports: PortSpec[] = [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }];
    const slice = (n: number) => endpointSlice('web', 'web-1', { ports, endpoints: c.topo.pods.slice(0, n).map((p) => ({ ip: p.ip })) });
    c.api.create('services', service('web', { clusterIP: '100.100.5.10', ports }));
    c.api.create('endpointslices', slice(3));
    await waitForAnswer(c, 'tcp', '100.100.5.10', 80);
    await waitForAnswer(c, 'udp', '100.100.5.10', 53);

    const tcp = c.topo.probeUntilStopped('tcp', '100.100.5.10', 80);
    const udp = c.topo.probeUntilStopped('udp', '100.100.5.10', 53);
    await c.restartProxy();
    await eventually(() => c.proxy.watcher.status().synced, 'the new proxy to list Services and EndpointSlices');
    await applied(c);
    c.api.update('endpointslices', slice(2));
    await eventually(async () => { await applied(c); return !/100\.96\.1\.4\b/.test(ruleset(c)); }, 'pod2 to leave the ruleset');
    const lines = [...await tcp.stop(), ...await udp.stop()];
    if (process.env.KPN_TEST_LOG) console.error(`${lines.length} requests across the restart`);

    assert.ok(lines.length > 2, `only ${lines.length} requests were sent across the restart`);
    assert.deepEqual(lines.filter((l) => l.startsWith('ERR')), [], 'requests failed across the restart');
    assert.equal(answers(lines).length, lines.length);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.5.10', 80, 40))].sort(), ['pod0', 'pod1']);
    assert.deepEqual([...answeredBy(c.topo.probe('udp', '100.100.5.10', 53, 40))].sort(), ['pod0', 'pod1']);
  });

  it('deletes, at start-up, UDP flows to an endpoint removed while no proxy ran, and no other flow', async () => {
    const ports: PortSpec[] = [{ name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }];
    const pods = c.topo.pods;
    c.api.create('services', service('dns', { clusterIP: '100.100.5.53', ports }));
    c.api.create('endpointslices', endpointSlice('dns', 'dns-1', { ports, endpoints: pods.map((p) => ({ ip: p.ip })) }));
    await waitForAnswer(c, 'udp', '100.100.5.53', 53);
    // Long UDP timeouts in the node: no flow may expire on its own while the test runs, however slow the machine.
    c.topo.node.exec('sysctl', ['-qw', 'net.netfilter.nf_conntrack_udp_timeout=300', 'net.netfilter.nf_conntrack_udp_timeout_stream=300']);
    // Senders that keep their source port (as resolvers do), one pinned to each pod.
    const pinned = new Map<string, number>();
    for (let sport = 40000; pinned.size < pods.length && sport < 40200; sport++) {
      const who = c.topo.probe('udp', '100.100.5.53', 53, 1, { sourcePort: sport })[0].split(' ')[0];
      if (!pinned.has(who)) pinned.set(who, sport);
    }
    assert.deepEqual([...pinned.keys()].sort(), ['pod0', 'pod1', 'pod2']);
    // conntrack's id of each pinned flow: a flow deleted and made again gets a new one.
    const flowId = (sport: number): string => /id=(\d+)/.exec(c.topo.node.exec('conntrack', ['-L', '-p', 'udp', '--sport', String(sport), '-o', 'id']))?.[1] ?? 'none';
    const idsBefore = new Map([...pinned].map(([pod, sport]) => [pod, flowId(sport)]));
    await c.restartProxy(() => {
      c.api.update('endpointslices', endpointSlice('dns', 'dns-1', { ports, endpoints: pods.slice(1).map((p) => ({ ip: p.ip })) }));
    });
    await eventually(() => c.proxy.watcher.status().synced, 'the new proxy to list');
    await applied(c);
    await eventually(() => flowId(pinned.get('pod0')!) === 'none', 'the flow to pod0, gone while no proxy ran, to be deleted', 30_000);
    assert.deepEqual(['pod1', 'pod2'].map((p) => flowId(pinned.get(p)!)), ['pod1', 'pod2'].map((p) => idsBefore.get(p)), 'the flows to pod1 and pod2 are the same flows');
    // pod0 still runs: only a new flow sends its sender elsewhere.
    assert.match(c.topo.probe('udp', '100.100.5.53', 53, 1, { sourcePort: pinned.get('pod0') })[0], /^pod[12] /);
    for (const p of ['pod1', 'pod2']) assert.match(c.topo.probe('udp', '100.100.5.53', 53, 1, { sourcePort: pinned.get(p) })[0], new RegExp(`^${p} `));
  });
});
