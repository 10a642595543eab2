// --cleanup's IPVS part on the fake kernel: which virtual services are the mode's, what stays, and
// when kube-ipvs0 must stay (the real kernel: test/guest/ipvs-mode.guest-test.ts).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { cleanupIpvs, ownedServices } from '../../src/cleanup/ipvs';
import { FakeIpvs, FakeRtnl } from '../../src/native/testing';
import type { IpvsService } from '../../src/native/ipvs/ipvs-types';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

const svc = (address: string, port: number): IpvsService => ({
  family: address.includes(':') ? 6 : 4, protocol: 'TCP', address, port, scheduler: 'rr', flags: 0, timeout: 0, prefixLength: address.includes(':') ? 128 : 32,
});

async function kernel(services: IpvsService[]): Promise<{ ipvs: FakeIpvs; rtnl: FakeRtnl }> {
  const ipvs = new FakeIpvs();
  const r = await ipvs.apply(services.map((service) => ({ op: 'addService' as const, service })));
  assert.equal(r.errors.length, 0);
  const rtnl = new FakeRtnl();
  rtnl.addLink('eth0', 'veth', true);
  rtnl.addAddress('eth0', '198.18.0.2', 24);
  rtnl.addLink('kube-ipvs0', 'dummy');
  for (const a of ['10.96.0.10', '10.96.0.11', '172.30.0.5', 'fd00::10']) rtnl.addAddress('kube-ipvs0', a, a.includes(':') ? 128 : 32);
  return { ipvs, rtnl };
}

const listed = async (ipvs: FakeIpvs): Promise<string[]> => (await ipvs.dump()).map((s) => `${s.address}:${s.port}`).sort();

test('ownedServices: on kube-ipvs0 or a node IP, and not excluded', () => {
  const all = [svc('10.96.0.10', 80), svc('198.18.0.2', 30080), svc('192.0.2.9', 80), svc('172.30.0.5', 443)].map((s) => ({ ...s, destinations: [] }));
  const { owned, kept } = ownedServices(all, new Set(['10.96.0.10', '172.30.0.5']), new Set(['198.18.0.2']), ['172.30.0.0/16']);
  assert.deepEqual(owned.map((s) => s.address), ['10.96.0.10', '198.18.0.2']);
  assert.deepEqual(kept.map((s) => s.address), ['192.0.2.9', '172.30.0.5']);
});

test('cleanupIpvs deletes the mode\'s services and kube-ipvs0, and leaves others\' services', async () => {
  const k = await kernel([svc('10.96.0.10', 80), svc('10.96.0.11', 53), svc('fd00::10', 80), svc('198.18.0.2', 30080), svc('192.0.2.9', 80)]);
  const r = await cleanupIpvs({ ...k, excludeCIDRs: [], log: quiet });
  assert.deepEqual(await listed(k.ipvs), ['192.0.2.9:80']);
  assert.equal(r.link, 'deleted');
  assert.equal(await k.rtnl.link('kube-ipvs0'), undefined);
  assert.ok(await k.rtnl.link('eth0'));
  assert.deepEqual(r.keptServices, ['TCP 192.0.2.9:80']);
  assert.equal(r.deletedServices.length, 4);
  assert.deepEqual(r.failed, []);
});

test('cleanupIpvs keeps an excluded service, its address on kube-ipvs0 and so the link; the rest of the link\'s addresses go', async () => {
  const k = await kernel([svc('10.96.0.10', 80), svc('172.30.0.5', 443)]);
  const r = await cleanupIpvs({ ...k, excludeCIDRs: ['172.30.0.0/16'], log: quiet });
  assert.deepEqual(await listed(k.ipvs), ['172.30.0.5:443']);
  assert.equal(r.link, 'kept');
  const link = await k.rtnl.link('kube-ipvs0');
  assert.ok(link);
  assert.deepEqual((await k.rtnl.addresses(link.index)).map((a) => a.address), ['172.30.0.5']);
  assert.deepEqual(r.deletedAddresses.sort(), ['10.96.0.10/32', '10.96.0.11/32', 'fd00::10/128']);
});

test('cleanupIpvs on a kernel without IPVS or kube-ipvs0 finds nothing and fails nothing', async () => {
  const rtnl = new FakeRtnl();
  const r = await cleanupIpvs({ ipvs: undefined, rtnl, excludeCIDRs: [], log: quiet });
  assert.deepEqual(r, { deletedServices: [], keptServices: [], link: 'absent', deletedAddresses: [], failed: [] });
});

test('cleanupIpvs reports a refused delete as a failure, and a service already gone as done', async () => {
  const k = await kernel([svc('10.96.0.10', 80), svc('10.96.0.11', 53)]);
  k.ipvs.inject({ errno: 'ENOMEM', at: /10\.96\.0\.10/ }).inject({ errno: 'ESRCH', at: /10\.96\.0\.11/ });
  const r = await cleanupIpvs({ ...k, excludeCIDRs: [], log: quiet });
  assert.deepEqual(r.failed.map((f) => f.what), ['IPVS service TCP 10.96.0.10:80']);
  assert.deepEqual(r.deletedServices, ['TCP 10.96.0.11:53']);
});
