// RtnlSocket against the host kernel, in a fresh netns per file: links by name, addresses added,
// refused, dumped and deleted in batches on a veth (the host has no dummy driver, which is itself
// asserted), malformed input refused before anything is sent, close while busy.
import assert from 'node:assert/strict';
import { SocketAddress } from 'node:net';
import { after, before, test } from 'node:test';
import { NetlinkError, RtnlSocket } from '../../src/native';
import type { AddressOp, LinkAddress } from '../../src/native';
import { loadAddon } from '../../src/native/addon/addon-loader';
import { encodeAddressOps } from '../../src/native/rtnl/rtnl-encode';
import { createNetns, TestNetns } from '../helpers/netns';

let ns: TestNetns;
let rtnl: RtnlSocket;
let veth: number;

interface IpAddr { family: string; local: string; prefixlen: number; tentative?: boolean; nodad?: boolean; scope: string }
function ipAddrs(dev: string): IpAddr[] {
  const out = JSON.parse(ns.exec('ip', ['-j', 'addr', 'show', 'dev', dev])) as { addr_info: IpAddr[] }[];
  return out[0].addr_info;
}

const add = (linkIndex: number, address: string, prefixLength?: number): AddressOp => {
  const family = address.includes(':') ? 6 : 4;
  return { op: 'add', address: { linkIndex, family, address, prefixLength: prefixLength ?? (family === 4 ? 32 : 128) } };
};
const del = (a: AddressOp): AddressOp => ({ op: 'delete', address: a.address });
const texts = (list: LinkAddress[]) => list.map((a) => `${a.address}/${a.prefixLength}`).sort();

before(async () => {
  ns = createNetns('kpn-rtnl');
  ns.exec('ip', ['link', 'add', 'v0', 'type', 'veth', 'peer', 'name', 'v1']);
  rtnl = new RtnlSocket({ netns: ns.path });
  veth = (await rtnl.link('v0'))!.index;
});

after(() => {
  rtnl.close();
  ns.destroy();
});

test('link(): lo, a veth (kind, down) and a missing name', async () => {
  assert.deepEqual(await rtnl.link('lo'), { index: 1, name: 'lo', kind: '', up: true });
  const v = await rtnl.link('v0');
  assert.equal(v?.kind, 'veth');
  assert.equal(v?.up, false);
  assert.equal(v?.index, Number(JSON.parse(ns.exec('ip', ['-j', 'link', 'show', 'v0']))[0].ifindex));
  assert.equal(await rtnl.link('nope0'), undefined);
  assert.equal(await rtnl.deleteLink('nope0'), false);
});

test('ensureDummyLink() on the host kernel (no dummy driver) rejects saying so, and creates nothing', async () => {
  await assert.rejects(rtnl.ensureDummyLink('kube-ipvs0'), (e: unknown) => {
    assert.ok(e instanceof NetlinkError, String(e));
    assert.equal(e.code, 'EOPNOTSUPP', `${e.message} (a host kernel with dummy links would make this test moot)`);
    assert.match(e.message, /the kernel has no dummy link support/);
    return true;
  });
  assert.equal(await rtnl.link('kube-ipvs0'), undefined);
});

test('addresses: v4 and v6 added, dumped and deleted; v6 is not tentative (NODAD)', async () => {
  const ops = [add(veth, '10.96.0.10'), add(veth, '10.96.0.11'), add(veth, 'fd00:0:0:0:0:0:10:1'), add(veth, '2001:db8::2')];
  assert.deepEqual(await rtnl.applyAddresses(ops), { applied: 4, errors: [] });
  assert.deepEqual(texts(await rtnl.addresses(veth)), ['10.96.0.10/32', '10.96.0.11/32', '2001:db8::2/128', 'fd00::10:1/128']);
  // A control address added without NODAD is tentative on the same (down) link: the check can fail.
  ns.exec('ip', ['addr', 'add', 'fd00::99/128', 'dev', 'v0']);
  const byAddr = new Map(ipAddrs('v0').map((a) => [a.local, a]));
  assert.equal(byAddr.get('fd00::99')?.tentative, true);
  for (const a of ['fd00::10:1', '2001:db8::2']) {
    assert.equal(byAddr.get(a)?.tentative, undefined, `${a} is tentative`);
    assert.equal(byAddr.get(a)?.nodad, true);
    assert.equal(byAddr.get(a)?.scope, 'global');
  }
  assert.equal(byAddr.get('10.96.0.10')?.prefixlen, 32);
  ns.exec('ip', ['addr', 'del', 'fd00::99/128', 'dev', 'v0']);
  assert.deepEqual(await rtnl.applyAddresses(ops.map(del)), { applied: 4, errors: [] });
  assert.deepEqual(await rtnl.addresses(veth), []);
  assert.deepEqual(ipAddrs('v0'), []);
});

test('a batch with failing ops in the middle reports those indexes only; the rest is applied', async () => {
  const a = add(veth, '10.1.0.1');
  const b = add(veth, 'fd00::1:1');
  const res = await rtnl.applyAddresses([a, a, b, del(add(veth, '10.1.0.9')), add(veth, '10.1.0.2')]);
  assert.equal(res.applied, 3);
  assert.deepEqual(res.errors.map((e) => [e.index, e.code]), [[1, 'EEXIST'], [3, 'EADDRNOTAVAIL']]);
  assert.match(res.errors[0].message, /^add 10\.1\.0\.1\/32 on link \d+: EEXIST/);
  assert.match(res.errors[1].message, /^delete 10\.1\.0\.9\/32 on link \d+: EADDRNOTAVAIL/);
  assert.deepEqual(texts(await rtnl.addresses(veth)), ['10.1.0.1/32', '10.1.0.2/32', 'fd00::1:1/128']);
  const gone = await rtnl.applyAddresses([del(a), del(b), del(add(veth, '10.1.0.2'))]);
  assert.deepEqual(gone, { applied: 3, errors: [] });
});

test('addresses() of every link includes lo and the veth; IPv6 text is as node:net prints it', async () => {
  const forms = ['2001:DB8:0:1:0:0:0:1', 'fd00:0:0:0:1:0:0:0', 'fd00:0:0:1:0:0:1:0', '2001:db8:0:0:1:0:0:1', 'fe80:0:0:0:0:0:0:a'];
  const ops = forms.map((f) => add(veth, f.toLowerCase()));
  assert.deepEqual((await rtnl.applyAddresses(ops)).errors, []);
  const all = await rtnl.addresses();
  const lo = all.filter((a) => a.linkIndex === 1).map((a) => a.address).sort();
  assert.deepEqual(lo, ['127.0.0.1', '::1']);
  const got = new Set(all.filter((a) => a.linkIndex === veth).map((a) => a.address));
  for (const f of forms) {
    const canonical = new SocketAddress({ address: f, family: 'ipv6' }).address;
    assert.ok(got.has(canonical), `${f}: dump has ${[...got].join(' ')}, node:net prints ${canonical}`);
  }
  assert.deepEqual((await rtnl.applyAddresses(ops.map(del))).errors, []);
});

test('malformed input is refused before anything is sent', async () => {
  const bad: [unknown, RegExp][] = [
    [{ op: 'replace', address: add(veth, '10.0.0.1').address }, /op: expected 'add' or 'delete'/],
    [{ op: 'add', address: { ...add(veth, '10.0.0.1').address, family: 6 } }, /is not an IPv6 address/],
    [{ op: 'add', address: { ...add(veth, '10.0.0.1').address, prefixLength: 33 } }, /prefixLength: expected an integer 0\.\.32/],
    [{ op: 'add', address: { ...add(veth, 'fd00::1').address, prefixLength: 129 } }, /0\.\.128/],
    [{ op: 'add', address: { ...add(veth, '10.0.0.1').address, linkIndex: 0 } }, /linkIndex: expected a link index/],
    [{ op: 'add', address: { ...add(veth, '10.0.0.1').address, family: 5 } }, /family: expected 4 or 6/],
    [{ op: 'add', address: add(veth, '10.0.0.300').address }, /is not an IP address/],
    [{ op: 'add', address: add(veth, 'fe80::1%v0').address }, /zone index/],
  ];
  for (const [op, re] of bad) {
    await assert.rejects(rtnl.applyAddresses([add(veth, '10.0.0.2'), op as AddressOp]), re);
  }
  await assert.rejects(rtnl.link('a-name-too-long-0'), /1\.\.15 bytes/);
  await assert.rejects(rtnl.ensureDummyLink('a/b'), /must not be/);
  await assert.rejects(rtnl.addresses(-1), /link index/);
  assert.deepEqual(await rtnl.addresses(veth), [], 'the valid op before the bad one was not sent');
});

test('the addon checks every record itself', async () => {
  const raw = new (loadAddon().RtnlSocket)(ns.path);
  const rec = (patch: (b: Buffer) => void) => {
    const b = Buffer.alloc(24);
    b[0] = 1; b[1] = 4; b[2] = 32; b.writeUInt32LE(veth, 4); b.set([10, 0, 0, 1], 8);
    patch(b);
    return b;
  };
  const cases: [Buffer, RegExp][] = [
    [Buffer.alloc(23), /not a multiple of 24/],
    [rec((b) => { b[0] = 3; }), /op 0: op must be 1 \(add\) or 2 \(delete\)/],
    [rec((b) => { b[1] = 2; }), /family must be 4 or 6/],
    [rec((b) => { b[2] = 33; }), /prefix length 33 exceeds 32/],
    [rec((b) => { b[3] = 1; }), /reserved byte/],
    [rec((b) => { b.writeUInt32LE(0, 4); }), /link index must be/],
    [rec((b) => { b.writeUInt32LE(0x80000000, 4); }), /link index must be/],
    [rec((b) => { b[20] = 1; }), /bytes 12\.\.23 must be zero/],
  ];
  try {
    for (const [buf, re] of cases) assert.throws(() => raw.applyAddresses(buf), re);
    assert.throws(() => raw.applyAddresses('x' as unknown as Buffer), TypeError);
    assert.throws(() => raw.link(''), RangeError);
    assert.throws(() => raw.link('x'.repeat(16)), RangeError);
    assert.throws(() => raw.addresses(0), RangeError);
  } finally {
    raw.close();
  }
  assert.deepEqual(await rtnl.addresses(veth), []);
});

test('calls queue on one socket; close() waits for them, later calls reject', async () => {
  const sock = new RtnlSocket({ netns: ns.path });
  const ops = [add(veth, '10.2.0.1'), add(veth, '10.2.0.2')];
  const p1 = sock.applyAddresses(ops);
  const p2 = sock.addresses(veth);
  const p3 = sock.link('lo');
  sock.close();
  assert.deepEqual(await p1, { applied: 2, errors: [] });
  assert.deepEqual(texts(await p2), ['10.2.0.1/32', '10.2.0.2/32']);
  assert.equal((await p3)?.index, 1);
  await assert.rejects(sock.addresses(), /socket is closed/);
  assert.deepEqual((await rtnl.applyAddresses(ops.map(del))).errors, []);
});

test('10,000 addresses in one call: one datagram, all acked, dumped and deleted', async () => {
  const ops: AddressOp[] = [];
  for (let i = 0; i < 10000; i++) ops.push(add(veth, i % 2 ? `10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}` : `fd00::a:${i.toString(16)}`));
  const t0 = process.hrtime.bigint();
  const res = await rtnl.applyAddresses(ops);
  const t1 = process.hrtime.bigint();
  assert.deepEqual(res, { applied: 10000, errors: [] });
  const dumped = await rtnl.addresses(veth);
  const t2 = process.hrtime.bigint();
  assert.equal(dumped.length, 10000);
  // The addon's own result says how many datagrams carried the batch.
  const raw = new (loadAddon().RtnlSocket)(ns.path);
  const gone = await raw.applyAddresses(encodeAddressOps(ops.map(del))).finally(() => raw.close());
  const t3 = process.hrtime.bigint();
  assert.deepEqual(gone, { applied: 10000, sends: 1, errors: [] });
  assert.deepEqual(await rtnl.addresses(veth), []);
  const ms = (a: bigint, b: bigint) => (Number(b - a) / 1e6).toFixed(0);
  console.log(`# 10k addresses: add ${ms(t0, t1)} ms, dump ${ms(t1, t2)} ms, delete ${ms(t2, t3)} ms`);
});

test('the addon defers close() while an operation runs; a bad netns path is an errno error', async () => {
  const raw = new (loadAddon().RtnlSocket)(ns.path);
  const p = raw.applyAddresses(encodeAddressOps([add(veth, '10.3.0.1')]));
  raw.close();
  assert.deepEqual(await p, { applied: 1, sends: 1, errors: [] });
  assert.throws(() => raw.addresses(), /RtnlSocket\.addresses: socket is closed/);
  assert.throws(() => raw.applyAddresses(Buffer.alloc(0)), /socket is closed/);
  assert.deepEqual((await rtnl.applyAddresses([del(add(veth, '10.3.0.1'))])).errors, []);
  assert.throws(() => new RtnlSocket({ netns: '/run/netns/kpn-no-such-netns' }), (e: unknown) => {
    assert.equal((e as { code?: string }).code, 'ENOENT');
    assert.match(String(e), /opening NETLINK_ROUTE socket in \/run\/netns\/kpn-no-such-netns/);
    return true;
  });
});

test('more ops than one datagram carries (16,384): two sends, errors still mapped to their index', async () => {
  ns.exec('ip', ['link', 'add', 'v2', 'type', 'veth', 'peer', 'name', 'v3']);
  const index = (await rtnl.link('v2'))!.index;
  const ops: AddressOp[] = [];
  for (let i = 0; i < 20000; i++) ops.push(add(index, `10.${200 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`));
  ops[16384 + 5] = ops[3];  // already added by the first datagram: EEXIST from the second
  const raw = new (loadAddon().RtnlSocket)(ns.path);
  const res = await raw.applyAddresses(encodeAddressOps(ops)).finally(() => raw.close());
  assert.equal(res.sends, 2);
  assert.equal(res.applied, 19999);
  assert.deepEqual(res.errors.map((e) => [e.index, e.code]), [[16389, 'EEXIST']]);
  assert.equal((await rtnl.addresses(index)).length, 19999);
  assert.equal(await rtnl.deleteLink('v2'), true);
  assert.equal(await rtnl.link('v3'), undefined, 'the peer went with it');
});
