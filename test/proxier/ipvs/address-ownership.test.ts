// Issue 36, "One address, one owner", in the IPVS mode: Service V (ClusterIP X port 80, one
// endpoint) and a Service C claiming X:80 by (a) an externalIP, (b) a LoadBalancer ingress IP,
// (c) a duplicate ClusterIP. Real V1 objects go through ProxyState (core/address-ownership decides),
// the snapshot and change set through IpvsProxier.sync on the fake IPVS kernel and the real helper
// table on the fake nftables kernel. C's name sorts before V's, so the mode's own tie-break (first by
// key, ownership.ts) would hand X:80 to C: only the snapshot keeps it with V.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { V1Service } from '@kubernetes/client-node';
import { ProxyState } from '../../../src/core/proxy-state';
import { FakeKernel } from '../../../src/native/testing/fake-kernel';
import { IpvsHelperTable } from '../../../src/proxier/ipvs/helper-table';
import { recordingLogger, service, slice, sliceEndpoint } from '../../core/fixtures';
import { boundAddresses, ipvsText, opsSince, setup } from './helpers';

const X = '10.96.0.10';
const V_CREATED = '2026-01-01T00:00:10Z';

function svc(name: string, created: string, spec: Partial<NonNullable<V1Service['spec']>>, status?: V1Service['status']): V1Service {
  const s = service(name, spec, status ? { status } : {});
  s.metadata!.creationTimestamp = created as unknown as Date;
  s.metadata!.uid = `uid-${name}`;
  return s;
}

const victim = (): V1Service => svc('victim', V_CREATED, { clusterIP: X, clusterIPs: [X] });
const epSlice = (name: string, ip: string) => slice(`${name}-1`, name, [sliceEndpoint(ip)]);

interface Case {
  name: string;
  /** C, claiming X:80; `other` is an address of C's own that must keep working. */
  claimer: () => V1Service;
  other: string;
}

const CASES: Case[] = [
  {
    name: '(a) an externalIP equal to V\'s ClusterIP, C older (a ClusterIP beats an external IP whatever the age)',
    claimer: () => svc('a-claim', '2026-01-01T00:00:00Z', { clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'], externalIPs: [X] }),
    other: '10.96.0.20',
  },
  {
    name: '(b) a LoadBalancer ingress IP equal to V\'s ClusterIP, C older',
    claimer: () => svc('a-claim', '2026-01-01T00:00:00Z', {
      type: 'LoadBalancer', clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'],
      ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 }],
    }, { loadBalancer: { ingress: [{ ip: X }] } }),
    other: '10.96.0.20',
  },
  {
    name: '(c) a duplicate ClusterIP, C created 1 s after V (the older Service wins)',
    claimer: () => svc('a-claim', '2026-01-01T00:00:11Z', { clusterIP: X, clusterIPs: [X], externalIPs: ['203.0.113.7'] }),
    other: '203.0.113.7',
  },
];

function world() {
  const state = new ProxyState({ nodeName: 'node1', ipFamilies: ['IPv4'], log: recordingLogger(), startTime: new Date(0) });
  const kernel = new FakeKernel();
  const helperTable = new IpvsHelperTable({ nft: kernel.open(), families: ['ip'] });
  const s = setup({ helperTable, families: ['IPv4'] });
  const sync = async (full = false): Promise<void> => {
    const t = state.takeChanges();
    const r = await s.proxier.sync(t.snapshot, t.changes, full);
    assert.ok(r.ok, String(r.error));
  };
  /** `set elem` for every element of the ip helper table. */
  const elements = (): string[] => kernel.listRuleset({ family: 'ip', table: 'kube-proxy-ipvs' }).split('\n')
    .map((l) => /^add element ip kube-proxy-ipvs (\S+) \{ (.*) \}$/.exec(l)).filter((m) => m !== null)
    .flatMap((m) => m[2].split(', ').map((e) => `${m[1]} ${e}`));
  /** The virtual services on X or C's other address. */
  const on = async (...addrs: string[]): Promise<string[]> => (await ipvsText(s.ipvs)).filter((l) => addrs.some((a) => l.includes(` ${a}:`)));
  return { state, s, sync, elements, on };
}

describe('one address, one owner: the IPVS mode programs only the owner of X:80', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      const w = world();
      w.state.onService('add', victim());
      w.state.onEndpointSlice('add', epSlice('victim', '10.1.0.5'));
      await w.sync(true);
      assert.deepEqual(await w.on(X), [`TCP ${X}:80 rr -> 10.1.0.5:8080 w1`]);

      // C appears with its own pod: a partial sync.
      w.state.onService('add', c.claimer());
      w.state.onEndpointSlice('add', epSlice('a-claim', '10.1.0.9'));
      await w.sync();
      assert.deepEqual(await w.on(X, c.other), [`TCP ${c.other}:80 rr -> 10.1.0.9:8080 w1`, `TCP ${X}:80 rr -> 10.1.0.5:8080 w1`].sort());

      // V's endpoint moves (a rollout): a partial sync touching V only.
      w.state.onEndpointSlice('update', epSlice('victim', '10.1.0.6'));
      const before = w.s.ipvs.batches.length;
      await w.sync();
      assert.deepEqual(opsSince(w.s.ipvs, before), [
        `addDest TCP ${X}:80 -> 10.1.0.6:8080 w1`, `editDest TCP ${X}:80 -> 10.1.0.5:8080 w0`,
      ]);
      const moved = [`TCP ${c.other}:80 rr -> 10.1.0.9:8080 w1`, `TCP ${X}:80 rr -> 10.1.0.5:8080 w0 10.1.0.6:8080 w1`].sort();
      assert.deepEqual(await w.on(X, c.other), moved);
      assert.ok((await boundAddresses(w.s.rtnl)).includes(X));
      const xElements = w.elements().filter((e) => e.includes(`${X} `) || e.endsWith(` ${X}`));
      assert.deepEqual(xElements.sort(), [`cluster-ips ${X} . tcp . 80`, `ipvs-ips ${X}`, `service-ips ${X} . tcp . 80`]);
      assert.deepEqual(w.s.log.lines.filter((l) => /Several ServicePorts/.test(l.msg)), [], 'no contest left to the mode');

      // A full sync changes nothing but ends the drained server (it has no connection); the next one
      // finds the kernel as desired.
      let mark = w.s.ipvs.batches.length;
      await w.sync(true);
      assert.deepEqual(opsSince(w.s.ipvs, mark), [`deleteDest TCP ${X}:80 -> 10.1.0.5:8080`]);
      mark = w.s.ipvs.batches.length;
      await w.sync(true);
      assert.deepEqual(opsSince(w.s.ipvs, mark), []);
      assert.deepEqual(await w.on(X, c.other), [`TCP ${c.other}:80 rr -> 10.1.0.9:8080 w1`, `TCP ${X}:80 rr -> 10.1.0.6:8080 w1`].sort());

      // C without endpoints: C's own addresses reject, the address it lost does not.
      w.state.onEndpointSlice('delete', epSlice('a-claim', '10.1.0.9'));
      await w.sync();
      const rejects = w.elements().filter((e) => e.startsWith('no-endpoint-services '));
      assert.deepEqual(rejects, [`no-endpoint-services ${c.other} . tcp . 80`]);
      w.state.onEndpointSlice('add', epSlice('a-claim', '10.1.0.9'));
      await w.sync();

      // V goes: C now owns X:80 (its claim is no longer refused; V's server drains) and the address stays bound.
      w.state.onService('delete', victim());
      w.state.onEndpointSlice('delete', epSlice('victim', '10.1.0.6'));
      await w.sync();
      assert.deepEqual(await w.on(X, c.other), [`TCP ${c.other}:80 rr -> 10.1.0.9:8080 w1`, `TCP ${X}:80 rr -> 10.1.0.6:8080 w0 10.1.0.9:8080 w1`].sort());
      assert.ok((await boundAddresses(w.s.rtnl)).includes(X));

      // C goes too: nothing on X, and X is no longer bound.
      w.state.onService('delete', c.claimer());
      await w.sync();
      assert.deepEqual(await w.on(X, c.other), []);
      assert.deepEqual(await boundAddresses(w.s.rtnl), []);
      assert.deepEqual(w.elements().filter((e) => e.includes(X)), []);
    });
  }

  it('(c) with C older than V: V loses its ClusterIP, programs nothing on X, and gets it back when C goes', async () => {
    const w = world();
    w.state.onService('add', victim());
    w.state.onEndpointSlice('add', epSlice('victim', '10.1.0.5'));
    await w.sync(true);
    const older = () => svc('z-claim', '2026-01-01T00:00:00Z', { clusterIP: X, clusterIPs: [X] });
    w.state.onService('add', older());
    w.state.onEndpointSlice('add', epSlice('z-claim', '10.1.0.9'));
    await w.sync();
    // V's server drains (its open connections keep going), new connections go to C's pod only.
    assert.deepEqual(await w.on(X), [`TCP ${X}:80 rr -> 10.1.0.5:8080 w0 10.1.0.9:8080 w1`]);
    w.state.onEndpointSlice('update', epSlice('victim', '10.1.0.6'));
    await w.sync();
    assert.deepEqual(await w.on(X), [`TCP ${X}:80 rr -> 10.1.0.9:8080 w1`], 'V\'s rollout touches nothing on X');
    w.state.onService('delete', older());
    await w.sync();
    assert.deepEqual(await w.on(X), [`TCP ${X}:80 rr -> 10.1.0.6:8080 w1 10.1.0.9:8080 w0`], 'C\'s server drains');
    assert.deepEqual(await boundAddresses(w.s.rtnl), [X]);
  });
});
