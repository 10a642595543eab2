// One address, one owner (issue 36), through the whole proxy with real packets. A victim Service V
// has ClusterIP X port 80; another Service C claims X:80 too, as an externalIP, as a LoadBalancer
// ingress IP, or as a duplicate ClusterIP (the API server refuses that, but objects come from many
// sources). Before the fix each kernel map kept its own first claimant, so once V's endpoint moved
// (a rollout) X:80 could lead to C's pod. The rule: a ClusterIP beats an external or LoadBalancer
// IP whatever the ages, otherwise the older Service wins; the loser loses only that key.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NODE_IP } from '../helpers/topology';
import { endpointSlice, service, type PortSpec, type ServiceSpec } from './fixtures';
import { applied, Cluster, eventually, ruleset, startCluster, waitForAnswer } from './harness';
import { tally } from '../helpers/probe-tally';

const PORTS: PortSpec[] = [{ port: 80, targetPort: 8080 }];
const PROBES = 40;
// Ages set on the objects (the test API server keeps a given creationTimestamp): each case says
// which of V and C is older, so the outcome never rests on the second the test ran in.
const OLDER = '2020-01-01T00:00:00Z';
const NEWER = '2024-01-01T00:00:00Z';

interface Collision {
  title: string;
  /** V's ClusterIP, the address both claim. */
  x: string;
  /** C's spec: it claims x:80 and has addresses of its own. */
  claimant: ServiceSpec;
  /** C's own addresses, which must keep answering from C's pod whoever owns x:80. */
  claimantOwn: { host: string; port: number }[];
  victimOlder: boolean;
}

const COLLISIONS: Collision[] = [
  {
    // C is the older Service: age does not matter, a ClusterIP always beats an externalIP.
    title: 'an externalIP equal to V\'s ClusterIP (C older)',
    x: '100.100.36.10',
    claimant: { clusterIP: '100.100.36.11', externalIPs: ['100.100.36.10', '203.0.113.36'], ports: PORTS },
    claimantOwn: [{ host: '100.100.36.11', port: 80 }, { host: '203.0.113.36', port: 80 }],
    victimOlder: false,
  },
  {
    title: 'a LoadBalancer ingress IP equal to V\'s ClusterIP (C older)',
    x: '100.100.36.20',
    claimant: {
      type: 'LoadBalancer', clusterIP: '100.100.36.21', loadBalancerIPs: ['100.100.36.20', '203.0.113.37'],
      ports: [{ port: 80, targetPort: 8080, nodePort: 30836 }],
    },
    claimantOwn: [{ host: '100.100.36.21', port: 80 }, { host: '203.0.113.37', port: 80 }, { host: NODE_IP, port: 30836 }],
    victimOlder: false,
  },
  {
    // Two ClusterIPs: the older Service (V) wins; C keeps its externalIP and NodePort.
    title: 'a duplicate ClusterIP (V older)',
    x: '100.100.36.30',
    claimant: {
      type: 'NodePort', clusterIP: '100.100.36.30', externalIPs: ['203.0.113.38'],
      ports: [{ port: 80, targetPort: 8080, nodePort: 30837 }],
    },
    claimantOwn: [{ host: '203.0.113.38', port: 80 }, { host: NODE_IP, port: 30837 }],
    victimOlder: true,
  },
];

/** A Service object with a given creationTimestamp. */
function aged(name: string, spec: ServiceSpec, created: string): any {
  const o = service(name, spec);
  o.metadata.creationTimestamp = created;
  return o;
}

describe('one address, one owner through the whole proxy (issue 36)', () => {
  let c: Cluster;
  // pod0: V's first pod; pod2: V's pod after its rollout; pod1: C's pod.
  before(async () => { c = await startCluster({ pods: 3, prefix: 'kpo' }); });
  after(async () => { await c?.stop(); });

  const pod = (i: number) => c.topo.pods[i];

  /** Every one of PROBES probes to host:port answered by `name`. */
  function assertOnly(host: string, port: number, name: string, what: string): void {
    const lines = c.topo.probe('tcp', host, port, PROBES);
    assert.deepEqual(tally(lines), { [name]: PROBES }, `${what}: ${host}:${port} answered ${JSON.stringify(tally(lines))}`);
  }

  function assertClaimantServes(k: Collision): void {
    for (const a of k.claimantOwn) assertOnly(a.host, a.port, 'pod1', 'C\'s own address');
  }

  /** Every element of the node's ruleset whose key starts with `x . tcp . 80` (for assertions and their messages). */
  function elementsOf(x: string): string[] {
    return ruleset(c).split(/[,{}\n]/).map((e) => e.trim()).filter((e) => e.startsWith(`${x} . tcp . 80 `));
  }

  /** No endpoint-map element sends X . tcp . 80 to C's pod; one sends it to V's (the maps agree with the answers). */
  function assertKernelAgrees(x: string): void {
    const elements = elementsOf(x);
    const to = (i: number) => elements.filter((e) => new RegExp(`^\\S+ \\. tcp \\. 80 \\. \\d+ : ${pod(i).ip.replace(/\./g, '\\.')} \\.`).test(e));
    assert.deepEqual(to(1), [], `an element sends X:80 to C's pod; X's elements: ${JSON.stringify(elements)}`);
    assert.equal(to(2).length, 1, `no element sends X:80 to V's new pod; X's elements: ${JSON.stringify(elements)}`);
  }

  /** Resolves once V's move off pod0 is in the kernel: pod0 serves V alone, so no element names it any more. */
  async function pod0Gone(): Promise<void> {
    const pod0 = new RegExp(`${pod(0).ip.replace(/\./g, '\\.')}\\b`);
    await eventually(async () => { await applied(c); return !pod0.test(ruleset(c)); }, 'pod0 to leave the ruleset');
  }

  /** Probes x:80 once per poll until `name` answers (the failure names the last reply). */
  async function waitForOwner(x: string, name: string): Promise<void> {
    let last = '';
    await eventually(async () => {
      await applied(c);
      last = c.topo.probe('tcp', x, 80, 1, { timeoutMs: 500 })[0];
      return last.startsWith(`${name} `);
    }, () => `${name} to answer on ${x}:80 (last reply: ${last})`);
  }

  // A case's steps run in order and build on each other; each is a test of its own so that a failure
  // names its step and the later steps still report what V's clients got.
  for (const k of COLLISIONS) {
    describe(`C claims X:80 through ${k.title}`, () => {
      const v = `v${k.x.split('.')[3]}`;
      const claimant = `c${k.x.split('.')[3]}`;
      const vSlice = (i: number) => endpointSlice(v, `${v}-1`, { ports: PORTS, endpoints: [{ ip: pod(i).ip }] });

      it('V answers from its one pod before C exists', async () => {
        c.api.create('services', aged(v, { clusterIP: k.x, ports: PORTS }, k.victimOlder ? OLDER : NEWER));
        c.api.create('endpointslices', vSlice(0));
        await waitForAnswer(c, 'tcp', k.x, 80);
        assertOnly(k.x, 80, 'pod0', 'V before C');
      });

      it('C claims X:80: V keeps X:80, C\'s other addresses answer from C\'s pod', async () => {
        c.api.create('services', aged(claimant, k.claimant, k.victimOlder ? NEWER : OLDER));
        c.api.create('endpointslices', endpointSlice(claimant, `${claimant}-1`, { ports: k.claimant.ports, endpoints: [{ ip: pod(1).ip }] }));
        for (const a of k.claimantOwn) await waitForAnswer(c, 'tcp', a.host, a.port);
        await applied(c);
        assertOnly(k.x, 80, 'pod0', 'V after C claimed X:80');
        assertClaimantServes(k);
      });

      it('V\'s endpoint moves (a rollout): X:80 answers only from V\'s new pod, C\'s addresses from C\'s', async () => {
        c.api.update('endpointslices', vSlice(2));
        await pod0Gone();
        assertOnly(k.x, 80, 'pod2', 'V after its rollout');
        assertClaimantServes(k);
      });

      it('the kernel agrees: no element sends X . tcp . 80 to C\'s pod', (t) => {
        t.diagnostic(`elements of ${k.x} . tcp . 80: ${elementsOf(k.x).join('; ')}`);
        assertKernelAgrees(k.x);
      });

      it('a restarted proxy keeps the same owner', async () => {
        await c.restartProxy();
        await eventually(() => c.proxy.watcher.status().synced, 'the new proxy to list');
        // Its first sync, which writes what it computed from the listing over the adopted ruleset.
        await eventually(async () => ((await c.proxy.metrics.syncProxyRulesLastTimestamp.get()).values[0]?.value ?? 0) > 0, 'the new proxy\'s first sync');
        await applied(c);
        assertOnly(k.x, 80, 'pod2', 'V after a restart');
        assertClaimantServes(k);
        assertKernelAgrees(k.x);
      });

      it('V deleted: nothing refuses C\'s claim any more, so C gets X:80 (the rule), and keeps its other addresses', async () => {
        c.api.delete('endpointslices', vSlice(2));
        c.api.delete('services', service(v, { clusterIP: k.x, ports: PORTS }));
        await waitForOwner(k.x, 'pod1');
        assertOnly(k.x, 80, 'pod1', 'X:80 once V is gone');
        assertClaimantServes(k);
        // Leave nothing for the next case.
        c.api.delete('endpointslices', endpointSlice(claimant, `${claimant}-1`, { ports: k.claimant.ports, endpoints: [] }));
        c.api.delete('services', service(claimant, k.claimant));
      });
    });
  }

  // The owner depends on the objects, never on the order they arrived in: a duplicate ClusterIP that
  // arrives first serves X:80 only until the older Service claiming it appears.
  describe('C\'s duplicate ClusterIP arrives first, the older V later', () => {
    const x = '100.100.36.40';
    const claimantSpec: ServiceSpec = { type: 'NodePort', clusterIP: x, externalIPs: ['203.0.113.39'], ports: [{ port: 80, targetPort: 8080, nodePort: 30838 }] };
    const claimantOwn = [{ host: '203.0.113.39', port: 80 }, { host: NODE_IP, port: 30838 }];
    const vSlice = (i: number) => endpointSlice('v40', 'v40-1', { ports: PORTS, endpoints: [{ ip: pod(i).ip }] });

    it('C alone serves X:80 from its pod', async () => {
      c.api.create('services', aged('c40', claimantSpec, NEWER));
      c.api.create('endpointslices', endpointSlice('c40', 'c40-1', { ports: claimantSpec.ports, endpoints: [{ ip: pod(1).ip }] }));
      await waitForAnswer(c, 'tcp', x, 80);
      assertOnly(x, 80, 'pod1', 'C alone');
    });

    it('the older V arrives: X:80 moves to V\'s pod, C keeps its externalIP and NodePort', async () => {
      c.api.create('services', aged('v40', { clusterIP: x, ports: PORTS }, OLDER));
      c.api.create('endpointslices', vSlice(0));
      await waitForOwner(x, 'pod0');
      assertOnly(x, 80, 'pod0', 'X:80 once the older V exists');
      for (const a of claimantOwn) assertOnly(a.host, a.port, 'pod1', 'C\'s own address');
    });

    it('V\'s endpoint moves: X:80 answers only from V\'s new pod, and the kernel agrees', async () => {
      c.api.update('endpointslices', vSlice(2));
      await pod0Gone();
      assertOnly(x, 80, 'pod2', 'V after its rollout');
      for (const a of claimantOwn) assertOnly(a.host, a.port, 'pod1', 'C\'s own address');
      assertKernelAgrees(x);
    });
  });
});
