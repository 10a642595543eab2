// Issue 36, "One address, one owner", in the IPVS mode with real packets: Service V (ClusterIP X,
// port 80, one endpoint) and a Service C claiming X:80 by (a) an externalIP, (b) a LoadBalancer
// ingress IP, (c) a duplicate ClusterIP, each with a pod and an address of its own. Then V's endpoint
// moves to another pod (a rollout). V's clients on X:80 must reach V's pods only; C keeps its other
// addresses. The three cases share one proxy start (a guest boot and first sync cost minutes). C's
// name sorts before V's: the mode's own tie-break between ServicePorts wanting one virtual service
// (first by key, ownership.ts) would give X:80 to C; core/address-ownership keeps it with V.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { answeredBy, Cluster, eventually } from '../traffic/harness';
import { endpointSlice, service, type PortSpec, type ServiceSpec } from '../traffic/fixtures';
import { NODE_IP } from '../helpers/topology';
import { answerWithin, startIpvsCluster } from './ipvs-cluster';
import { probeMany, type Probe } from './ipvs-probes';
import { realServers, section, weights } from './ipvs-table';

const PORTS: PortSpec[] = [{ port: 80, targetPort: 8080 }];
const V_CREATED = '2026-01-01T00:00:10Z';

interface Case {
  id: string;
  /** V's ClusterIP, which C claims. */
  x: string;
  /** C's Service; `other` its own address (and port) that must keep answering. */
  claimer: ServiceSpec;
  created: string;
  other: { host: string; port: number }[];
}

const CASES: Case[] = [
  {
    // A ClusterIP beats an external IP whatever the age: C is made the older one.
    id: 'a', x: '100.100.36.10', created: '2020-01-01T00:00:00Z',
    claimer: { clusterIP: '100.100.36.11', externalIPs: ['100.100.36.10'], ports: PORTS },
    other: [{ host: '100.100.36.11', port: 80 }],
  },
  {
    id: 'b', x: '100.100.36.20', created: '2020-01-01T00:00:00Z',
    claimer: { type: 'LoadBalancer', clusterIP: '100.100.36.21', loadBalancerIPs: ['100.100.36.20'], ports: [{ port: 80, targetPort: 8080, nodePort: 30036 }] },
    other: [{ host: '100.100.36.21', port: 80 }, { host: NODE_IP, port: 30036 }],
  },
  {
    // Two ClusterIPs: the older Service wins, so C is made 1 s younger than V.
    id: 'c', x: '100.100.36.30', created: '2026-01-01T00:00:11Z',
    claimer: { clusterIP: '100.100.36.30', externalIPs: ['203.0.113.36'], ports: PORTS },
    other: [{ host: '203.0.113.36', port: 80 }],
  },
];

function withCreated<T extends { metadata: Record<string, unknown> }>(obj: T, created: string): T {
  obj.metadata.creationTimestamp = created;
  return obj;
}

describe('the IPVS mode: one address, one owner (issue 36)', () => {
  let c: Cluster;
  const log: string[] = [];
  const logged = (): string => log.filter((l) => !/"level":"(debug|info)"/i.test(l)).slice(-30).join('');
  before(async () => {
    c = await startIpvsCluster({ pods: 3, prefix: 'kpo', logLines: log });
  });
  after(async () => { await c?.stop(); });

  const ipvsadm = (): string => c.topo.node.exec('ipvsadm', ['-Ln']);
  /** pod0: V's endpoint before the rollout, pod1: after, pod2: C's. */
  const pod = (i: number) => c.topo.pods[i];
  const victimSlice = (k: Case, i: number) => endpointSlice(`victim-${k.id}`, `victim-${k.id}-1`, { ports: PORTS, endpoints: [{ ip: pod(i).ip }] });
  const xProbes = (count: number): Probe[] => CASES.map((k) => ({ proto: 'tcp', host: k.x, port: 80, count }));
  const otherProbes = (count: number): Probe[] => CASES.flatMap((k) => k.other.map((o) => ({ proto: 'tcp' as const, ...o, count })));
  const figures = (what: string, lines: string[][]) => {
    const all = lines.flat();
    process.stdout.write(`${what}: ${all.length} probes, answers ${JSON.stringify([...answeredBy(all)].sort())}, `
      + `per target ${JSON.stringify(lines.map((l) => [...answeredBy(l)].sort().join('+') || l[0]))}\n`);
  };

  it('serves each V on its ClusterIP from its one pod', async () => {
    for (const k of CASES) {
      c.api.create('services', withCreated(service(`victim-${k.id}`, { clusterIP: k.x, ports: PORTS }), V_CREATED));
      c.api.create('endpointslices', victimSlice(k, 0));
    }
    for (const k of CASES) await answerWithin(c, 'tcp', k.x, 80);
    const lines = probeMany(c.topo.client, xProbes(6));
    figures('before the claims', lines);
    for (const l of lines) assert.deepEqual([...answeredBy(l)], ['pod0'], l.join('\n'));
  });

  it('keeps X:80 with V when C claims it, while C answers on its own addresses', async () => {
    for (const k of CASES) {
      c.api.create('services', withCreated(service(`a-claim-${k.id}`, k.claimer), k.created));
      c.api.create('endpointslices', endpointSlice(`a-claim-${k.id}`, `a-claim-${k.id}-1`, { ports: k.claimer.ports, endpoints: [{ ip: pod(2).ip }] }));
    }
    for (const k of CASES) for (const o of k.other) await answerWithin(c, 'tcp', o.host, o.port);
    const xs = probeMany(c.topo.client, xProbes(6));
    const others = probeMany(c.topo.client, otherProbes(4));
    figures('after the claims, X', xs);
    figures('after the claims, C\'s own addresses', others);
    const table = ipvsadm();
    for (const l of xs) assert.deepEqual([...answeredBy(l)], ['pod0'], `${l.join('\n')}\n${table}\n${logged()}`);
    for (const l of others) assert.deepEqual([...answeredBy(l)], ['pod2'], `${l.join('\n')}\n${table}`);
  });

  it('sends V\'s clients on X:80 to V\'s new pod only after V\'s endpoint moves; C keeps answering on its own addresses', async () => {
    for (const k of CASES) c.api.update('endpointslices', victimSlice(k, 1));
    for (const k of CASES) {
      await eventually(() => c.topo.probe('tcp', k.x, 80, 1, { timeoutMs: 500 })[0].startsWith('pod1 '),
        () => `${k.x}:80 to answer from pod1\n${ipvsadm()}\n${logged()}`, 30_000);
    }
    const xs = probeMany(c.topo.client, xProbes(12));
    const others = probeMany(c.topo.client, otherProbes(4));
    figures('after the rollout, X', xs);
    figures('after the rollout, C\'s own addresses', others);
    const table = ipvsadm();
    process.stdout.write(`ipvsadm -Ln after the rollout:\n${table}\n`);
    for (const l of xs) assert.deepEqual(l.map((x) => x.split(' ')[0]), Array(12).fill('pod1'), `${l.join('\n')}\n${table}\n${logged()}`);
    for (const l of others) assert.deepEqual([...answeredBy(l)], ['pod2'], `${l.join('\n')}\n${table}`);
    for (const k of CASES) {
      const block = section(table, `TCP  ${k.x}:80 `);
      // V's old server may still be draining at weight 0 until a later sync finds it idle; C's pod is never there.
      assert.ok(!realServers(block).includes(`${pod(2).ip}:8080`), block);
      assert.deepEqual(weights(block).filter((w) => !w.endsWith(' 0')), [`${pod(1).ip}:8080 1`], block);
      assert.ok(realServers(block).every((s) => s === `${pod(0).ip}:8080` || s === `${pod(1).ip}:8080`), block);
    }
    for (const o of CASES.flatMap((k) => k.other)) {
      const block = section(table, `TCP  ${o.host}:${o.port} `);
      assert.deepEqual(realServers(block), [`${pod(2).ip}:8080`], block);
    }
  });
});
