// Traffic from outside the cluster: NodePorts on the node IP, externalIPs, LoadBalancer ingress IPs
// (VIP served, Proxy not), masquerade under the Cluster policy, loadBalancerSourceRanges, and a
// Service changing type.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, answers, Cluster, eventually, ruleset, sourcesSeen, startCluster, waitForAnswer, waitForError } from './harness';
import { endpointSlice, service, type PortSpec, type ServiceSpec } from './fixtures';
import { CLIENT_IP, CLIENT_IP6, NODE_IP, NODE_POD_SIDE_IP } from '../helpers/topology';

const ALL_PODS = ['pod0', 'pod1', 'pod2'];

describe('external traffic through the whole proxy', () => {
  let c: Cluster;
  before(async () => { c = await startCluster({ pods: 3 }); });
  after(async () => { await c?.stop(); });

  /** A Service backed by every pod. */
  function serve(name: string, spec: ServiceSpec): void {
    c.api.create('services', service(name, spec));
    c.api.create('endpointslices', endpointSlice(name, `${name}-1`, {
      ports: spec.ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })),
    }));
  }

  it('serves a NodePort on the node IP over TCP and UDP, masquerading the client (Cluster policy)', async () => {
    const ports: PortSpec[] = [
      { name: 'http', port: 80, targetPort: 8080, nodePort: 30080 },
      { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP', nodePort: 30053 },
    ];
    serve('np', { type: 'NodePort', clusterIP: '100.100.1.10', ports });
    await waitForAnswer(c, 'tcp', NODE_IP, 30080);
    await waitForAnswer(c, 'udp', NODE_IP, 30053);
    const tcp = c.topo.probe('tcp', NODE_IP, 30080, 60);
    const udp = c.topo.probe('udp', NODE_IP, 30053, 60);
    assert.deepEqual([...answeredBy(tcp)].sort(), ALL_PODS);
    assert.deepEqual([...answeredBy(udp)].sort(), ALL_PODS);
    // Off-cluster traffic is masqueraded so the reply comes back through this node.
    assert.deepEqual([...sourcesSeen([...tcp, ...udp])], [NODE_POD_SIDE_IP]);
  });

  it('serves externalIPs', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }];
    serve('ext', { clusterIP: '100.100.1.11', externalIPs: ['203.0.113.10'], ports });
    await waitForAnswer(c, 'tcp', '203.0.113.10', 80);
    await waitForAnswer(c, 'udp', '203.0.113.10', 53);
    const lines = c.topo.probe('tcp', '203.0.113.10', 80, 60);
    assert.deepEqual([...answeredBy(lines)].sort(), ALL_PODS);
    assert.deepEqual([...sourcesSeen(lines)], [NODE_POD_SIDE_IP]);
  });

  it('serves LoadBalancer ingress IPs in ipMode VIP and not those in ipMode Proxy', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080, nodePort: 30081 }];
    serve('lb', {
      type: 'LoadBalancer', clusterIP: '100.100.1.12', ports,
      loadBalancerIPs: ['203.0.113.20'], loadBalancerIngress: [{ ip: '203.0.113.21', ipMode: 'Proxy' }],
    });
    await waitForAnswer(c, 'tcp', '203.0.113.20', 80);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '203.0.113.20', 80, 60))].sort(), ALL_PODS);
    // A Proxy-mode load balancer delivers to the node itself; the proxy must not claim its IP.
    assert.deepEqual(c.topo.probe('tcp', '203.0.113.21', 80, 1, { timeoutMs: 500 }), ['ERR TIMEOUT']);
    const rules = ruleset(c);
    assert.match(rules, /203\.0\.113\.20 \. tcp \. 80 \. 0 : /);
    assert.doesNotMatch(rules, /203\.0\.113\.21/);
  });

  it('drops LoadBalancer traffic from outside loadBalancerSourceRanges, and accepts it once the client is in', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080, nodePort: 30082 }];
    const spec: ServiceSpec = {
      type: 'LoadBalancer', clusterIP: '100.100.1.13', ports,
      loadBalancerIPs: ['203.0.113.30'], loadBalancerSourceRanges: ['10.0.0.0/8', '198.18.1.0/24'],
    };
    serve('fw', spec);
    // The ClusterIP is not subject to the ranges: once it answers, the Service is programmed.
    await waitForAnswer(c, 'tcp', '100.100.1.13', 80);
    const rules = ruleset(c);
    // Elements only: the destination in firewall-ips, one firewall-allow range per allowed source, no chain of its own.
    assert.match(rules, /set firewall-ips \{[^}]*203\.0\.113\.30 \. tcp \. 80[,\s]/);
    assert.match(rules, /203\.0\.113\.30 \. tcp \. 80 \. 10\.0\.0\.0\/8/);
    assert.match(rules, /203\.0\.113\.30 \. tcp \. 80 \. 198\.18\.1\.0\/24/);
    assert.doesNotMatch(rules, /chain firewall-(?!check)/);
    assert.deepEqual(c.topo.probe('tcp', '203.0.113.30', 80, 2, { timeoutMs: 500 }), ['ERR TIMEOUT', 'ERR TIMEOUT']);
    c.api.update('services', service('fw', { ...spec, loadBalancerSourceRanges: ['10.0.0.0/8', `${CLIENT_IP}/32`] }));
    await waitForAnswer(c, 'tcp', '203.0.113.30', 80);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '203.0.113.30', 80, 60))].sort(), ALL_PODS);
    // Another address of the same client is still outside the ranges.
    c.topo.addClientAddress('198.18.0.3');
    assert.deepEqual(c.topo.probe('tcp', '203.0.113.30', 80, 1, { timeoutMs: 500, sourceAddress: '198.18.0.3' }), ['ERR TIMEOUT']);
  });

  it('IPv6: a source inside loadBalancerSourceRanges reaches the LoadBalancer IP, one outside them is dropped', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080, nodePort: 30083 }];
    const lb = '2001:db8:100::30';
    const spec: ServiceSpec = {
      type: 'LoadBalancer', clusterIP: '2001:db8:100::13', ports, loadBalancerIPs: [lb],
      loadBalancerSourceRanges: [`${CLIENT_IP6}/128`, 'fd00:1::/32', '2001:db8:77::/48'],
    };
    c.api.create('services', service('fw6', spec));
    c.api.create('endpointslices', endpointSlice('fw6', 'fw6-1', { ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip6 })) }));
    await waitForAnswer(c, 'tcp', lb, 80);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', lb, 80, 60))].sort(), ALL_PODS);
    assert.match(ruleset(c, 'ip6'), /2001:db8:100::30 \. tcp \. 80 \. 2001:db8:77::\/48/);
    // Another address of the client, outside every range: dropped; the ClusterIP is not firewalled.
    c.topo.addClientAddress('2001:db8:18::3');
    assert.deepEqual(c.topo.probe('tcp', lb, 80, 1, { timeoutMs: 500, sourceAddress: '2001:db8:18::3' }), ['ERR TIMEOUT']);
    assert.equal(answers(c.topo.probe('tcp', '2001:db8:100::13', 80, 5, { sourceAddress: '2001:db8:18::3' })).length, 5);
    // The ranges changed to hold the other address and no longer the first: each source's fate follows.
    c.api.update('services', service('fw6', { ...spec, loadBalancerSourceRanges: ['2001:db8:18::3/128'] }));
    await eventually(() => /2001:db8:100::30 \. tcp \. 80 \. 2001:db8:18::3[,\s]/.test(ruleset(c, 'ip6')) && !ruleset(c, 'ip6').includes('2001:db8:77::'),
      () => `firewall-allow with the new range alone:\n${ruleset(c, 'ip6')}`);
    assert.equal(answers(c.topo.probe('tcp', lb, 80, 5, { sourceAddress: '2001:db8:18::3' })).length, 5);
    // The client's first address named: with two, the kernel may pick either as the source.
    assert.deepEqual(c.topo.probe('tcp', lb, 80, 1, { timeoutMs: 500, sourceAddress: CLIENT_IP6 }), ['ERR TIMEOUT']);
  });

  it('opens and closes a NodePort as the Service changes type', async () => {
    const clusterIPPorts: PortSpec[] = [{ port: 80, targetPort: 8080 }];
    const nodePorts: PortSpec[] = [{ port: 80, targetPort: 8080, nodePort: 30090 }];
    serve('morph', { clusterIP: '100.100.1.14', ports: clusterIPPorts });
    await waitForAnswer(c, 'tcp', '100.100.1.14', 80);
    // Nothing on the node listens on 30090: the node's own stack refuses it.
    assert.deepEqual(c.topo.probe('tcp', NODE_IP, 30090, 1), ['ERR ECONNREFUSED']);

    c.api.update('services', service('morph', { type: 'NodePort', clusterIP: '100.100.1.14', ports: nodePorts }));
    await waitForAnswer(c, 'tcp', NODE_IP, 30090);
    assert.equal(answers(c.topo.probe('tcp', NODE_IP, 30090, 10)).length, 10);

    c.api.update('services', service('morph', {
      type: 'LoadBalancer', clusterIP: '100.100.1.14', ports: nodePorts, loadBalancerIPs: ['203.0.113.40'],
    }));
    await waitForAnswer(c, 'tcp', '203.0.113.40', 80);
    assert.equal(answers(c.topo.probe('tcp', NODE_IP, 30090, 10)).length, 10, 'a LoadBalancer keeps its NodePort');

    c.api.update('services', service('morph', { clusterIP: '100.100.1.14', ports: clusterIPPorts }));
    await waitForError(c, 'tcp', NODE_IP, 30090, 'ECONNREFUSED');
    await waitForError(c, 'tcp', '203.0.113.40', 80, 'TIMEOUT', { timeoutMs: 500 });
    assert.equal(answers(c.topo.probe('tcp', '100.100.1.14', 80, 10)).length, 10, 'the ClusterIP keeps working throughout');
    assert.doesNotMatch(ruleset(c), /30090|203\.0\.113\.40/);
  });
});
