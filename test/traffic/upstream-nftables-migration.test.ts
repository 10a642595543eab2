// Migrating between upstream kube-proxy's nftables mode and ours, through the whole proxy, with
// upstream's table written as upstream writes it (upstream-nftables.ts: pkg/proxy/nftables/proxier.go,
// v1.35). Forth: our first sync replaces upstream's table (NftablesProxier's start-up adoption), traffic
// keeps flowing, and a TCP connection opened through upstream's DNAT keeps working (conntrack holds
// its NAT; only a connection's first packet goes through the nat hooks). Back: upstream's full sync
// written over our table, as upstream's start-up does it (it neither lists nor deletes the table).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, applied, Cluster, eventually, startCluster, waitForAnswer } from './harness';
import { endpointSlice, service, type PortSpec } from './fixtures';
import { HeldConnection, LineEchoServer } from './held-connection';
import { UPSTREAM_FIXED_CHAINS, upstreamEndpointChain, upstreamSyncScript, type UpstreamService } from './upstream-nftables';
import { NODE_IP, NODE_POD_SIDE_IP, POD_CIDR, POD_CIDR6, type Topology } from '../helpers/topology';
import type { TestNetns } from '../helpers/netns';
import type { TestApiServer } from '../apiserver/server';

const WEB: PortSpec[] = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30087 }];
const HELD: PortSpec[] = [{ name: 'line', port: 90, targetPort: 9090 }];
const ALL_PODS = ['pod0', 'pod1', 'pod2'];

function upstreamServices(topo: Topology): UpstreamService[] {
  return [
    { namespace: 'default', name: 'web', portName: 'http', clusterIP: '100.100.7.10', port: 80, nodePort: 30087, targetPort: 8080, endpoints: topo.pods.map((p) => p.ip) },
    { namespace: 'default', name: 'held', portName: 'line', clusterIP: '100.100.7.11', port: 90, targetPort: 9090, endpoints: [topo.pods[0].ip] },
  ];
}

/** Upstream's full sync of both families, loaded with `nft -f` (what knftables runs). */
function loadUpstream(topo: Topology): void {
  topo.node.exec('nft', ['-f', '-'], upstreamSyncScript({
    family: 'ip', clusterCIDR: POD_CIDR, serviceCIDR: '100.100.0.0/16', nodePortIPs: [NODE_IP], services: upstreamServices(topo),
  }));
  topo.node.exec('nft', ['-f', '-'], upstreamSyncScript({
    family: 'ip6', clusterCIDR: POD_CIDR6, serviceCIDR: '2001:db8:100::/64', nodePortIPs: [], services: [],
  }));
}

interface TableObjects {
  chains: string[];
  sets: string[];
  /** Each chain's rules (expressions only) and each set's elements, as JSON, for comparing tables. */
  contents: Record<string, string>;
}

/** The `kube-proxy` table of `family` in `ns`: its objects' names and contents, handles left out. */
function tableObjects(ns: TestNetns, family: 'ip' | 'ip6'): TableObjects {
  const items: Array<Record<string, any>> = JSON.parse(ns.nft('-j', 'list', 'table', family, 'kube-proxy')).nftables;
  const chains: string[] = [];
  const sets: string[] = [];
  const contents: Record<string, string[]> = {};
  for (const item of items) {
    if (item.chain) {
      const c = item.chain;
      chains.push(c.hook ? `${c.name} (${c.type} ${c.hook} ${c.prio})` : c.name);
      contents[`chain ${c.name}`] ??= [];
    } else if (item.set || item.map) {
      const s = item.set ?? item.map;
      sets.push(`${item.set ? 'set' : 'map'} ${s.name}`);
      contents[`set ${s.name}`] = (s.elem ?? []).map((e: unknown) => JSON.stringify(e)).sort();
    } else if (item.rule) {
      (contents[`chain ${item.rule.chain}`] ??= []).push(JSON.stringify(item.rule.expr));
    }
  }
  return { chains: chains.sort(), sets: sets.sort(), contents: Object.fromEntries(Object.entries(contents).map(([k, v]) => [k, v.join('\n')])) };
}

/** Resolves once the running proxy has synced successfully (the last-sync timestamp is set). */
async function firstSync(c: Cluster): Promise<void> {
  await eventually(async () => (await c.proxy.metrics.syncProxyRulesLastTimestamp.get()).values.some((v) => v.value > 0),
    'the proxy\'s first successful sync');
  await applied(c);
}

function withoutContents(t: TableObjects): Omit<TableObjects, 'contents'> {
  return { chains: t.chains, sets: t.sets };
}

describe('migrating from upstream\'s nftables mode and back', () => {
  let c: Cluster;
  let server: LineEchoServer;
  let held: HeldConnection;
  const upstreamTable: Record<string, TableObjects> = {};

  before(async () => {
    c = await startCluster({
      pods: 3,
      async beforeProxy(api: TestApiServer, topo: Topology) {
        for (const [name, ports, pods] of [['web', WEB, topo.pods], ['held', HELD, [topo.pods[0]]]] as const) {
          const ip = name === 'web' ? '100.100.7.10' : '100.100.7.11';
          api.create('services', service(name, { type: name === 'web' ? 'NodePort' : 'ClusterIP', clusterIP: ip, ports }));
          api.create('endpointslices', endpointSlice(name, `${name}-1`, { ports, endpoints: pods.map((p) => ({ ip: p.ip })) }));
        }
        server = await LineEchoServer.start(topo.pods[0].ns, 'pod0', 9090);
        loadUpstream(topo);
        for (const f of ['ip', 'ip6'] as const) upstreamTable[f] = tableObjects(topo.node, f);
        // Upstream's rules serve on their own, and the held connection goes through them.
        assert.deepEqual([...answeredBy(topo.probe('tcp', '100.100.7.10', 80, 30))].sort(), ALL_PODS);
        held = await HeldConnection.open(topo.client, '100.100.7.11', 90);
        assert.equal(await held.exchange('before'), `pod0 ${NODE_POD_SIDE_IP} before`);
      },
    });
  });
  after(async () => {
    held?.close();
    server?.stop();
    await c?.stop();
  });

  it('replaces upstream\'s table at the first sync: none of upstream\'s own chains or sets is left', async () => {
    await firstSync(c);
    const up = upstreamTable.ip;
    assert.ok(up.chains.some((ch) => ch.startsWith('endpoint-')), 'the upstream table had endpoint chains to begin with');
    for (const f of ['ip', 'ip6'] as const) {
      const now = tableObjects(c.topo.node, f);
      const upstreamOnly = upstreamTable[f].chains.filter((ch) => !now.chains.includes(ch));
      assert.ok(upstreamOnly.length > 0, `${f}: the upstream table had chains of its own`);
      // Every upstream per-Service chain and upstream-only base chain is gone.
      for (const ch of now.chains) {
        assert.doesNotMatch(ch, /^(endpoint|service|external)-[A-Z0-9]{8}-/, `${f}: upstream's per-Service chain ${ch} is left`);
        assert.doesNotMatch(ch, /pre-dnat/, `${f}: upstream's base chain ${ch} is left`);
      }
    }
    assert.ok(!tableObjects(c.topo.node, 'ip').chains.includes(upstreamEndpointChain(upstreamServices(c.topo)[0], c.topo.pods[0].ip)));
  });

  it('serves a ClusterIP and a NodePort after the switch', async () => {
    await waitForAnswer(c, 'tcp', '100.100.7.10', 80);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.7.10', 80, 30))].sort(), ALL_PODS);
    await waitForAnswer(c, 'tcp', NODE_IP, 30087);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', NODE_IP, 30087, 30))].sort(), ALL_PODS);
  });

  it('keeps a TCP connection opened through upstream\'s rules working (conntrack holds its DNAT and masquerade)', async () => {
    assert.equal(await held.exchange('after'), `pod0 ${NODE_POD_SIDE_IP} after`);
  });

  it('leaves the same table as a proxy started on a node without upstream\'s rules', async () => {
    const adopted = { ip: tableObjects(c.topo.node, 'ip'), ip6: tableObjects(c.topo.node, 'ip6') };
    await c.restartProxy(() => {
      c.topo.node.nft('delete', 'table', 'ip', 'kube-proxy');
      c.topo.node.nft('delete', 'table', 'ip6', 'kube-proxy');
    });
    await firstSync(c);
    await waitForAnswer(c, 'tcp', '100.100.7.10', 80);
    for (const f of ['ip', 'ip6'] as const) {
      const fresh = tableObjects(c.topo.node, f);
      assert.deepEqual(withoutContents(adopted[f]), withoutContents(fresh), `${f}: objects after adoption vs a fresh start`);
      assert.deepEqual(adopted[f].contents, fresh.contents, `${f}: rules and elements after adoption vs a fresh start`);
    }
  });
});
