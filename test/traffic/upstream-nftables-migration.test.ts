// Migrating between upstream kube-proxy's nftables mode and ours, through the whole proxy, with
// upstream's table written as upstream writes it (upstream-nftables.ts: pkg/proxy/nftables/proxier.go,
// v1.35). Forth: our first sync replaces upstream's table (NftablesProxier's start-up adoption), traffic
// keeps flowing, and a TCP connection opened through upstream's DNAT keeps working (conntrack holds
// its NAT; only a connection's first packet goes through the nat hooks). Back: upstream's full sync
// written over our table, as upstream's start-up does it (it neither lists nor deletes the table):
// refused, so the way back is `kube-proxy-native --cleanup` first, with a gap until upstream's first sync.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, applied, Cluster, eventually, startCluster, waitForAnswer } from './harness';
import { endpointSlice, service, type PortSpec } from './fixtures';
import { HeldConnection, LineEchoServer } from './held-connection';
import { upstreamEndpointChain, upstreamSyncScript, type UpstreamService } from './upstream-nftables';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { NODE_IP, NODE_POD_SIDE_IP, POD_CIDR, POD_CIDR6, REPO_ROOT, type Topology } from '../helpers/topology';
import { withNetns, type TestNetns } from '../helpers/netns';
import type { TestApiServer } from '../apiserver/server';

const WEB: PortSpec[] = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30087 }];
const HELD: PortSpec[] = [{ name: 'line', port: 90, targetPort: 9090 }];
const ALL_PODS = ['pod0', 'pod1', 'pod2'];

function upstreamServices(topo: Pick<Topology, 'pods'>): UpstreamService[] {
  return [
    { namespace: 'default', name: 'web', portName: 'http', clusterIP: '100.100.7.10', port: 80, nodePort: 30087, targetPort: 8080, endpoints: topo.pods.map((p) => p.ip) },
    { namespace: 'default', name: 'held', portName: 'line', clusterIP: '100.100.7.11', port: 90, targetPort: 9090, endpoints: [topo.pods[0].ip] },
  ];
}

/** The API objects of upstreamServices: `web` (NodePort, every pod) and `held` (pod0's line-echo server). */
function createServices(api: TestApiServer, topo: Topology): void {
  for (const [name, ports, pods] of [['web', WEB, topo.pods], ['held', HELD, [topo.pods[0]]]] as const) {
    const ip = name === 'web' ? '100.100.7.10' : '100.100.7.11';
    api.create('services', service(name, { type: name === 'web' ? 'NodePort' : 'ClusterIP', clusterIP: ip, ports }));
    api.create('endpointslices', endpointSlice(name, `${name}-1`, { ports, endpoints: pods.map((p) => ({ ip: p.ip })) }));
  }
}

/** Upstream's full sync of both families, loaded with `nft -f` (what knftables runs). */
function loadUpstream(topo: Pick<Topology, 'node' | 'pods'>): void {
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
        createServices(api, topo);
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

  it('replaces upstream\'s table at the first sync: none of upstream\'s per-Service or pre-DNAT chains is left', async () => {
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

describe('going back from ours to upstream\'s nftables mode', () => {
  let c: Cluster;
  let server: LineEchoServer;
  /** Sends during the gap between our table and upstream's. */
  let held: HeldConnection;
  /** Sends nothing during the gap. */
  let idle: HeldConnection;
  let proxyRunning = true;

  before(async () => {
    c = await startCluster({ pods: 3 });
    createServices(c.api, c.topo);
    server = await LineEchoServer.start(c.topo.pods[0].ns, 'pod0', 9090);
    await waitForAnswer(c, 'tcp', '100.100.7.10', 80);
    held = await HeldConnection.open(c.topo.client, '100.100.7.11', 90);
    idle = await HeldConnection.open(c.topo.client, '100.100.7.11', 90);
    assert.equal(await held.exchange('ours'), `pod0 ${NODE_POD_SIDE_IP} ours`);
    assert.equal(await idle.exchange('ours'), `pod0 ${NODE_POD_SIDE_IP} ours`);
    await c.proxy.stop();
    proxyRunning = false;
  });
  after(async () => {
    held?.close();
    idle?.close();
    server?.stop();
    if (proxyRunning) await c?.proxy.stop();
    await c?.api.stop();
    c?.topo.destroy();
  });

  it('upstream\'s full sync over our table is refused: our no-endpoint-* sets are upstream\'s verdict maps by name', () => {
    const ours = tableObjects(c.topo.node, 'ip');
    assert.ok(ours.sets.includes('set no-endpoint-services'), 'our no-endpoint-services is a plain set');
    // nft (which knftables runs) refuses the whole transaction; upstream would log "nftables sync failed" and retry forever.
    assert.throws(() => loadUpstream(c.topo), /Expression is not a map/);
    assert.deepEqual(tableObjects(c.topo.node, 'ip'), ours, 'our table is as it was');
    // Our rules, left by the stopped proxy, still serve (with the endpoints of its last sync).
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.7.10', 80, 30))].sort(), ALL_PODS);
  });

  it('kube-proxy-native --cleanup removes our tables; with no nat chain left, new connections fail and established ones stall', async () => {
    const run = spawnSync('ip', ['netns', 'exec', c.topo.node.name, process.execPath, path.join(REPO_ROOT, 'bin', 'kube-proxy-native.js'), '--cleanup', '--logging-format=json'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const out = run.stdout + run.stderr;
    assert.match(out, /"table":"ip kube-proxy","msg":"Deleted nftables table"/);
    assert.match(out, /"table":"ip6 kube-proxy","msg":"Deleted nftables table"/);
    assert.doesNotMatch(c.topo.node.nft('list', 'tables'), /kube-proxy/);
    assert.match(c.topo.probe('tcp', '100.100.7.10', 80, 1, { timeoutMs: 500 })[0], /^ERR /);
    // With no rule left that uses conntrack or a nat hook, the kernel neither tracks nor translates
    // in this namespace: the established connection's entry stays (ESTABLISHED), but its packets get
    // no DNAT and are lost. It stalls (no reset, no close).
    assert.equal(await held.exchange('gap', 2000), 'TIMEOUT');
  });

  it('upstream\'s first sync then writes exactly its own table: ClusterIP, NodePort work, the stalled connection resumes, an idle one goes on', async () => {
    loadUpstream(c.topo);
    const intoEmpty = await withNetns((ns) => {
      loadUpstream({ node: ns, pods: c.topo.pods });
      return { ip: tableObjects(ns, 'ip'), ip6: tableObjects(ns, 'ip6') };
    }, 'kpt-up');
    for (const f of ['ip', 'ip6'] as const) assert.deepEqual(tableObjects(c.topo.node, f), intoEmpty[f], `${f}: upstream's table`);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.7.10', 80, 30))].sort(), ALL_PODS);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', NODE_IP, 30087, 30))].sort(), ALL_PODS);
    // Upstream's rules use conntrack (ct state, dnat, masquerade) and hook nat: the kernel tracks and
    // translates again, with the NAT recorded in each flow's entry. TCP's next retransmission of "gap"
    // gets through (it backs off from ~200 ms: the wait covers several).
    assert.equal(await held.nextReply(30_000), `pod0 ${NODE_POD_SIDE_IP} gap`);
    assert.equal(await held.exchange('upstream'), `pod0 ${NODE_POD_SIDE_IP} upstream`);
    // Conntrack kept the idle connection's DNAT and masquerade; the NAT hooks are back with upstream's nat chains.
    assert.equal(await idle.exchange('upstream'), `pod0 ${NODE_POD_SIDE_IP} upstream`);
  });
});

// Upstream's iptables mode (iptables-nft) left in place: its DNAT sits in table `ip nat`, chain
// PREROUTING (nat, prerouting, priority dstnat = -100), the same hook and priority as our
// nat-prerouting. A new connection takes the first DNAT made at that hook, and among chains of equal
// priority the kernel runs the one registered last first (nf_hook_entries_grow inserts a hook before
// those of equal priority): whichever table's chain came last wins.
describe('a leftover iptables-nft DNAT beside ours (same hook, same priority)', () => {
  let c: Cluster;
  /** Upstream iptables' shape for one Service, reduced to one endpoint: pod0. */
  const leftover = (topo: Pick<Topology, 'node' | 'pods'>): void => {
    topo.node.exec('nft', ['-f', '-'], [
      'add table ip nat',
      'add chain ip nat PREROUTING { type nat hook prerouting priority dstnat ; policy accept ; }',
      'add chain ip nat KUBE-SERVICES',
      'add rule ip nat PREROUTING counter jump KUBE-SERVICES',
      `add rule ip nat KUBE-SERVICES ip daddr 100.100.7.10 tcp dport 80 counter dnat to ${topo.pods[0].ip}:8080`,
    ].join('\n'));
  };
  before(async () => {
    c = await startCluster({ pods: 3, beforeProxy: (api, topo) => { createServices(api, topo); leftover(topo); } });
  });
  after(async () => { await c?.stop(); });

  it('the leftover, made before ours, runs second and DNATs nothing', async () => {
    await firstSync(c);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.7.10', 80, 30))].sort(), ALL_PODS);
    assert.match(c.topo.node.nft('list', 'chain', 'ip', 'nat', 'KUBE-SERVICES'), /counter packets 0 bytes 0 dnat/);
  });

  it('made after ours (a tool re-creating table nat), it takes every new connection', () => {
    c.topo.node.nft('delete', 'table', 'ip', 'nat');
    leftover(c.topo);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.7.10', 80, 30))], ['pod0']);
    c.topo.node.nft('delete', 'table', 'ip', 'nat');
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.7.10', 80, 30))].sort(), ALL_PODS);
  });
});
