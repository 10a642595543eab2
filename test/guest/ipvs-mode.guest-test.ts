// The IPVS mode end to end on a kernel with IPVS: the whole proxy (`mode: ipvs`) against the test API
// server, its kernel side in the node namespace of a Topology, real TCP and UDP from the client and
// pod namespaces. ipvsadm and ip read the kernel independently of our own dumps.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runCleanup } from '../../src/cleanup';
import { answeredBy, applied, Cluster, eventually, sourcesSeen, startCluster, waitForAnswer, waitForError } from '../traffic/harness';
import { endpointSlice, service, type PortSpec } from '../traffic/fixtures';
import { NODE_IP, NODE_POD_SIDE_IP } from '../helpers/topology';

const PODS = ['pod0', 'pod1'];

describe('the IPVS mode, end to end', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster({ pods: 2, prefix: 'kpg', configYaml: 'mode: ipvs' });
    // Under emulation the lists before the first sync take ~10 s: wait for it here, not in each probe's 10 s.
    await eventually(() => c.proxy.health.report().lastUpdated !== undefined, 'the first sync', 120_000);
  });
  after(async () => { await c?.stop(); });

  const ipvsadm = (): string => c.topo.node.exec('ipvsadm', ['-Ln']);
  const vips = (): string => c.topo.node.exec('ip', ['-o', 'addr', 'show', 'dev', 'kube-ipvs0']);

  function serve(name: string, clusterIP: string, ports: PortSpec[], extra: Record<string, unknown> = {}): void {
    c.api.create('services', service(name, { clusterIP, ports, ...extra }));
    c.api.create('endpointslices', endpointSlice(name, `${name}-1`, { ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })) }));
  }

  it('serves a ClusterIP over TCP and UDP through IPVS virtual services, the VIP bound to kube-ipvs0', async () => {
    // IPVS needs these in the node namespace; the proxy sets them only in its own (run against another, it says so).
    for (const s of ['net.ipv4.vs.conntrack=1', 'net.ipv4.vs.expire_nodest_conn=1', 'net.ipv4.ip_forward=1']) c.topo.node.exec('sysctl', ['-qw', s]);
    serve('web', '100.100.0.10', [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }]);
    await waitForAnswer(c, 'tcp', '100.100.0.10', 80);
    await waitForAnswer(c, 'udp', '100.100.0.10', 53);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.0.10', 80, 20))].sort(), PODS);
    assert.deepEqual([...answeredBy(c.topo.probe('udp', '100.100.0.10', 53, 20))].sort(), PODS);
    const table = ipvsadm();
    assert.match(table, /TCP\s+100\.100\.0\.10:80 rr/);
    assert.match(table, /UDP\s+100\.100\.0\.10:53 rr/);
    for (const p of c.topo.pods) assert.match(table, new RegExp(`-> ${p.ip.replace(/\./g, '\\.')}:8080\\s+Masq\\s+1`));
    assert.match(vips(), /inet 100\.100\.0\.10\/32/);
    assert.match(c.topo.node.exec('ip', ['-d', 'link', 'show', 'kube-ipvs0']), /dummy/);
  });

  it('masquerades off-cluster clients and keeps pod sources', async () => {
    const lines = c.topo.probe('tcp', '100.100.0.10', 80, 5);
    assert.deepEqual([...sourcesSeen(lines)], [NODE_POD_SIDE_IP],
      `${lines.join('\n')}\n${c.topo.node.nft('list', 'table', 'ip', 'kube-proxy-ipvs')}\n${c.topo.node.exec('conntrack', ['-L'])}`);
    const [pod0, pod1] = c.topo.pods;
    const fromPod = c.topo.probe('tcp', '100.100.0.10', 80, 6, { from: pod1.ns });
    assert.ok(fromPod.every((l) => l === `pod0 ${pod1.ip}` || l === `pod1 ${NODE_POD_SIDE_IP}`), fromPod.join('\n'));
    void pod0;
  });

  it('serves a NodePort on the node IP', async () => {
    serve('np', '100.100.1.10', [{ port: 80, targetPort: 8080, nodePort: 30080 }], { type: 'NodePort' });
    await waitForAnswer(c, 'tcp', NODE_IP, 30080);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', NODE_IP, 30080, 20))].sort(), PODS);
    assert.match(ipvsadm(), /TCP\s+198\.18\.0\.1:30080 rr/);
    assert.doesNotMatch(vips(), /198\.18\.0\.1/, 'node IPs are never bound to kube-ipvs0');
  });

  it('rejects connections to a Service without endpoints and to a port no Service has on a VIP', async () => {
    c.api.create('services', service('empty', { clusterIP: '100.100.0.20', ports: [{ port: 80, targetPort: 8080 }] }));
    await waitForError(c, 'tcp', '100.100.0.20', 80, 'ECONNREFUSED');
    assert.deepEqual(c.topo.probe('tcp', '100.100.0.10', 81, 1), ['ERR ECONNREFUSED']);
  });

  it('follows endpoint changes and removes a deleted Service\'s virtual service and address', async () => {
    const ports = [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' as const }];
    c.api.update('endpointslices', endpointSlice('web', 'web-1', { ports, endpoints: [{ ip: c.topo.pods[0].ip }] }));
    // The removed real server drains at weight 0 (TCP) or goes at once (UDP); new connections go to pod0 only.
    await eventually(() => /-> 100\.96\.\d+\.\d+:8080\s+Masq\s+0/.test(ipvsadm()), () => `pod1 at weight 0:\n${ipvsadm()}`);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.0.10', 80, 10))], ['pod0']);
    assert.deepEqual([...answeredBy(c.topo.probe('udp', '100.100.0.10', 53, 10))], ['pod0']);
    c.api.delete('services', service('np', { clusterIP: '100.100.1.10', ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }] }));
    await waitForError(c, 'tcp', NODE_IP, 30080, 'ECONNREFUSED');
    await applied(c);
    assert.doesNotMatch(ipvsadm(), /30080/);
    assert.doesNotMatch(vips(), /100\.100\.1\.10/);
  });

  it('--cleanup removes the mode\'s virtual services, kube-ipvs0 and its table, and leaves a foreign virtual service', async () => {
    c.topo.node.exec('ipvsadm', ['-A', '-t', '192.0.2.50:80', '-s', 'rr']);
    await c.proxy.stop();
    const r = await runCleanup({ netns: c.topo.node.path, log: { info: () => {}, warn: () => {}, error: () => {} } });
    assert.deepEqual([r.failed, r.ipvs.failed], [[], []]);
    assert.equal(r.ipvs.link, 'deleted');
    const left = ipvsadm();
    assert.match(left, /TCP\s+192\.0\.2\.50:80 rr/);
    assert.doesNotMatch(left, /100\.100\.|198\.18\./);
    assert.throws(() => c.topo.node.exec('ip', ['link', 'show', 'kube-ipvs0']));
    assert.doesNotMatch(c.topo.node.nft('list', 'tables'), /kube-proxy-ipvs/);
    // after() stops the proxy again: give it a running one.
    c.proxy = { ...c.proxy, stop: async () => {} };
  });
});
