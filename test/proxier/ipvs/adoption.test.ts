// Start-up adoption: what an earlier run (or upstream's IPVS mode) left is taken as ours when it is
// on kube-ipvs0 or a node IP, never in excludeCIDRs; the first full sync changes only what differs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FakeIpvs, FakeRtnl } from '../../../src/native/testing';
import { IpvsProxier } from '../../../src/proxier/ipvs';
import type { IpvsService } from '../../../src/native/ipvs/ipvs-types';
import { boundAddresses, changed, ep, ipvsText, opsSince, RecordingHelperTable, recordingLog, setup, snapshot, sp } from './helpers';

const svc = (address: string, port = 80, over: Partial<IpvsService> = {}): IpvsService =>
  ({ family: 4, protocol: 'TCP', address, port, scheduler: 'rr', flags: 0, timeout: 0, prefixLength: 32, ...over });
const dest = (address: string, weight = 1) => ({ address, port: 8080, family: 4 as const, weight, forward: 'masq' as const });

/** What upstream's IPVS mode leaves: kube-ipvs0 with its VIPs, services on them and on node IPs. */
function leftBehind(ipvs: FakeIpvs, rtnl: FakeRtnl): void {
  rtnl.addLink('kube-ipvs0', 'dummy');
  for (const a of ['10.96.0.10', '10.96.0.99', '10.200.0.1']) rtnl.addAddress('kube-ipvs0', a, 32);
  void ipvs.apply([
    { op: 'addService', service: svc('10.96.0.10', 80, { flags: 2 }) },
    { op: 'addDest', service: svc('10.96.0.10'), dest: dest('10.1.0.5') },
    { op: 'addDest', service: svc('10.96.0.10'), dest: dest('10.1.0.9', 0) },
    { op: 'addService', service: svc('10.96.0.99') },
    { op: 'addDest', service: svc('10.96.0.99'), dest: dest('10.1.0.7') },
    { op: 'addService', service: svc('10.0.0.1', 30099) },
    { op: 'addService', service: svc('192.0.2.50') },
    { op: 'addService', service: svc('10.200.0.1') },
  ]);
  ipvs.setConnections(svc('10.96.0.10'), dest('10.1.0.9'), { active: 1 });
}

describe('adoption at start-up', () => {
  it('changes only what differs: right services untouched, stale ones removed, foreign and excluded ones left', async () => {
    const s = setup({ excludeCIDRs: ['10.200.0.0/16'] }, leftBehind);
    const from = s.ipvs.batches.length;
    const r = await s.proxier.sync(snapshot([[sp('a'), [ep('10.1.0.5')]]]), changed([]), false);
    assert.deepEqual(r, { full: true, ok: true }, 'the first sync is a full one whatever is asked');
    assert.deepEqual(opsSince(s.ipvs, from), ['deleteService TCP 10.96.0.99:80', 'deleteService TCP 10.0.0.1:30099']);
    assert.deepEqual(s.rtnl.batches.at(-1)?.map((o) => `${o.op} ${o.address.address}`), ['delete 10.96.0.99']);
    assert.deepEqual(await ipvsText(s.ipvs), [
      'TCP 10.200.0.1:80 rr', 'TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w1 10.1.0.9:8080 w0', 'TCP 192.0.2.50:80 rr',
    ]);
    assert.deepEqual(await boundAddresses(s.rtnl), ['10.200.0.1', '10.96.0.10']);
    assert.equal(s.proxier.drainingCount, 1, 'the weight-0 server an earlier run left drains on');
    assert.deepEqual([s.ipvs.calls.dump - 1, s.rtnl.calls.ensureDummyLink], [1, 1], 'one dump (plus the readback), link ensured once');
    s.ipvs.setConnections(svc('10.96.0.10'), dest('10.1.0.9'), { active: 0 });
    await s.proxier.sync(snapshot([[sp('a'), [ep('10.1.0.5')]]]), changed([]), false);
    assert.deepEqual((await ipvsText(s.ipvs))[1], 'TCP 10.96.0.10:80 rr -> 10.1.0.5:8080 w1', 'drained: no connections');
  });

  it('a restart finds everything right and sends nothing', async () => {
    const s = setup();
    const snap = snapshot([[sp('a', { nodePort: 30080, loadBalancerIPs: ['198.51.100.7'], affinityTimeoutSeconds: 30 }), [ep('10.1.0.5')]],
      [sp('b', { family: 'IPv6' }), [ep('fd00:1::5')]]]);
    await s.proxier.sync(snap, changed([]), true);
    const before = [s.ipvs.batches.length, s.rtnl.batches.length];
    const again = new IpvsProxier({ ipvs: s.ipvs, rtnl: s.rtnl, helperTable: new RecordingHelperTable(), families: ['IPv4', 'IPv6'], scheduler: 'rr',
      excludeCIDRs: [], nodePortAddresses: [], log: recordingLog(), clock: { now: () => 0 } });
    await again.start();
    assert.deepEqual(await again.sync(snap, changed([]), true), { full: true, ok: true });
    assert.deepEqual([s.ipvs.batches.length, s.rtnl.batches.length], before);
  });

  it('a kube-ipvs0 of another kind fails the sync clearly, and nothing is programmed', async () => {
    const s = setup({}, (_ipvs, rtnl) => { rtnl.addLink('kube-ipvs0', 'veth'); });
    const r = await s.proxier.sync(snapshot([[sp('a'), [ep('10.1.0.5')]]]), changed([]), true);
    assert.equal(r.ok, false);
    assert.match(r.error!.message, /kube-ipvs0.*veth/);
    assert.equal(s.ipvs.batches.length, 0);
    assert.ok(s.log.lines.some((l) => l.level === 'error'));
  });

  it('options are checked up front, naming the field', () => {
    const base = setup();
    const make = (over: object) => () => new IpvsProxier({ ipvs: base.ipvs, rtnl: base.rtnl, helperTable: base.helper, families: ['IPv4'], scheduler: '',
      excludeCIDRs: [], nodePortAddresses: [], log: base.log, clock: base.clock, ...over });
    assert.throws(make({ scheduler: 'fastest' }), /options\.scheduler: "fastest"/);
    assert.throws(make({ excludeCIDRs: ['10.0.0.0/33'] }), /options\.excludeCIDRs\[0\]/);
    assert.throws(make({ nodePortAddresses: ['primary', 'x'] }), /options\.nodePortAddresses\[1\]/);
    assert.throws(make({ families: ['ip'] }), /options\.families/);
    assert.throws(make({ gracefulBoundMs: -1 }), /options\.gracefulBoundMs/);
    assert.throws(make({ ipvs: {} }), /options\.ipvs/);
    assert.doesNotThrow(make({ scheduler: 'mh', nodePortAddresses: ['primary', '10.0.0.0/8'] }));
  });
});

describe('kube-ipvs0 deleted under the proxier', () => {
  it('the refused bind (ENODEV) makes the next sync create the link again, re-adopt and bind', async () => {
    const s = setup();
    const a = sp('a');
    await s.proxier.sync(snapshot([[a, [ep('10.1.0.5')]]]), changed([]), true);
    await s.rtnl.deleteLink('kube-ipvs0');
    const b = sp('b', { clusterIP: '10.96.0.20' });
    const snap = snapshot([[a, [ep('10.1.0.5')]], [b, [ep('10.1.0.6')]]]);
    assert.equal((await s.proxier.sync(snap, changed([b.key]), false)).ok, false);
    const r = await s.proxier.sync(snap, changed([]), false);
    assert.deepEqual(r, { full: true, ok: true });
    assert.deepEqual(await boundAddresses(s.rtnl), ['10.96.0.10', '10.96.0.20']);
    assert.equal(s.rtnl.calls.ensureDummyLink, 2);
  });
});
