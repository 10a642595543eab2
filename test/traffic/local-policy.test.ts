// Local traffic policies: external traffic reaches only this node's endpoints with the client's
// own source address, and is dropped (not rejected) when this node has none; internalTrafficPolicy
// Local does the same for the ClusterIP. pod1 and pod2 play endpoints of another node (their slice
// entries say node-b) though they are reachable from here: only the rules keep traffic off them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, Cluster, ruleset, sourcesSeen, startCluster, waitForAnswer, waitForError } from './harness';
import { endpointSlice, OTHER_NODE, service, type PortSpec, type ServiceSpec } from './fixtures';
import { CLIENT_IP, NODE_IP, NODE_POD_SIDE_IP } from '../helpers/topology';

describe('Local traffic policies through the whole proxy', () => {
  let c: Cluster;
  before(async () => { c = await startCluster({ pods: 3 }); });
  after(async () => { await c?.stop(); });

  /** pod0 on this node unless `noneLocal`; pod1 and pod2 always on node-b. */
  function slice(name: string, ports: PortSpec[], noneLocal = false): any {
    return endpointSlice(name, `${name}-1`, {
      ports,
      endpoints: c.topo.pods.map((p, i) => ({ ip: p.ip, nodeName: i === 0 && !noneLocal ? undefined : OTHER_NODE })),
    });
  }

  const ports: PortSpec[] = [
    { name: 'http', port: 80, targetPort: 8080, nodePort: 31080 },
    { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP', nodePort: 31053 },
  ];
  const lb: ServiceSpec = {
    type: 'LoadBalancer', clusterIP: '100.100.2.10', ports, loadBalancerIPs: ['203.0.113.50'],
    externalTrafficPolicy: 'Local',
  };

  it('sends NodePort and LoadBalancer traffic only to local endpoints, keeping the client IP', async () => {
    c.api.create('services', service('local-lb', lb));
    c.api.create('endpointslices', slice('local-lb', ports));
    await waitForAnswer(c, 'tcp', NODE_IP, 31080);
    const lines = [
      ...c.topo.probe('tcp', NODE_IP, 31080, 30),
      ...c.topo.probe('udp', NODE_IP, 31053, 30),
      ...c.topo.probe('tcp', '203.0.113.50', 80, 30),
      ...c.topo.probe('udp', '203.0.113.50', 53, 30),
    ];
    assert.deepEqual(lines, Array(120).fill(`pod0 ${CLIENT_IP}`));
  });

  it('lets pods and the node itself reach every endpoint through the LoadBalancer IP and NodePort', () => {
    const pod1 = c.topo.pods[1];
    const fromPod = c.topo.probe('tcp', '203.0.113.50', 80, 60, { from: pod1.ns });
    assert.deepEqual([...answeredBy(fromPod)].sort(), ['pod0', 'pod1', 'pod2'], 'pod traffic is short-circuited to every endpoint');
    // Not masqueraded (the client is a local pod), except pod1 reaching itself (hairpin).
    assert.deepEqual([...sourcesSeen(fromPod.filter((l) => !l.startsWith('pod1 ')))], [pod1.ip]);
    const fromNode = c.topo.probe('tcp', NODE_IP, 31080, 60, { from: c.topo.node });
    assert.deepEqual([...answeredBy(fromNode)].sort(), ['pod0', 'pod1', 'pod2'], 'node traffic is short-circuited to every endpoint');
  });

  it('still spreads ClusterIP traffic over every endpoint (the internal policy is Cluster)', () => {
    const lines = c.topo.probe('tcp', '100.100.2.10', 80, 60);
    assert.deepEqual([...answeredBy(lines)].sort(), ['pod0', 'pod1', 'pod2']);
    assert.deepEqual([...sourcesSeen(lines)], [NODE_POD_SIDE_IP]);
  });

  it('drops external traffic (no reject) when no endpoint is local, while the ClusterIP keeps working', async () => {
    c.api.update('endpointslices', slice('local-lb', ports, true));
    await waitForError(c, 'tcp', NODE_IP, 31080, 'TIMEOUT', { timeoutMs: 500 });
    assert.deepEqual(c.topo.probe('udp', NODE_IP, 31053, 1, { timeoutMs: 500 }), ['ERR TIMEOUT']);
    assert.deepEqual(c.topo.probe('tcp', '203.0.113.50', 80, 1, { timeoutMs: 500 }), ['ERR TIMEOUT']);
    assert.deepEqual(c.topo.probe('udp', '203.0.113.50', 53, 1, { timeoutMs: 500 }), ['ERR TIMEOUT']);
    // Unprogrammed, the LB IP would time out too (it is routed away): the rule must say drop.
    const rules = ruleset(c);
    assert.match(rules, /set no-local-endpoint-services \{[^}]*elements = \{[^}]*203\.0\.113\.50 \. tcp \. 80/, rules);
    assert.match(rules, /set no-local-endpoint-nodeports \{[^}]*elements = \{[^}]*tcp \. 31080/, rules);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.2.10', 80, 30))].sort(), ['pod0', 'pod1', 'pod2']);
    // Pods are not external clients: their traffic to the LB IP or NodePort short-circuits to every endpoint.
    const fromPod = { from: c.topo.pods[1].ns };
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '203.0.113.50', 80, 30, fromPod))].sort(), ['pod0', 'pod1', 'pod2']);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', NODE_IP, 31080, 30, fromPod))].sort(), ['pod0', 'pod1', 'pod2']);
    // Nor is the node itself (upstream's "short-circuit local traffic"): the drop comes after the
    // dispatch, as upstream's comes after DNAT, so the node's own connection to the LB IP is DNATed.
    const fromNode = { from: c.topo.node };
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '203.0.113.50', 80, 30, fromNode))].sort(), ['pod0', 'pod1', 'pod2']);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', NODE_IP, 31080, 30, fromNode))].sort(), ['pod0', 'pod1', 'pod2']);

    c.api.update('endpointslices', slice('local-lb', ports));
    assert.equal(await waitForAnswer(c, 'tcp', NODE_IP, 31080), `pod0 ${CLIENT_IP}`);
  });

  it('keeps ClusterIP traffic on local endpoints with internalTrafficPolicy Local, and drops it when there are none', async () => {
    const cip: PortSpec[] = [{ port: 80, targetPort: 8080 }];
    const pod2 = c.topo.pods[2];
    c.api.create('services', service('internal-local', { clusterIP: '100.100.2.11', ports: cip, internalTrafficPolicy: 'Local' }));
    c.api.create('endpointslices', slice('internal-local', cip));
    await waitForAnswer(c, 'tcp', '100.100.2.11', 80, { from: pod2.ns });
    assert.deepEqual(c.topo.probe('tcp', '100.100.2.11', 80, 30, { from: pod2.ns }), Array(30).fill(`pod0 ${pod2.ip}`));

    c.api.update('endpointslices', slice('internal-local', cip, true));
    await waitForError(c, 'tcp', '100.100.2.11', 80, 'TIMEOUT', { from: pod2.ns, timeoutMs: 500 });
  });
});
