// How the set of endpoints shapes traffic: none (reject), only terminating ones (fallback), session
// affinity, and UDP flows following an endpoint change (stale conntrack entries deleted).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, Cluster, eventually, startCluster, waitForAnswer, waitForError } from './harness';
import { endpointSlice, service, type EndpointSpec, type PortSpec } from './fixtures';
import { NODE_IP } from '../helpers/topology';

describe('endpoint changes through the whole proxy', () => {
  let c: Cluster;
  before(async () => { c = await startCluster({ pods: 3 }); });
  after(async () => { await c?.stop(); });

  const tcp: PortSpec[] = [{ port: 80, targetPort: 8080 }];

  async function deletedFlows(): Promise<number> {
    const { values } = await c.proxy.metrics.conntrackReconcilerDeletedEntriesTotal.get();
    return values.reduce((sum, v) => sum + v.value, 0);
  }

  it('rejects TCP and UDP to a Service without endpoints, on its ClusterIP and its externalIP', async () => {
    const ports: PortSpec[] = [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }];
    c.api.create('services', service('empty', { clusterIP: '100.100.3.10', externalIPs: ['203.0.113.60'], ports }));
    c.api.create('endpointslices', endpointSlice('empty', 'empty-1', { ports, endpoints: [] }));
    await waitForError(c, 'tcp', '100.100.3.10', 80, 'ECONNREFUSED');
    assert.deepEqual(c.topo.probe('udp', '100.100.3.10', 53, 3), Array(3).fill('ERR ECONNREFUSED'));
    // Unprogrammed, the externalIP would be routed away and time out; rejected, it fails at once.
    assert.deepEqual(c.topo.probe('tcp', '203.0.113.60', 80, 3), Array(3).fill('ERR ECONNREFUSED'));
    assert.deepEqual(c.topo.probe('udp', '203.0.113.60', 53, 3), Array(3).fill('ERR ECONNREFUSED'));
  });

  it('falls back to serving terminating endpoints only while no endpoint is ready', async () => {
    const [pod0, pod1, pod2] = c.topo.pods;
    const terminating = (ip: string, serving: boolean): EndpointSpec => ({ ip, ready: false, serving, terminating: true });
    c.api.create('services', service('term', { clusterIP: '100.100.3.11', ports: tcp }));
    c.api.create('endpointslices', endpointSlice('term', 'term-1', {
      ports: tcp, endpoints: [terminating(pod0.ip, true), terminating(pod1.ip, true), terminating(pod2.ip, false)],
    }));
    await waitForAnswer(c, 'tcp', '100.100.3.11', 80);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.3.11', 80, 60))].sort(), ['pod0', 'pod1']);

    c.api.update('endpointslices', endpointSlice('term', 'term-1', {
      ports: tcp, endpoints: [terminating(pod0.ip, true), terminating(pod1.ip, true), { ip: pod2.ip }],
    }));
    await eventually(() => c.topo.probe('tcp', '100.100.3.11', 80, 1)[0].startsWith('pod2'), 'the ready endpoint to take over');
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.3.11', 80, 30))], ['pod2']);
  });

  it('keeps each client on one endpoint with ClientIP session affinity', async () => {
    c.api.create('services', service('sticky', { clusterIP: '100.100.3.12', ports: tcp, affinitySeconds: 600 }));
    c.api.create('endpointslices', endpointSlice('sticky', 'sticky-1', { ports: tcp, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })) }));
    await waitForAnswer(c, 'tcp', '100.100.3.12', 80);
    assert.equal(answeredBy(c.topo.probe('tcp', '100.100.3.12', 80, 30)).size, 1, 'the main client stuck to one endpoint');

    // Twelve more clients: each sticks, and they do not all land on one endpoint (3^-11 odds otherwise).
    const chosen = new Set<string>();
    for (let i = 10; i < 22; i++) {
      const sourceAddress = `198.18.0.${i}`;
      c.topo.addClientAddress(sourceAddress);
      const seen = answeredBy(c.topo.probe('tcp', '100.100.3.12', 80, 8, { sourceAddress }));
      assert.equal(seen.size, 1, `client ${sourceAddress} reached ${[...seen].join(', ')}`);
      chosen.add([...seen][0]);
    }
    assert.ok(chosen.size > 1, `every client landed on ${[...chosen].join(', ')}`);
  });

  it('keeps affinity across endpoint changes, and sends a client whose endpoint left elsewhere', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080, nodePort: 30112 }];
    const [pod0, pod1, pod2] = c.topo.pods;
    const slice = (pods: { ip: string }[]) => endpointSlice('sticky-move', 'sticky-move-1', { ports, endpoints: pods.map((p) => ({ ip: p.ip })) });
    c.api.create('services', service('sticky-move', { type: 'NodePort', clusterIP: '100.100.3.16', ports, affinitySeconds: 600 }));
    c.api.create('endpointslices', slice([pod0, pod1]));
    await waitForAnswer(c, 'tcp', '100.100.3.16', 80);
    // Clients until each endpoint has one, through the ClusterIP and the NodePort alike.
    const targets: Array<[string, number]> = [['100.100.3.16', 80], [NODE_IP, 30112]];
    const stuck = new Map<string, string>(); // `${client} ${target}` -> pod
    for (let i = 40; i < 70 && new Set(stuck.values()).size < 2; i++) {
      const sourceAddress = `198.18.0.${i}`;
      c.topo.addClientAddress(sourceAddress);
      for (const [host, port] of targets) {
        const seen = answeredBy(c.topo.probe('tcp', host, port, 4, { sourceAddress }));
        assert.equal(seen.size, 1, `client ${sourceAddress} to ${host}:${port} reached ${[...seen].join(', ')}`);
        stuck.set(`${sourceAddress} ${host} ${port}`, [...seen][0]);
      }
    }
    assert.deepEqual(new Set(stuck.values()), new Set(['pod0', 'pod1']), 'clients on both endpoints');
    const again = (id: string) => { const [src, host, port] = id.split(' '); return answeredBy(c.topo.probe('tcp', host, Number(port), 4, { sourceAddress: src })); };

    // A new endpoint moves nobody.
    c.api.update('endpointslices', slice([pod0, pod1, pod2]));
    await eventually(() => answeredBy(c.topo.probe('tcp', '100.100.3.16', 80, 30)).size >= 1, 'the proxy to sync');
    for (const [id, pod] of stuck) assert.deepEqual([...again(id)], [pod], `${id} kept ${pod}`);

    // pod0 leaves the Service (it still answers): its clients go elsewhere and stick there; pod1's stay.
    c.api.update('endpointslices', slice([pod1, pod2]));
    const moved = [...stuck].filter(([, pod]) => pod === 'pod0').map(([id]) => id);
    for (const id of moved) {
      await eventually(() => !again(id).has('pod0'), `${id} to leave pod0`);
      const now = again(id);
      assert.equal(now.size, 1, `${id} sticks after the move: ${[...now].join(', ')}`);
      assert.deepEqual([...again(id)], [...now], `${id} stays where it moved`);
    }
    for (const [id, pod] of stuck) if (pod !== 'pod0') assert.deepEqual([...again(id)], [pod], `${id} kept ${pod}`);
  });

  it('keeps UDP clients on one endpoint with ClientIP session affinity', async () => {
    const ports: PortSpec[] = [{ port: 53, targetPort: 8080, protocol: 'UDP' }];
    c.api.create('services', service('sticky-udp', { clusterIP: '100.100.3.15', ports, affinitySeconds: 600 }));
    c.api.create('endpointslices', endpointSlice('sticky-udp', 'sticky-udp-1', { ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })) }));
    await waitForAnswer(c, 'udp', '100.100.3.15', 53);
    // Every datagram comes from a new socket (a new source port, a new flow): only affinity keeps them together.
    assert.equal(answeredBy(c.topo.probe('udp', '100.100.3.15', 53, 30)).size, 1);
    c.topo.addClientAddress('198.18.0.30');
    assert.equal(answeredBy(c.topo.probe('udp', '100.100.3.15', 53, 10, { sourceAddress: '198.18.0.30' })).size, 1);
  });

  it('moves a UDP flow from one fixed source port to the new endpoint once the old one is removed', async () => {
    const ports: PortSpec[] = [{ port: 53, targetPort: 8080, protocol: 'UDP', nodePort: 30153 }];
    const [pod0, pod1] = c.topo.pods;
    const slice = (ip: string) => endpointSlice('flow', 'flow-1', { ports, endpoints: [{ ip }] });
    c.api.create('services', service('flow', { type: 'NodePort', clusterIP: '100.100.3.13', ports }));
    c.api.create('endpointslices', slice(pod0.ip));
    const targets: Array<[string, number, number]> = [['100.100.3.13', 53, 40053], [NODE_IP, 30153, 40153]];
    for (const [host, port, sourcePort] of targets) {
      assert.match(await waitForAnswer(c, 'udp', host, port, { sourcePort }), /^pod0 /);
      const flows = c.topo.node.exec('conntrack', ['-L', '-p', 'udp', '--sport', String(sourcePort)]);
      assert.match(flows, new RegExp(`src=${pod0.ip.replace(/\./g, '\\.')} `), 'the flow is tracked to pod0');
    }

    // Without the proxy deleting the flows, every probe below (same 5-tuple, refreshing the entry)
    // would keep reaching pod0, which is still alive.
    const deletedBefore = await deletedFlows();
    c.api.update('endpointslices', slice(pod1.ip));
    for (const [host, port, sourcePort] of targets) {
      await eventually(() => c.topo.probe('udp', host, port, 1, { sourcePort, timeoutMs: 500 })[0].startsWith('pod1 '),
        `the flow from port ${sourcePort} to ${host}:${port} to reach pod1`);
    }
    // The kernel deletes the flows before the proxy's promise for it settles and the counter moves.
    await eventually(async () => (await deletedFlows()) >= deletedBefore + 2, 'the proxy to count both deleted flows');
  });

  it('lets a UDP client that was rejected reach the Service once it has endpoints', async () => {
    const ports: PortSpec[] = [{ port: 53, targetPort: 8080, protocol: 'UDP' }];
    c.api.create('services', service('late', { clusterIP: '100.100.3.14', ports }));
    await waitForError(c, 'udp', '100.100.3.14', 53, 'ECONNREFUSED', { sourcePort: 40054 });
    c.api.create('endpointslices', endpointSlice('late', 'late-1', { ports, endpoints: [{ ip: c.topo.pods[2].ip }] }));
    assert.match(await waitForAnswer(c, 'udp', '100.100.3.14', 53, { sourcePort: 40054 }), /^pod2 /);
  });
});
