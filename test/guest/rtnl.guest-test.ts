// RtnlSocket on a kernel with the dummy driver (the IPVS guest, /work/shared/ipvs-guest.md): the
// kube-ipvs0 dummy link created down and found again, its addresses bound (10,000 in one call) and
// dumped, the link deleted, and a link of another kind under that name refused. On a kernel without
// dummy links every test fails at once with "the kernel has no dummy link support".
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { NetlinkError, RtnlSocket } from '../../src/native';
import type { AddressOp } from '../../src/native';
import { createNetns, TestNetns } from '../helpers/netns';

const LINK = 'kube-ipvs0';
let ns: TestNetns;
let rtnl: RtnlSocket;

function addOp(linkIndex: number, address: string): AddressOp {
  const family = address.includes(':') ? 6 : 4;
  return { op: 'add', address: { linkIndex, family, address, prefixLength: family === 4 ? 32 : 128 } };
}

before(() => {
  ns = createNetns('kpn-rtnl-guest');
  rtnl = new RtnlSocket({ netns: ns.path });
});

after(() => {
  rtnl.close();
  ns.destroy();
});

test('ensureDummyLink creates kube-ipvs0 down, then finds it (created: false)', async () => {
  const first = await rtnl.ensureDummyLink(LINK);
  assert.equal(first.created, true);
  assert.equal(first.kind, 'dummy');
  assert.equal(first.up, false);
  const ip = JSON.parse(ns.exec('ip', ['-j', '-d', 'link', 'show', LINK]))[0];
  assert.equal(ip.ifindex, first.index);
  assert.equal(ip.linkinfo.info_kind, 'dummy');
  assert.ok(!ip.flags.includes('UP'), `flags ${ip.flags}`);
  const again = await rtnl.ensureDummyLink(LINK);
  assert.deepEqual(again, { ...first, created: false });
});

test('addresses bound on kube-ipvs0 and dumped; 10,000 in one call', async () => {
  const link = await rtnl.link(LINK);
  assert.ok(link, `${LINK} is missing: the first test could not create it`);
  const few = [addOp(link.index, '10.96.0.1'), addOp(link.index, 'fd00:10:96::1')];
  assert.deepEqual(await rtnl.applyAddresses(few), { applied: 2, errors: [] });
  const info = JSON.parse(ns.exec('ip', ['-j', 'addr', 'show', 'dev', LINK]))[0].addr_info as { local: string; tentative?: boolean }[];
  assert.deepEqual(info.map((a) => a.local).sort(), ['10.96.0.1', 'fd00:10:96::1']);
  assert.ok(info.every((a) => !a.tentative), 'an address is tentative');
  const many: AddressOp[] = [];
  for (let i = 0; i < 10000; i++) many.push(addOp(link.index, i % 2 ? `10.97.${i >> 8}.${i & 255}` : `fd00:10:97::${i.toString(16)}`));
  const t0 = Date.now();
  assert.deepEqual(await rtnl.applyAddresses(many), { applied: 10000, errors: [] });
  const t1 = Date.now();
  const dumped = await rtnl.addresses(link.index);
  console.log(`# guest: 10k addresses added in ${t1 - t0} ms, dumped in ${Date.now() - t1} ms`);
  assert.equal(dumped.length, 10002);
  assert.ok(dumped.some((a) => a.address === 'fd00:10:97::270e' && a.family === 6 && a.prefixLength === 128));
  assert.ok(dumped.some((a) => a.address === '10.97.39.15' && a.family === 4 && a.prefixLength === 32));
  // The node's own addresses: every link, lo's included.
  assert.ok((await rtnl.addresses()).some((a) => a.address === '127.0.0.1' && a.linkIndex === 1));
});

test('deleteLink removes kube-ipvs0 and its addresses; false once gone', async () => {
  assert.equal(await rtnl.deleteLink(LINK), true);
  assert.equal(await rtnl.link(LINK), undefined);
  assert.equal(await rtnl.deleteLink(LINK), false);
  assert.ok(!(await rtnl.addresses()).some((a) => a.address === '10.96.0.1'));
});

test('a link of another kind named kube-ipvs0 is refused, and left alone', async () => {
  ns.exec('ip', ['link', 'add', LINK, 'type', 'veth', 'peer', 'name', 'kpn-peer']);
  await assert.rejects(rtnl.ensureDummyLink(LINK), (e: unknown) => {
    assert.ok(e instanceof NetlinkError, String(e));
    assert.equal(e.code, 'EEXIST');
    assert.match(e.message, /kube-ipvs0 exists and is a 'veth' link, not a dummy/);
    return true;
  });
  assert.equal((await rtnl.link(LINK))?.kind, 'veth');
  assert.equal(await rtnl.deleteLink(LINK), true);
});
