// The IPVS mode as Services and the proxy change, on a kernel with IPVS: an IPv6 ClusterIP, a UDP
// flow from one source port following its endpoint's replacement, graceful termination of a TCP
// real server with an open connection, the namespace opt-out label, and a restart that adopts the
// kernel's state without recreating it while a client keeps probing. The nftables mode's
// counterparts: test/traffic/cluster-ip, endpoints, namespace-opt-out and restart.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { answeredBy, answers, applied, Cluster, eventually, webInTeamAndDefault } from '../traffic/harness';
import { endpointSlice, namespace, service, type PortSpec } from '../traffic/fixtures';
import { answerWithin as waitForAnswer, firstSync, GUEST_WAIT_MS, startIpvsCluster } from './ipvs-cluster';
import { holdConnection, shortConnections, startKeepAliveServers } from './ipvs-keepalive';
import { probeMany } from './ipvs-probes';
import { realServers, section, weights } from './ipvs-table';

const ALL_PODS = ['pod0', 'pod1', 'pod2'];
const KEEPALIVE_PORT = 9090;

describe('the IPVS mode: IPv6, UDP flows, graceful termination, namespace opt-out, restart', () => {
  let c: Cluster;
  let keepAlive: ChildProcess[] = [];
  before(async () => {
    c = await startIpvsCluster({ pods: 3, prefix: 'kpl' });
    keepAlive = await startKeepAliveServers(c.topo.pods, KEEPALIVE_PORT);
  });
  after(async () => {
    for (const k of keepAlive) k.kill('SIGKILL');
    await c?.stop();
  });

  const ipvsadm = (...extra: string[]): string => c.topo.node.exec('ipvsadm', ['-Ln', ...extra]);
  const vips = (): string => c.topo.node.exec('ip', ['-o', 'addr', 'show', 'dev', 'kube-ipvs0']);
  let scratch = 0;
  /** A change the proxy must sync (a new Service): makes the next sync happen now. */
  const poke = (): void => {
    scratch++;
    c.api.create('services', service(`poke-${scratch}`, { clusterIP: `100.100.9.${scratch}`, ports: [{ port: 80, targetPort: 8080 }] }));
  };
  /** `ipvsadm -Ln --stats` blocks of these virtual services, once two reads 2.5 s apart agree. */
  async function settledStats(vss: string[]): Promise<string[]> {
    const read = (): string[] => { const t = ipvsadm('--stats'); return vss.map((v) => section(t, v)); };
    let last = read();
    return eventually<string[] | undefined>(async () => {
      await new Promise((r) => setTimeout(r, 2500));
      const now = read();
      const same = JSON.stringify(now) === JSON.stringify(last);
      last = now;
      return same ? now : undefined;
    }, () => `the IPVS counters to settle: ${last.join('\n')}`, GUEST_WAIT_MS) as Promise<string[]>;
  }

  /**
   * Waits for syncs until `check` holds right after one: a sync's nextSync() resolves after its
   * conntrack clean-up, so what that sync did is complete.
   */
  async function syncedUntil(check: () => boolean, what: () => string): Promise<void> {
    const deadline = Date.now() + GUEST_WAIT_MS;
    for (;;) {
      const next = c.proxy.nextSync();
      if (check()) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([next, new Promise((r) => { timer = setTimeout(r, deadline - Date.now() + 100); })]);
      clearTimeout(timer);
    }
  }

  it('serves an IPv6 ClusterIP over TCP, the VIP bound to kube-ipvs0', async () => {
    const vip = '2001:db8:100::10';
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080 }];
    c.api.create('services', service('web6', { clusterIP: vip, ports }));
    c.api.create('endpointslices', endpointSlice('web6', 'web6-1', { ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip6 })) }));
    await waitForAnswer(c, 'tcp', vip, 80);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', vip, 80, 12))].sort(), ALL_PODS);
    const block = section(ipvsadm(), 'TCP  [2001:db8:100::10]:80 rr');
    assert.deepEqual(realServers(block), c.topo.pods.map((p) => `[${p.ip6}]:8080`).sort(), ipvsadm());
    assert.match(vips(), /inet6 2001:db8:100::10\/128/);
  });

  it('moves a UDP sender that keeps its source port to the new endpoint right after the sync', async () => {
    const ports: PortSpec[] = [{ port: 53, targetPort: 8080, protocol: 'UDP' }];
    const [pod0, pod1] = c.topo.pods;
    const slice = (ip: string) => endpointSlice('flow', 'flow-1', { ports, endpoints: [{ ip }] });
    c.api.create('services', service('flow', { clusterIP: '100.100.3.13', ports }));
    c.api.create('endpointslices', slice(pod0.ip));
    const sourcePort = 40053;
    assert.match(await waitForAnswer(c, 'udp', '100.100.3.13', 53, { sourcePort }), /^pod0 /);
    assert.match(c.topo.node.exec('conntrack', ['-L', '-p', 'udp', '--sport', String(sourcePort)]), new RegExp(`src=${pod0.ip.replace(/\./g, '\\.')} `));
    assert.match(ipvsadm('-c'), new RegExp(`UDP .*198\\.18\\.0\\.2:${sourcePort}\\s+100\\.100\\.3\\.13:53\\s+${pod0.ip.replace(/\./g, '\\.')}:8080`));

    c.api.update('endpointslices', slice(pod1.ip));
    // Until the sync that deletes pod0's real server (UDP: no graceful termination) has also run its
    // conntrack clean-up: nextSync() resolves after both.
    await syncedUntil(() => realServers(section(ipvsadm(), 'UDP  100.100.3.13:53')).join() === `${pod1.ip}:8080`,
      () => `pod0's real server to go:\n${ipvsadm()}`);
    // No retry: the very next datagram of the same 5-tuple reaches pod1. The stale conntrack flow is gone
    // (the proxy's clean-up, or IPVS's own expiry of connections to a deleted server with
    // expire_nodest_conn=1, which drops their conntrack entries too), and IPVS schedules it anew.
    const next = probeMany(c.topo.client, [{ proto: 'udp', host: '100.100.3.13', port: 53, count: 2, sourcePort }])[0];
    assert.deepEqual(next.map((l) => l.split(' ')[0]), ['pod1', 'pod1'], `${next.join('\n')}\n${ipvsadm('-c')}`);
    const entries = ipvsadm('-c');
    assert.doesNotMatch(entries, new RegExp(`${pod0.ip.replace(/\./g, '\\.')}:8080`), entries);
  });

  it('keeps an open TCP connection to a removed endpoint at weight 0, and deletes the real server once it closes', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: KEEPALIVE_PORT }];
    const vs = 'TCP  100.100.6.10:80 rr';
    const slice = (pods: typeof c.topo.pods) => endpointSlice('keep', 'keep-1', { ports, endpoints: pods.map((p) => ({ ip: p.ip })) });
    c.api.create('services', service('keep', { clusterIP: '100.100.6.10', ports }));
    c.api.create('endpointslices', slice(c.topo.pods));
    await eventually(() => realServers(section(ipvsadm(), vs)).length === 3, () => `three real servers:\n${ipvsadm()}`, GUEST_WAIT_MS);
    const held = await holdConnection(c.topo.client, '100.100.6.10', 80);
    const name = held.greeting.split(' ')[0];
    const gone = c.topo.pods.find((p) => p.name === name)!;
    assert.ok(gone, held.greeting);
    const stay = c.topo.pods.filter((p) => p !== gone);

    c.api.update('endpointslices', slice(stay));
    await eventually(() => weights(section(ipvsadm(), vs)).includes(`${gone.ip}:${KEEPALIVE_PORT} 0`), () => `${name} at weight 0:\n${ipvsadm()}`, GUEST_WAIT_MS);
    assert.match(section(ipvsadm(), vs), new RegExp(`-> ${gone.ip.replace(/\./g, '\\.')}:${KEEPALIVE_PORT}\\s+Masq\\s+0\\s+1\\s`), 'one active connection');
    assert.equal(await held.request(), held.greeting, 'the open connection still reaches its endpoint');
    const fresh = await shortConnections(c.topo.client, '100.100.6.10', 80, 10);
    assert.equal(fresh.length, 10, fresh.join('\n'));
    assert.deepEqual([...answeredBy(fresh)].sort(), stay.map((p) => p.name).sort(), 'new connections go to the others');
    // Syncs meanwhile keep the draining server while its connection is open.
    poke();
    await applied(c);
    assert.ok(weights(section(ipvsadm(), vs)).includes(`${gone.ip}:${KEEPALIVE_PORT} 0`), ipvsadm());
    assert.equal(await held.request(), held.greeting);

    await held.close();
    // The reset leaves IPVS's entry in CLOSE for 10 s (an inactive connection); a sync after that deletes the server.
    await eventually(async () => {
      poke();
      await applied(c);
      return !realServers(section(ipvsadm(), vs)).includes(`${gone.ip}:${KEEPALIVE_PORT}`);
    }, () => `the drained real server to be deleted:\n${ipvsadm()}\n${ipvsadm('-c')}`, 60_000);
    assert.deepEqual(weights(section(ipvsadm(), vs)), stay.map((p) => `${p.ip}:${KEEPALIVE_PORT} 1`).sort());
  });

  it('removes an opted-out namespace\'s virtual services within one sync, and brings them back', async () => {
    const ports: PortSpec[] = [{ port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }];
    await webInTeamAndDefault(c, ports, waitForAnswer);
    c.api.update('namespaces', namespace('team', { 'networking.k8s.io/kube-proxy': 'disabled' }));
    await eventually(() => c.proxy.watcher.disabledNamespaces().includes('team'), 'the proxy to see the label', GUEST_WAIT_MS);
    await applied(c);
    assert.doesNotMatch(ipvsadm(), /100\.100\.4\.10:/);
    assert.doesNotMatch(vips(), /100\.100\.4\.10\//);
    assert.doesNotMatch(c.topo.node.nft('list', 'table', 'ip', 'kube-proxy-ipvs'), /100\.100\.4\.10 /);
    const [optedOut, other, otherUdp] = probeMany(c.topo.client, [
      { proto: 'tcp', host: '100.100.4.10', port: 80, timeoutMs: 500 },
      { proto: 'tcp', host: '100.100.4.11', port: 80 }, { proto: 'udp', host: '100.100.4.11', port: 53 },
    ]);
    assert.deepEqual(answers(optedOut), []);
    assert.equal(answers([...other, ...otherUdp]).length, 2, 'another namespace\'s Service stopped answering');
    assert.match(ipvsadm(), /TCP\s+100\.100\.4\.11:80 rr/);

    c.api.update('namespaces', namespace('team'));
    await waitForAnswer(c, 'tcp', '100.100.4.10', 80);
    await waitForAnswer(c, 'udp', '100.100.4.10', 53);
    assert.match(vips(), /inet 100\.100\.4\.10\/32/);
  });

  it('restarts without a failed request and without recreating an unchanged virtual service', async () => {
    const ports: PortSpec[] = [{ name: 'http', port: 80, targetPort: 8080 }, { name: 'dns', port: 53, targetPort: 8080, protocol: 'UDP' }];
    for (const [name, ip] of [['busy', '100.100.5.10'], ['still', '100.100.5.11']]) {
      c.api.create('services', service(name, { clusterIP: ip, ports }));
      c.api.create('endpointslices', endpointSlice(name, `${name}-1`, { ports, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })) }));
      await waitForAnswer(c, 'tcp', ip, 80);
      await waitForAnswer(c, 'udp', ip, 53);
    }
    c.topo.probe('tcp', '100.100.5.11', 80, 6);
    // The counters of a virtual service and its real servers start at 0 when it is (re)created. The
    // kernel folds its per-CPU counters into what it reports every 2 s (the rate estimator's timer).
    const vss = ['TCP  100.100.5.10:80', 'TCP  100.100.5.11:80', 'UDP  100.100.5.11:53'];
    const statsBefore = await settledStats(vss);
    // Without the connection counts, which the probes below move.
    const shape = (): string => ipvsadm().replace(/(Masq\s+\d+)\s+\d+\s+\d+[ \t]*$/gm, '$1');
    const shapeBefore = shape();
    const vipsBefore = vips();
    assert.match(statsBefore[1], /^TCP\s+100\.100\.5\.11:80\s+[1-9]/, statsBefore[1]);
    const conns = (block: string): number => Number(/^TCP\s+\S+\s+(\d+)/.exec(block)?.[1]);

    const tcp = c.topo.probeUntilStopped('tcp', '100.100.5.10', 80);
    const udp = c.topo.probeUntilStopped('udp', '100.100.5.10', 53);
    await c.restartProxy();
    await firstSync(c);
    await applied(c);
    const tcpLines = await tcp.stop();
    const lines = [...tcpLines, ...await udp.stop()];
    assert.ok(tcpLines.length > 2, `only ${tcpLines.length} TCP requests were sent across the restart`);
    assert.deepEqual(lines.filter((l) => l.startsWith('ERR')), [], 'requests failed across the restart');
    const statsAfter = await settledStats(vss);
    assert.deepEqual(statsAfter.slice(1), statsBefore.slice(1), 'the unchanged virtual services were recreated');
    assert.equal(conns(statsAfter[0]), conns(statsBefore[0]) + tcpLines.length, 'the busy virtual service\'s counter went on (not reset by a recreation)');
    assert.equal(shape(), shapeBefore);
    assert.equal(vips(), vipsBefore);

    // The new proxy's partial syncs work on what it adopted.
    c.api.update('endpointslices', endpointSlice('busy', 'busy-1', { ports, endpoints: c.topo.pods.slice(0, 2).map((p) => ({ ip: p.ip })) }));
    const pod2 = `${c.topo.pods[2].ip}:8080`;
    await eventually(() => {
      const w = weights(section(ipvsadm(), 'TCP  100.100.5.10:80'));
      return w.includes(`${pod2} 0`) || !w.some((x) => x.startsWith(`${pod2} `));
    }, () => `pod2 to drain or go:\n${ipvsadm()}`, GUEST_WAIT_MS);
    assert.deepEqual([...answeredBy(c.topo.probe('tcp', '100.100.5.10', 80, 12))].sort(), ['pod0', 'pod1']);
    assert.deepEqual(realServers(section(ipvsadm(), 'UDP  100.100.5.10:53')), c.topo.pods.slice(0, 2).map((p) => `${p.ip}:8080`).sort());
  });
});
