// ClusterIP Services through the whole proxy: load-balancing over TCP and UDP, IPv6, traffic from
// pods (source kept; hairpin masqueraded), ports a ClusterIP does not serve, and deleted Services.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, answers, Cluster, ruleset, sourcesSeen, startCluster, waitForAnswer, waitForError } from './harness';
import { endpointSlice, service } from './fixtures';
import { NODE_POD_SIDE_IP } from '../helpers/topology';

const ALL_PODS = ['pod0', 'pod1', 'pod2'];

describe('ClusterIP traffic through the whole proxy', () => {
  let c: Cluster;
  before(async () => { c = await startCluster({ pods: 3 }); });
  after(async () => { await c?.stop(); });

  it('spreads TCP connections over every endpoint', async () => {
    const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
    c.api.create('services', service('web', { clusterIP: '100.100.0.10', ports }));
    c.api.create('endpointslices', endpointSlice('web', 'web-1', {
      ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })),
    }));
    await waitForAnswer(c, 'tcp', '100.100.0.10', 80);
    const seen = answeredBy(c.topo.probe('tcp', '100.100.0.10', 80, 60));
    assert.deepEqual([...seen].sort(), ALL_PODS);
  });

  it('spreads UDP datagrams over every endpoint', async () => {
    const ports = [{ name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' as const }];
    c.api.create('services', service('dns', { clusterIP: '100.100.0.53', ports }));
    c.api.create('endpointslices', endpointSlice('dns', 'dns-1', {
      ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })),
    }));
    await waitForAnswer(c, 'udp', '100.100.0.53', 53);
    // Each probe is a new socket, so a new flow that is load-balanced on its own.
    const seen = answeredBy(c.topo.probe('udp', '100.100.0.53', 53, 60));
    assert.deepEqual([...seen].sort(), ALL_PODS);
  });

  it('masquerades client traffic to a ClusterIP (the client is not a local pod)', () => {
    const lines = c.topo.probe('tcp', '100.100.0.10', 80, 10);
    assert.equal(answers(lines).length, 10, lines.join('\n'));
    assert.deepEqual([...sourcesSeen(lines)], [NODE_POD_SIDE_IP]);
  });

  it('keeps the source of pod traffic and masquerades hairpin traffic back to the sender', async () => {
    const ports = [{ port: 80, targetPort: 8080 }];
    const [pod0, pod1] = c.topo.pods;
    c.api.create('services', service('only-pod0', { clusterIP: '100.100.0.11', ports }));
    c.api.create('endpointslices', endpointSlice('only-pod0', 'only-pod0-1', { ports, endpoints: [{ ip: pod0.ip }] }));
    await waitForAnswer(c, 'tcp', '100.100.0.11', 80);
    // pod1 -> pod0: an in-cluster source is left alone.
    assert.deepEqual(c.topo.probe('tcp', '100.100.0.11', 80, 3, { from: pod1.ns }), Array(3).fill(`pod0 ${pod1.ip}`));
    // pod0 -> itself through the Service: without masquerade its reply would never find the way back.
    assert.deepEqual(c.topo.probe('tcp', '100.100.0.11', 80, 3, { from: pod0.ns }), Array(3).fill(`pod0 ${NODE_POD_SIDE_IP}`));
    assert.deepEqual(c.topo.probe('udp', '100.100.0.11', 80, 1, { from: pod0.ns }), ['ERR ECONNREFUSED'],
      'a protocol the Service does not serve on its ClusterIP is rejected');
  });

  it('rejects TCP and UDP to a port the ClusterIP does not serve', () => {
    assert.deepEqual(c.topo.probe('tcp', '100.100.0.10', 81, 1), ['ERR ECONNREFUSED']);
    assert.deepEqual(c.topo.probe('udp', '100.100.0.10', 81, 1), ['ERR ECONNREFUSED']);
  });

  it('spreads IPv6 TCP and UDP over every endpoint of an IPv6 ClusterIP', async () => {
    const ports = [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' as const }];
    const vip = '2001:db8:100::10';
    c.api.create('services', service('web6', { clusterIP: vip, ports }));
    c.api.create('endpointslices', endpointSlice('web6', 'web6-1', {
      ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip6 })),
    }));
    await waitForAnswer(c, 'tcp', vip, 80);
    await waitForAnswer(c, 'udp', vip, 53);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', vip, 80, 60))].sort(), ALL_PODS);
    assert.deepEqual([...answeredBy(c.topo.probe('udp', vip, 53, 60))].sort(), ALL_PODS);
    assert.match(ruleset(c, 'ip6'), /2001:db8:100::10 \. tcp \. 80 \. 0 : /);
  });

  it('serves both ClusterIPs of a dual-stack Service from its two EndpointSlices', async () => {
    const ports = [{ port: 80, targetPort: 8080 }];
    c.api.create('services', service('dual', {
      clusterIP: '100.100.0.20', clusterIPs: ['100.100.0.20', '2001:db8:100::20'], ipFamilies: ['IPv4', 'IPv6'],
      ipFamilyPolicy: 'RequireDualStack', ports,
    }));
    c.api.create('endpointslices', endpointSlice('dual', 'dual-v4', { ports, endpoints: c.topo.pods.slice(0, 2).map((p) => ({ ip: p.ip })) }));
    c.api.create('endpointslices', endpointSlice('dual', 'dual-v6', { ports, endpoints: c.topo.pods.slice(1).map((p) => ({ ip: p.ip6 })) }));
    await waitForAnswer(c, 'tcp', '100.100.0.20', 80);
    await waitForAnswer(c, 'tcp', '2001:db8:100::20', 80);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.0.20', 80, 40))].sort(), ['pod0', 'pod1']);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '2001:db8:100::20', 80, 40))].sort(), ['pod1', 'pod2']);
  });

  it('forgets a deleted Service: its ClusterIP leaves the ruleset and is routed like any other address', async () => {
    const ports = [{ port: 80, targetPort: 8080 }];
    const svc = service('doomed', { clusterIP: '100.100.0.12', ports });
    c.api.create('services', svc);
    c.api.create('endpointslices', endpointSlice('doomed', 'doomed-1', { ports, endpoints: [{ ip: c.topo.pods[2].ip }] }));
    assert.equal(await waitForAnswer(c, 'tcp', '100.100.0.12', 80), `pod2 ${NODE_POD_SIDE_IP}`);
    c.api.delete('services', svc);
    // The proxier is given no service CIDR, so there is no "drop unallocated ClusterIPs" rule: the
    // address is no longer in @cluster-ips (which would reject) and goes out the node's default route.
    await waitForError(c, 'tcp', '100.100.0.12', 80, 'TIMEOUT', { timeoutMs: 500 });
    assert.doesNotMatch(ruleset(c), /100\.100\.0\.12/);
    assert.deepEqual(c.topo.probe('udp', '100.100.0.12', 80, 1, { timeoutMs: 500 }), ['ERR TIMEOUT']);
  });
});
