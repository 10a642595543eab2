// Every expression kind and set shape the decoder accepts, encoded by the addon and committed to a
// fresh netns; `nft list` must show what a person would have written. (The exhaustive suite
// driven by src/native's serializer lives with it; this one pins the C++ encoders directly.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addon } from './addon';
import { withNetns } from '../helpers/netns';
import { NFPROTO, OP, W, addTable, baseChain, regularChain, rule, ex, head, op, txn, V } from './wire-writer';

const IP = NFPROTO.ip;
const T = 'kpn';
const le32 = (v: number) => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, (v >>> 24) & 0xff];
const ip4 = (s: string) => s.split('.').map(Number);

const x = {
  daddr: () => ex.payload(1, 16, 4, 1),
  saddr: () => ex.payload(1, 12, 4, 1),
  l4proto: (p: number) => [ex.meta(16, 1), ex.cmp(1, 0, [p])],
  thDport: (port: number) => [ex.payload(2, 2, 2, 1), ex.cmp(1, 0, [port >> 8, port & 0xff])],
  numgen: (mod: number) => new W().u8(10).u32(1).u32(mod).u32(1).u32(0).done(),
  ct: (key: number) => new W().u8(11).u8(0).u32(key).u8(255).u32(1).done(),
  fib: (result: number, flags: number) => new W().u8(13).u32(1).u32(result).u32(flags).done(),
  nat: (type: number, addrReg: number, protoReg: number, flags: number) =>
    new W().u8(7).u32(type).u32(2).u32(addrReg).u32(0).u32(protoReg).u32(0).u32(flags).done(),
  masq: (flags: number) => new W().u8(8).u32(flags).u32(0).u32(0).done(),
  reject: (type: number, code: number) => new W().u8(9).u32(type).u8(code).done(),
  dynset: (o: number, set: string, timeoutMs: number) =>
    new W().u8(14).u32(o).str(set).u32(0).u32(1).u32(0).u64(timeoutMs).u32(0).done(),
};

interface SetOpts { flags?: number; keyType: number; keyLen: number; dataType?: number; timeoutMs?: number; concat?: number[]; setId?: number; userdata?: number[] }
function addSet(name: string, o: SetOpts): Buffer {
  const w = head(IP, T).str(name).u32(o.setId ?? 0).u32(o.flags ?? 0).u32(o.keyType).u32(o.keyLen)
    .u32(o.dataType ?? 0).u32(0).u64(o.timeoutMs ?? 0).u32(0).u8(o.concat?.length ?? 0);
  for (const f of o.concat ?? []) w.u8(f);
  return op(OP.ADD_SET, w.u32(0).blob(o.userdata ?? []).done());
}

interface El { key: number[]; keyEnd?: number[]; flags?: number; verdict?: [number, string]; timeoutMs?: number }
function addElems(set: string, els: El[]): Buffer {
  const w = head(IP, T).str(set).u32(0).u32(els.length);
  for (const e of els) {
    w.blob(e.key).blob(e.keyEnd ?? []).u32(e.flags ?? 0);
    if (e.verdict) w.u8(1).i32(e.verdict[0]).str(e.verdict[1]); else w.u8(0);
    w.u64(e.timeoutMs ?? 0);
  }
  return op(OP.ADD_ELEMS, w.done());
}

function buildRuleset(): Buffer {
  const r = (chain: string, ...exprs: (Buffer | Buffer[])[]) => rule(IP, T, chain, exprs.flat());
  return txn([
    addTable(IP, T),
    baseChain(IP, T, 'raw', 0, -300, 'filter', 0),
    baseChain(IP, T, 'nat-pre', 0, -100, 'nat', 1),
    baseChain(IP, T, 'nat-post', 4, 100, 'nat', 1),
    baseChain(IP, T, 'filter-in', 1, 0, 'filter', 2),
    regularChain(IP, T, 'svc'),
    addSet('svc-ips', { keyType: 7, keyLen: 4 }),
    addSet('vm', { flags: 0x8, keyType: 7, keyLen: 4, dataType: 0xffffff00 }),
    addSet('cidrs', { flags: 0x4, keyType: 7, keyLen: 4 }),
    addSet('tuples', { keyType: (7 << 12) | (12 << 6) | 13, keyLen: 12 }),
    addSet('ranges', { flags: 0x4 | 0x80, keyType: (7 << 6) | 13, keyLen: 8, concat: [4, 2] }),
    addSet('aff', { flags: 0x10 | 0x20, keyType: 7, keyLen: 4, timeoutMs: 10800000 }),
    // Userdata is sent verbatim: mark key byte order (host, so nft prints 0x...) and a comment.
    addSet('marks', { keyType: 19, keyLen: 4, userdata: [0, 4, 1, 0, 0, 0, 7, 3, 0x68, 0x69, 0] }),
    addElems('marks', [{ key: le32(0x4000) }]),
    addElems('svc-ips', [{ key: ip4('10.96.0.1') }]),
    addElems('vm', [{ key: ip4('10.96.0.1'), verdict: [V.JUMP, 'svc'] }, { key: ip4('10.96.0.2'), verdict: [V.DROP, ''] }]),
    addElems('cidrs', [{ key: ip4('10.0.0.0') }, { key: ip4('10.1.0.0'), flags: 1 }]),
    addElems('tuples', [{ key: [...ip4('10.96.0.1'), 6, 0, 0, 0, 0, 80, 0, 0] }]),
    addElems('ranges', [{ key: [...ip4('10.2.0.0'), 0, 80, 0, 0], keyEnd: [...ip4('10.2.0.255'), 0, 90, 0, 0] }]),
    addElems('aff', [{ key: ip4('10.0.0.9'), timeoutMs: 60000 }]),
    r('raw', x.l4proto(17), x.thDport(53), ex.notrack()),
    r('nat-pre', x.daddr(), ex.lookup(1, 'vm', 0, 0)),
    r('nat-pre', x.daddr(), ex.lookup(1, 'svc-ips', 0, undefined, 1), ex.counter(), ex.verdict(V.RETURN)),
    r('nat-pre', x.fib(3, 2), ex.cmp(1, 0, le32(2)), ex.verdict(V.GOTO, 'svc')),
    r('nat-post', ex.meta(3, 1), ex.bitwise(1, 1, le32(0x4000), le32(0)), ex.cmp(1, 0, le32(0x4000)), x.masq(16)),
    r('svc', x.numgen(3), ex.cmp(1, 0, le32(0)), x.saddr(), x.dynset(1, 'aff', 10800000),
      ex.immData(1, ip4('10.0.0.2')), ex.immData(2, [0x1f, 0x90]), x.nat(1, 1, 2, 3)),
    r('svc', ex.meta(3, 1), ex.bitwise(1, 1, le32(~0x4000), le32(0x4000)), ex.meta(3, 1, true)),
    r('filter-in', x.ct(0), ex.bitwise(1, 1, le32(6), le32(0)), ex.cmp(1, 1, le32(0)), ex.verdict(V.ACCEPT)),
    r('filter-in', x.ct(2), ex.bitwise(1, 1, le32(0x20), le32(0)), ex.cmp(1, 1, le32(0)), ex.verdict(V.ACCEPT)),
    r('filter-in', x.daddr(), ex.lookup(1, 'cidrs'), x.reject(0, 3)),
    // Concatenations: one field per 32-bit register (8, 9, 10...), looked up from the first one.
    r('filter-in', ex.payload(1, 16, 4, 8), ex.meta(16, 9), ex.payload(2, 2, 2, 10), ex.lookup(8, 'tuples'), ex.verdict(V.DROP)),
    r('filter-in', ex.payload(1, 16, 4, 8), ex.payload(2, 2, 2, 9), ex.lookup(8, 'ranges'), ex.verdict(V.CONTINUE)),
  ]);
}

test('every expression kind and set shape is accepted by the kernel and listed by nft', async () => {
  await withNetns(async (ns) => {
    const sock = new addon.NftSocket(ns.path);
    try {
      const stats = await sock.commit(buildRuleset());
      assert.equal(stats.sends, 1);
      const text = ns.nft('list', 'ruleset');
      const expected = [
        'type filter hook prerouting priority raw; policy accept;',
        'udp dport 53 notrack',
        'ip daddr vmap @vm',
        'ip daddr != @svc-ips counter packets 0 bytes 0 return',
        'fib daddr type local goto svc',
        'meta mark & 0x00004000 == 0x00004000 masquerade fully-random',
        'numgen random mod 3 0 update @aff { ip saddr timeout 3h } dnat to 10.0.0.2:8080',
        'meta mark set meta mark | 0x00004000',
        'ct state established,related accept',
        'ct status dnat accept',
        'ip daddr @cidrs reject',
        'type filter hook input priority filter; policy drop;',
        '10.96.0.1 : jump svc',
        'elements = { 10.0.0.0/16 }',
        '10.96.0.1 . tcp . 80',
        '10.2.0.0/24 . 80-90',
        'ip daddr . meta l4proto . th dport @tuples drop',
        'ip daddr . th dport @ranges continue',
        'flags dynamic,timeout',
        '10.96.0.2 : drop',
        'elements = { 10.0.0.9 timeout 1m',
        'comment "hi"',
        'elements = { 0x00004000 }',
      ];
      for (const frag of expected) assert.ok(text.includes(frag), `missing "${frag}" in:\n${text}`);
    } finally {
      sock.close();
    }
  });
});
