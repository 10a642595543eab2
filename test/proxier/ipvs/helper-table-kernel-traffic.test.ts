// Traffic through the helper table where IPVS is not needed: the drops and rejects happen in
// filter chains before IPVS would see the packet. A veth in the node namespace holds the
// Service addresses as kube-ipvs0 would; a server in the node namespace listens on every
// address, so without our rules every connection here would succeed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { Nft } from '../../../src/native/nft/nft';
import { IpvsHelperTable } from '../../../src/proxier/ipvs/helper-table';
import { CLIENT_IP, NODE_IP, REPO_ROOT, Topology } from '../../helpers/topology';
import { ep, snapshot, sp, type Entry } from './helper-table-fixtures';
import type { HelperTableSyncInput } from '../../../src/proxier/ipvs/helper-table-api';

const SECOND_CLIENT = '198.18.0.3';
const CLUSTER_IP = '100.100.0.1';
const EMPTY_IP = '100.100.0.2';
const FW_LB = '203.0.113.5';
const LOCAL_LB = '203.0.113.6';
const INTERNAL_LOCAL_IP = '100.100.0.5';
/** A source in the detector's pod CIDR: one of the node's pods, as far as the rules can tell. */
const POD_SOURCE = '100.96.1.50';
const node = { name: 'node1', labels: {}, ips: [NODE_IP], podCIDRs: ['100.96.1.0/24'] };

function startNodeServer(topo: Topology, ports: number[]): Promise<ChildProcess> {
  const server = path.join(REPO_ROOT, 'test', 'helpers', 'echo-server.js');
  const child = spawn('ip', ['netns', 'exec', topo.node.name, process.execPath, server, 'node', ...ports.map(String)], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', () => resolve(child));
  });
}

function services(): Entry[] {
  return [
    [sp('with-eps', { clusterIP: CLUSTER_IP }), [ep('100.96.1.2')]],
    [sp('empty', { clusterIP: EMPTY_IP }), []],
    [sp('fw', { clusterIP: '100.100.0.3', loadBalancerIPs: [FW_LB], loadBalancerSourceRanges: [`${CLIENT_IP}/32`] }), [ep('100.96.1.2')]],
    [sp('local', { clusterIP: '100.100.0.4', loadBalancerIPs: [LOCAL_LB], externalPolicyLocal: true, healthCheckNodePort: 2223 }), [ep('100.96.1.3')]],
    [sp('internal-local', { clusterIP: INTERNAL_LOCAL_IP, internalPolicyLocal: true }), [ep('100.96.1.3')]],
  ];
}

function input(entries: Entry[]): HelperTableSyncInput {
  return { snapshot: snapshot(entries, node), changed: new Set(), removed: new Map(), full: true, nodePortIPs: [NODE_IP] };
}

test('kernel traffic: ipvs-filter, no-endpoint reject, Local drop and source ranges, before and after a partial sync', async () => {
  const topo = Topology.create(0, 'kpi');
  let server: ChildProcess | undefined;
  const nft = Nft.open({ netns: topo.node.path });
  try {
    topo.addClientAddress(SECOND_CLIENT);
    topo.addClientAddress(POD_SOURCE);
    topo.node.exec('ip', ['link', 'add', 'kipvs0', 'type', 'veth', 'peer', 'name', 'kipvs0p']);
    for (const l of ['kipvs0', 'kipvs0p']) topo.node.exec('ip', ['link', 'set', l, 'up']);
    for (const ip of [CLUSTER_IP, EMPTY_IP, '100.100.0.3', '100.100.0.4', INTERNAL_LOCAL_IP, FW_LB, LOCAL_LB]) topo.node.exec('ip', ['addr', 'add', `${ip}/32`, 'dev', 'kipvs0']);
    server = await startNodeServer(topo, [80, 2222, 2223]);
    const probe = (ip: string, port: number, from?: string) => topo.probe('tcp', ip, port, 1, { timeoutMs: 1000, sourceAddress: from })[0];

    // Without the table every address answers (the control).
    for (const ip of [CLUSTER_IP, EMPTY_IP, FW_LB, LOCAL_LB]) assert.match(probe(ip, 80, SECOND_CLIENT), /^node /, ip);
    assert.match(probe(CLUSTER_IP, 2222), /^node /);

    const table = new IpvsHelperTable({ nft, families: ['ip'], localDetector: { mode: 'ClusterCIDR', cidrs: ['100.96.0.0/16'] } });
    const entries = services();
    await table.sync(input(entries));

    assert.match(probe(CLUSTER_IP, 80), /^node /, 'a Service port on a VIP passes');
    assert.equal(probe(CLUSTER_IP, 2222), 'ERR ECONNREFUSED', 'KUBE-IPVS-FILTER: no Service on that port of a VIP');
    assert.match(probe(NODE_IP, 2222), /^node /, 'the node address is no VIP');
    assert.match(probe(CLUSTER_IP, 2223), /^node /, 'a health-check node port passes on a VIP');
    assert.equal(probe(EMPTY_IP, 80), 'ERR ECONNREFUSED', 'no endpoints: rejected');
    assert.equal(probe(LOCAL_LB, 80), 'ERR TIMEOUT', 'Local policy without a local endpoint: dropped');
    assert.match(probe(LOCAL_LB, 80, POD_SOURCE), /^node /, 'external Local policy: a pod is no external client, IPVS takes it to the other endpoints');
    assert.equal(probe(INTERNAL_LOCAL_IP, 80, POD_SOURCE), 'ERR TIMEOUT', 'internal Local policy without a local endpoint: dropped for pods too');
    assert.match(probe(FW_LB, 80, CLIENT_IP), /^node /, 'inside loadBalancerSourceRanges');
    assert.equal(probe(FW_LB, 80, SECOND_CLIENT), 'ERR TIMEOUT', 'outside loadBalancerSourceRanges: dropped');

    // Partial sync: the empty Service gets an endpoint, the source range moves to the second client.
    const [withEps, empty, fw, local] = entries.map(([s]) => s);
    const fw2 = { ...fw, loadBalancerSourceRanges: [`${SECOND_CLIENT}/32`] };
    const next: Entry[] = [[withEps, [ep('100.96.1.2')]], [empty, [ep('100.96.1.4')]], [fw2, [ep('100.96.1.2')]], [local, [ep('100.96.1.3')]], entries[4]];
    await table.sync({ ...input(next), full: false, changed: new Set([empty.key, fw.key]) });
    assert.equal(table.lastSync?.full, false);
    assert.match(probe(EMPTY_IP, 80), /^node /, 'with an endpoint it passes');
    assert.match(probe(FW_LB, 80, SECOND_CLIENT), /^node /);
    assert.equal(probe(FW_LB, 80, CLIENT_IP), 'ERR TIMEOUT');
  } finally {
    nft.close();
    server?.kill();
    topo.destroy();
  }
});
