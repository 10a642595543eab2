// The fakes the IPVS proxier is tested with answer as the kernel does (ip_vs_ctl.c's errnos,
// rtnetlink's for addresses), apply batches op by op, and inject faults where told.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeIpvs, FakeRtnl } from '../../../src/native/testing';
import type { IpvsDestination, IpvsService } from '../../../src/native/ipvs/ipvs-types';

const svc = (address = '10.96.0.10', port = 80, over: Partial<IpvsService> = {}): IpvsService => ({
  family: address.includes(':') ? 6 : 4, protocol: 'TCP', address, port, scheduler: 'rr', flags: 0, timeout: 0,
  prefixLength: address.includes(':') ? 128 : 32, ...over,
});
const dest = (address: string, port = 8080, weight = 1): IpvsDestination => ({ address, port, family: address.includes(':') ? 6 : 4, weight, forward: 'masq' });

describe('FakeIpvs', () => {
  it('maps each refused op to its index with the kernel errno, applying the others', async () => {
    const ipvs = new FakeIpvs();
    const s = svc();
    const r = await ipvs.apply([
      { op: 'addService', service: s },
      { op: 'addService', service: s },
      { op: 'addDest', service: s, dest: dest('10.1.0.5') },
      { op: 'addDest', service: s, dest: dest('10.1.0.5') },
      { op: 'editDest', service: s, dest: dest('10.1.0.6') },
      { op: 'deleteDest', service: s, dest: dest('10.1.0.7') },
      { op: 'editService', service: svc('10.96.0.11') },
      { op: 'deleteService', service: svc('10.96.0.11') },
      { op: 'addDest', service: svc('10.96.0.11'), dest: dest('10.1.0.5') },
      { op: 'addService', service: svc('10.96.0.12', 80, { scheduler: 'nope' }) },
      { op: 'addDest', service: s, dest: dest('fd00::5') },
    ]);
    assert.deepEqual(r.errors.map((e) => [e.index, e.code]), [
      [1, 'EEXIST'], [3, 'EEXIST'], [4, 'ENOENT'], [5, 'ENOENT'], [6, 'ESRCH'], [7, 'ESRCH'], [8, 'ESRCH'], [9, 'ENOENT'], [10, 'EINVAL'],
    ]);
    assert.equal(r.applied, 2);
    assert.equal(r.errors[1].message, 'addDest TCP 10.96.0.10:80 -> 10.1.0.5:8080: EEXIST');
    const [dumped] = await ipvs.dump();
    assert.equal(dumped.flags & 2, 2, 'a dump reports HASHED');
    assert.deepEqual(dumped.destinations.map((d) => [d.address, d.weight, d.activeConns]), [['10.1.0.5', 1, 0]]);
  });

  it('keeps connection counts across an edit, injects faults, rejects a whole batch', async () => {
    const ipvs = new FakeIpvs();
    const s = svc('fd00::10', 443);
    await ipvs.apply([{ op: 'addService', service: s }, { op: 'addDest', service: s, dest: dest('fd00:1::5') }]);
    ipvs.setConnections(s, dest('fd00:1::5'), { active: 2, inactive: 1 });
    await ipvs.apply([{ op: 'editDest', service: s, dest: dest('fd00:1::5', 8080, 0) }]);
    const [d] = await ipvs.dumpDestinations(s);
    assert.deepEqual([d.weight, d.activeConns, d.inactiveConns], [0, 2, 1]);
    ipvs.inject({ errno: 'ENOMEM', at: /deleteDest/ });
    const r = await ipvs.apply([{ op: 'addService', service: svc() }, { op: 'deleteDest', service: s, dest: dest('fd00:1::5') }]);
    assert.deepEqual(r.errors.map((e) => [e.index, e.code]), [[1, 'ENOMEM']]);
    assert.equal((await ipvs.dumpDestinations(s)).length, 1, 'the refused delete left the dest');
    ipvs.rejectNextApply('ENOBUFS');
    await assert.rejects(ipvs.apply([{ op: 'deleteService', service: s }]), (e: Error & { code: string }) => e.code === 'ENOBUFS');
    assert.equal(ipvs.size, 2, 'a rejected batch applied nothing');
    await assert.rejects(ipvs.dumpDestinations(svc('10.0.0.99')), (e: Error & { code: string }) => e.code === 'ENOENT');
    assert.equal(ipvs.calls.apply, 4);
    assert.equal(ipvs.calls.dumpDestinations, 3);
  });
});

describe('FakeRtnl', () => {
  it('creates kube-ipvs0 once, down; refuses a link of another kind', async () => {
    const rtnl = new FakeRtnl();
    rtnl.addLink('eth0', 'veth', true);
    const a = await rtnl.ensureDummyLink('kube-ipvs0');
    const b = await rtnl.ensureDummyLink('kube-ipvs0');
    assert.deepEqual([a.created, b.created, a.up, a.index === b.index], [true, false, false, true]);
    await assert.rejects(rtnl.ensureDummyLink('eth0'), (e: Error & { code: string }) => e.code === 'EEXIST' && /veth/.test(e.message));
  });

  it('answers address ops as the kernel does, and lists one link or all', async () => {
    const rtnl = new FakeRtnl();
    const link = await rtnl.ensureDummyLink('kube-ipvs0');
    const at = (address: string) => ({ linkIndex: link.index, family: (address.includes(':') ? 6 : 4) as 4 | 6, address, prefixLength: address.includes(':') ? 128 : 32 });
    const r = await rtnl.applyAddresses([
      { op: 'add', address: at('10.96.0.10') }, { op: 'add', address: at('10.96.0.10') },
      { op: 'delete', address: at('10.96.0.11') }, { op: 'add', address: { ...at('fd00::1'), linkIndex: 99 } },
      { op: 'add', address: at('fd00::10') },
    ]);
    assert.deepEqual(r.errors.map((e) => [e.index, e.code]), [[1, 'EEXIST'], [2, 'EADDRNOTAVAIL'], [3, 'ENODEV']]);
    assert.deepEqual((await rtnl.addresses(link.index)).map((a) => a.address), ['10.96.0.10', 'fd00::10']);
    assert.deepEqual((await rtnl.addresses()).map((a) => a.address), ['127.0.0.1', '::1', '10.96.0.10', 'fd00::10']);
    assert.equal(await rtnl.deleteLink('kube-ipvs0'), true);
    assert.equal(await rtnl.deleteLink('kube-ipvs0'), false);
    assert.deepEqual((await rtnl.addresses()).map((a) => a.address), ['127.0.0.1', '::1']);
  });
});
