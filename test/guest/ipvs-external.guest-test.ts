// The IPVS mode's traffic from outside the node and per client, on a kernel with IPVS: externalIPs,
// LoadBalancer ingress IPs (loadBalancerSourceRanges allowing one source and dropping another;
// ipMode Proxy not served), ClientIP session affinity (IPVS persistence), and the Local external
// traffic policy (client IP kept, only local endpoints; dropped when none is local). The same cases
// as the nftables mode's test/traffic/external.test.ts, local-policy.test.ts and endpoints.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, Cluster, eventually, sourcesSeen } from '../traffic/harness';
import { endpointSlice, OTHER_NODE, service, type PortSpec, type ServiceSpec } from '../traffic/fixtures';
import { CLIENT_IP, NODE_IP, NODE_POD_SIDE_IP } from '../helpers/topology';
import { answerWithin as waitForAnswer, errorWithin as waitForError, startIpvsCluster } from './ipvs-cluster';
import { probeMany } from './ipvs-probes';
import { realServers, section } from './ipvs-table';

const ALL_PODS = ['pod0', 'pod1', 'pod2'];

describe('the IPVS mode: external traffic, source ranges, affinity, Local policy', () => {
  let c: Cluster;
  /** The proxy's log (JSON lines): its warnings and errors go into failure messages. */
  const log: string[] = [];
  const logged = (): string => log.filter((l) => !/"level":"(debug|info)"/i.test(l)).slice(-30).join('');
  before(async () => {
    c = await startIpvsCluster({ pods: 3, prefix: 'kpx', logLines: log });
  });
  after(async () => { await c?.stop(); });

  const ipvsadm = (): string => c.topo.node.exec('ipvsadm', ['-Ln']);
  const vips = (): string => c.topo.node.exec('ip', ['-o', 'addr', 'show', 'dev', 'kube-ipvs0']);
  const rules = (): string => c.topo.node.nft('list', 'table', 'ip', 'kube-proxy-ipvs');

  /** A Service backed by every pod (or the given endpoints). */
  function serve(name: string, spec: ServiceSpec, endpoints = c.topo.pods.map((p) => ({ ip: p.ip }))): void {
    c.api.create('services', service(name, spec));
    c.api.create('endpointslices', endpointSlice(name, `${name}-1`, { ports: spec.ports, endpoints }));
  }

  it('serves externalIPs over TCP and UDP through virtual services, masquerading the client', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }];
    serve('ext', { clusterIP: '100.100.1.11', externalIPs: ['203.0.113.10'], ports });
    await waitForAnswer(c, 'tcp', '203.0.113.10', 80);
    await waitForAnswer(c, 'udp', '203.0.113.10', 53);
    const [tcp, udp] = probeMany(c.topo.client, [
      { proto: 'tcp', host: '203.0.113.10', port: 80, count: 12 }, { proto: 'udp', host: '203.0.113.10', port: 53, count: 12 }]);
    assert.deepEqual([...answeredBy(tcp)].sort(), ALL_PODS);
    assert.deepEqual([...answeredBy(udp)].sort(), ALL_PODS);
    assert.deepEqual([...sourcesSeen(tcp)], [NODE_POD_SIDE_IP]);
    assert.match(ipvsadm(), /TCP\s+203\.0\.113\.10:80 rr/);
    assert.match(ipvsadm(), /UDP\s+203\.0\.113\.10:53 rr/);
    assert.match(vips(), /inet 203\.0\.113\.10\/32/);
  });

  it('serves a LoadBalancer IP to sources in loadBalancerSourceRanges only, and not an ipMode Proxy IP', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080, nodePort: 30082 }];
    const spec: ServiceSpec = {
      type: 'LoadBalancer', clusterIP: '100.100.1.13', ports, loadBalancerSourceRanges: [`${CLIENT_IP}/32`],
      loadBalancerIPs: ['203.0.113.30'], loadBalancerIngress: [{ ip: '203.0.113.31', ipMode: 'Proxy' }],
    };
    serve('fw', spec);
    c.topo.addClientAddress('198.18.0.3');
    await waitForAnswer(c, 'tcp', '203.0.113.30', 80);
    const [allowed, refused, clusterIP, proxyMode] = probeMany(c.topo.client, [
      { proto: 'tcp', host: '203.0.113.30', port: 80, count: 12 },
      { proto: 'tcp', host: '203.0.113.30', port: 80, count: 2, timeoutMs: 500, sourceAddress: '198.18.0.3' },
      { proto: 'tcp', host: '100.100.1.13', port: 80, sourceAddress: '198.18.0.3' },
      { proto: 'tcp', host: '203.0.113.31', port: 80, timeoutMs: 500 },
    ]);
    assert.deepEqual([...answeredBy(allowed)].sort(), ALL_PODS);
    // Another source of the same client, outside the ranges: dropped, not rejected.
    assert.deepEqual(refused, ['ERR TIMEOUT', 'ERR TIMEOUT'], rules());
    // The ranges do not apply to the ClusterIP.
    assert.match(clusterIP[0], /^pod\d /);
    // A Proxy-mode load balancer delivers to the node itself: no virtual service, no address.
    assert.deepEqual(proxyMode, ['ERR TIMEOUT']);
    const table = ipvsadm();
    assert.match(table, /TCP\s+203\.0\.113\.30:80 rr/);
    assert.doesNotMatch(table, /203\.0\.113\.31/);
    assert.match(vips(), /inet 203\.0\.113\.30\/32/);
    assert.doesNotMatch(vips(), /203\.0\.113\.31/);

    // Widening the ranges lets the second source in.
    c.api.update('services', service('fw', { ...spec, loadBalancerSourceRanges: [`${CLIENT_IP}/32`, '198.18.0.3/32'] }));
    await waitForAnswer(c, 'tcp', '203.0.113.30', 80, { sourceAddress: '198.18.0.3' });
  });

  it('keeps every connection of one client on one endpoint with ClientIP affinity (IPVS persistence)', async () => {
    const tcp: PortSpec[] = [{ port: 80, targetPort: 8080 }];
    serve('sticky', { clusterIP: '100.100.3.12', ports: tcp, affinitySeconds: 600 });
    await waitForAnswer(c, 'tcp', '100.100.3.12', 80);
    assert.match(ipvsadm(), /TCP\s+100\.100\.3\.12:80 rr persistent 600/);
    // Three more clients (source addresses): rr schedules each new client's persistence template on
    // the next real server, so they do not all land where the main client did.
    const others = ['198.18.0.10', '198.18.0.11', '198.18.0.12'];
    for (const a of others) c.topo.addClientAddress(a);
    const seen = probeMany(c.topo.client, [undefined, ...others].map((sourceAddress) => ({ proto: 'tcp' as const, host: '100.100.3.12', port: 80, count: 8, sourceAddress })))
      .map((lines) => [...answeredBy(lines)]);
    seen.forEach((pods, i) => assert.equal(pods.length, 1, `client ${i} reached ${pods.join(', ')}`));
    assert.ok(new Set(seen.flat()).size > 1, `every client landed on ${seen.flat().join(', ')}`);
  });

  describe('externalTrafficPolicy Local', () => {
    const ports: PortSpec[] = [
      { name: 'http', port: 80, targetPort: 8080, nodePort: 31080 },
      { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP', nodePort: 31053 },
    ];
    const lb: ServiceSpec = {
      type: 'LoadBalancer', clusterIP: '100.100.2.10', ports, loadBalancerIPs: ['203.0.113.50'], externalTrafficPolicy: 'Local',
    };
    /** pod0 on this node unless `noneLocal`; pod1 and pod2 always on node-b (reachable, but not local). */
    const slice = (noneLocal = false): ReturnType<typeof endpointSlice> => endpointSlice('local-lb', 'local-lb-1', {
      ports, endpoints: c.topo.pods.map((p, i) => ({ ip: p.ip, nodeName: i === 0 && !noneLocal ? undefined : OTHER_NODE })),
    });

    it('sends NodePort and LoadBalancer traffic only to the local endpoint, with the client IP kept', async () => {
      c.api.create('services', service('local-lb', lb));
      c.api.create('endpointslices', slice());
      await waitForAnswer(c, 'tcp', NODE_IP, 31080);
      await waitForAnswer(c, 'udp', '203.0.113.50', 53);
      const [np, npUdp, lbTcp, lbUdp, cip] = probeMany(c.topo.client, [
        { proto: 'tcp', host: NODE_IP, port: 31080, count: 8 }, { proto: 'udp', host: NODE_IP, port: 31053, count: 8 },
        { proto: 'tcp', host: '203.0.113.50', port: 80, count: 8 }, { proto: 'udp', host: '203.0.113.50', port: 53, count: 8 },
        { proto: 'tcp', host: '100.100.2.10', port: 80, count: 12 },
      ]);
      const lines = [...np, ...npUdp, ...lbTcp, ...lbUdp];
      assert.deepEqual(lines, Array(32).fill(`pod0 ${CLIENT_IP}`), `${lines.join('\n')}\n${ipvsadm()}`);
      // The external virtual services hold only the local endpoint; the ClusterIP's all three.
      const nodePortVS = section(ipvsadm(), `TCP  ${NODE_IP}:31080`);
      assert.deepEqual(realServers(nodePortVS), [`${c.topo.pods[0].ip}:8080`], nodePortVS);
      assert.equal(realServers(section(ipvsadm(), 'TCP  100.100.2.10:80')).length, 3);
      assert.deepEqual([...answeredBy(cip)].sort(), ALL_PODS);
      assert.deepEqual([...sourcesSeen(cip)], [NODE_POD_SIDE_IP]);
    });

    it('drops external traffic when no endpoint is local, while the ClusterIP and pods keep working', async () => {
      c.api.update('endpointslices', slice(true));
      await waitForError(c, 'tcp', NODE_IP, 31080, 'TIMEOUT', { timeoutMs: 500 });
      const [npUdp, lbTcp, lbUdp, cip] = probeMany(c.topo.client, [
        { proto: 'udp', host: NODE_IP, port: 31053, timeoutMs: 500 }, { proto: 'tcp', host: '203.0.113.50', port: 80, timeoutMs: 500 },
        { proto: 'udp', host: '203.0.113.50', port: 53, timeoutMs: 500 }, { proto: 'tcp', host: '100.100.2.10', port: 80, count: 12 },
      ]);
      assert.deepEqual([...npUdp, ...lbTcp, ...lbUdp], Array(3).fill('ERR TIMEOUT'));
      // The LB IP is bound on kube-ipvs0: without the drop rule IPVS itself would answer (fallback to
      // the Cluster endpoints, as upstream), so this timeout is the helper table's verdict.
      assert.match(vips(), /inet 203\.0\.113\.50\/32/);
      assert.match(rules(), /set no-local-endpoint-services \{[^}]*elements = \{[^}]*203\.0\.113\.50 \. tcp \. 80/);
      assert.deepEqual([...answeredBy(cip)].sort(), ALL_PODS);
      // A pod is no external client: IPVS takes it to every endpoint (upstream's fallback), unmasqueraded
      // (pod1 reaching itself is hairpin-masqueraded: it is a local endpoint of this suite's other Services).
      const lbVS = 'TCP  203.0.113.50:80 rr';
      await eventually(() => realServers(section(ipvsadm(), lbVS)).length === 3, () => `the fallback to every endpoint:\n${ipvsadm()}`);
      const pod1 = c.topo.pods[1];
      const fromPod = c.topo.probe('tcp', '203.0.113.50', 80, 9, { from: pod1.ns });
      assert.deepEqual([...answeredBy(fromPod)].sort(), ALL_PODS, fromPod.join('\n'));
      assert.deepEqual([...sourcesSeen(fromPod.filter((l) => !l.startsWith('pod1 ')))], [pod1.ip], 'not masqueraded');

      c.api.update('endpointslices', slice());
      // The drop goes (helper table) just before the real servers shrink back to pod0 (IPVS), in one sync.
      await waitForAnswer(c, 'tcp', NODE_IP, 31080).catch((e: Error) => {
        throw new Error(`${e.message}\n${ipvsadm()}\n${rules()}\n${logged()}`);
      });
      await eventually(() => c.topo.probe('tcp', NODE_IP, 31080, 1)[0] === `pod0 ${CLIENT_IP}`, 'the local endpoint alone to serve again');
    });
  });
});
