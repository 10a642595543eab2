// kubernetes#74839 with real packets: a client's long-lived TCP connection to a ClusterIP, and one
// ACK from the pod with the right 4-tuple but a sequence number far out of the window
// (inject-out-of-window.py). The node's conntrack marks it INVALID, so it is not un-DNATed: it reaches
// the client from the pod's address, the client answers with a RST for that 4-tuple, and the RST
// resets the pod's side. Upstream's answer, ours: `ct state invalid drop` in filter-forward unless
// nf_conntrack_tcp_be_liberal is set when the proxy starts (then conntrack takes out-of-window
// packets other than RSTs as valid and un-DNATs them as usual).
// The client is not masqueraded (its address is in the detect-local CIDR): the reply path is then
// forwarded, as between pods, which is where upstream's rule (and ours) stands.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { applied, eventually, startCluster, type Cluster } from './harness';
import { endpointSlice, service, type PortSpec } from './fixtures';
import { HeldConnection, LineEchoServer } from './held-connection';
import { CLIENT_IP, REPO_ROOT, type Topology } from '../helpers/topology';
import type { TestNetns } from '../helpers/netns';

const INJECTOR = path.join(REPO_ROOT, 'test', 'traffic', 'inject-out-of-window.py');
const VIP = '100.100.9.10';
const PORTS: PortSpec[] = [{ name: 'line', port: 90, targetPort: 9090 }];
const LIBERAL = '/proc/sys/net/netfilter/nf_conntrack_tcp_be_liberal';

function setLiberal(ns: TestNetns, value: 0 | 1): void {
  ns.exec('sh', ['-c', `echo ${value} > ${LIBERAL}`]);
}

/** Starts the injector in the pod's namespace; resolves its result line once it has sent (or timed out). */
async function injectOnNextExchange(pod: TestNetns, held: HeldConnection, text: string): Promise<{ reply: string; injected: string }> {
  const child = spawn('ip', ['netns', 'exec', pod.name, 'python3', INJECTOR, CLIENT_IP, '9090', '10'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const done = new Promise<string>((resolve) => {
    child.stdout!.on('data', (d: Buffer) => { out += d; if (/INJECTED|TIMEOUT/.test(out)) resolve(out); });
    child.on('exit', () => resolve(out));
  });
  await new Promise<void>((resolve) => {
    const check = (): void => { if (out.includes('SNIFFING')) resolve(); };
    child.stdout!.on('data', check);
    check();
  });
  const reply = await held.exchange(text);
  const injected = (await done).trim().split('\n').pop() ?? '';
  return { reply, injected };
}

async function cluster(prefix: string, liberalAtStart: boolean): Promise<{ c: Cluster; server: LineEchoServer }> {
  let server!: LineEchoServer;
  const c = await startCluster({
    // The client counts as a local pod: not masqueraded, as between pods.
    pods: 1, prefix, configYaml: `detectLocal: {clusterCIDRs: ["198.18.0.0/24"]}`,
    async beforeProxy(api, topo: Topology) {
      setLiberal(topo.node, liberalAtStart ? 1 : 0);
      api.create('services', service('held', { clusterIP: VIP, ports: PORTS }));
      api.create('endpointslices', endpointSlice('held', 'held-1', { ports: PORTS, endpoints: [{ ip: topo.pods[0].ip }] }));
      server = await LineEchoServer.start(topo.pods[0].ns, 'pod0', 9090);
    },
  });
  await eventually(async () => (await c.proxy.metrics.syncProxyRulesLastTimestamp.get()).values.some((v) => v.value > 0), 'the first sync');
  await applied(c);
  return { c, server };
}

/** Our filter-forward chain's rules; none when there is no such chain (a liberal conntrack at start-up). */
function forwardRules(c: Cluster): string {
  const table = c.topo.node.nft('list', 'table', 'ip', 'kube-proxy');
  return /\bchain filter-forward \{/.test(table) ? c.topo.node.nft('list', 'chain', 'ip', 'kube-proxy', 'filter-forward') : '';
}

/** A new held connection, its first exchange, then an exchange during which the packet is injected. */
async function heldThroughInjection(c: Cluster): Promise<HeldConnection> {
  const held = await HeldConnection.open(c.topo.client, VIP, 90);
  try {
    assert.equal(await held.exchange('first'), `pod0 ${CLIENT_IP} first`, 'not masqueraded: the pod sees the client');
    const { reply, injected } = await injectOnNextExchange(c.topo.pods[0].ns, held, 'second');
    assert.equal(reply, `pod0 ${CLIENT_IP} second`);
    assert.match(injected, /^INJECTED \d+ \d+ \d+$/);
  } catch (e) {
    held.close();
    throw e;
  }
  // Let the injected packet (and any RST it causes) land before the connection is used again.
  await new Promise((r) => setTimeout(r, 500));
  return held;
}

describe('INVALID packets (kubernetes#74839): nf_conntrack_tcp_be_liberal unset', () => {
  let c: Cluster;
  let server: LineEchoServer;
  before(async () => { ({ c, server } = await cluster('kpiv', false)); });
  after(async () => { server?.stop(); await c?.stop(); });

  it('installs ct state invalid drop, and the connection survives an out-of-window packet', async () => {
    assert.match(forwardRules(c), /ct state invalid drop/);
    const held = await heldThroughInjection(c);
    try {
      assert.equal(await held.exchange('third'), `pod0 ${CLIENT_IP} third`);
      assert.equal(await held.exchange('fourth'), `pod0 ${CLIENT_IP} fourth`);
    } finally {
      held.close();
    }
  });
});

describe('INVALID packets (kubernetes#74839): nf_conntrack_tcp_be_liberal set at start-up', () => {
  let c: Cluster;
  let server: LineEchoServer;
  before(async () => { ({ c, server } = await cluster('kpil', true)); });
  after(async () => { server?.stop(); await c?.stop(); });

  it('installs no drop rule, as upstream; liberal conntrack un-DNATs the packet and the connection survives', async () => {
    assert.doesNotMatch(forwardRules(c), /invalid/);
    const held = await heldThroughInjection(c);
    try {
      assert.equal(await held.exchange('third'), `pod0 ${CLIENT_IP} third`);
    } finally {
      held.close();
    }
  });

  it('without the rule and with a strict conntrack (sysctl cleared after start-up) the same packet kills the connection', async () => {
    setLiberal(c.topo.node, 0);
    assert.doesNotMatch(forwardRules(c), /invalid/, 'the proxy read the sysctl at start-up only, as upstream');
    const held = await heldThroughInjection(c);
    try {
      const after = await held.exchange('third');
      assert.match(after, /^CLOSED ECONNRESET$/, `the client's RST reset the pod's side; got ${after}`);
    } finally {
      held.close();
    }
  });
});
