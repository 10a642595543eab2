// conntrackStats' decoder over hand-built replies (decodeConntrackStats: the same code the read
// runs, given bytes): well-formed replies sum the CPUs, unknown attributes are skipped, and every
// truncated or mis-sized reply is an EPROTO error naming what was wrong, never a wrong number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAddon } from '../../src/native';
import { attr, be32 } from '../helpers/netlink-attrs';

const NLMSG_ERROR = 2, NLMSG_DONE = 3;
const STATS_CPU = (1 << 8) | 4, STATS = (1 << 8) | 5;  // NFNL_SUBSYS_CTNETLINK, IPCTNL_MSG_CT_GET_STATS{_CPU,}
const A = { FOUND: 2, INVALID: 4, INSERT: 8, INSERT_FAILED: 9, DROP: 10, EARLY_DROP: 11, ERROR: 12, SEARCH_RESTART: 13, CLASH_RESOLVE: 14, CHAIN_TOOLONG: 15 };
const G = { ENTRIES: 1, MAX: 2 };


function msg(type: number, body: Buffer, seq = 1): Buffer {
  const h = Buffer.alloc(16);
  h.writeUInt32LE(16 + body.length, 0);
  h.writeUInt16LE(type, 4);
  h.writeUInt32LE(seq, 8);
  return Buffer.concat([h, body, Buffer.alloc(((body.length + 3) & ~3) - body.length)]);
}
const nfgen = (resId = 0): Buffer => { const b = Buffer.alloc(4); b.writeUInt8(0, 0); b.writeUInt16BE(resId, 2); return b; };
const cpuMsg = (cpu: number, attrs: Buffer[]): Buffer => msg(STATS_CPU, Buffer.concat([nfgen(cpu), ...attrs]));
const done = (err = 0): Buffer => { const b = Buffer.alloc(4); b.writeInt32LE(err); return msg(NLMSG_DONE, b); };
const errMsg = (err: number): Buffer => { const b = Buffer.alloc(20); b.writeInt32LE(err); return msg(NLMSG_ERROR, b); };
const globalMsg = (attrs: Buffer[]): Buffer => msg(STATS, Buffer.concat([nfgen(), ...attrs]));
const goodGlobal = globalMsg([be32(G.ENTRIES, 120), be32(G.MAX, 262144)]);

const decode = (cpu: Buffer, global: Buffer) => loadAddon().decodeConntrackStats(cpu, global);
const eproto = (re: RegExp) => (e: Error & { errno?: number; code?: string }) => e.code === 'EPROTO' && re.test(e.message);

test('decodeConntrackStats: sums every counter over the CPUs, with entries and max', () => {
  const all = (base: number) => Object.values(A).map((t, i) => be32(t, base + i));
  const r = decode(Buffer.concat([cpuMsg(0, all(0)), cpuMsg(1, all(100)), done()]), goodGlobal);
  assert.deepEqual(r, {
    entries: 120, maxEntries: 262144, cpus: 2,
    counters: { found: 100, invalid: 102, insert: 104, insert_failed: 106, drop: 108, early_drop: 110, error: 112, search_restart: 114, clash_resolve: 116, chain_toolong: 118 },
  });
});

test('decodeConntrackStats: sums past 2^32 (per-CPU u32 counters near their limit)', () => {
  const cpus = [0, 1, 2].map((c) => cpuMsg(c, [be32(A.DROP, 0xffffffff)]));
  assert.equal(decode(Buffer.concat([...cpus, done()]), goodGlobal).counters.drop, 3 * 0xffffffff);
});

test('decodeConntrackStats: unknown attributes and message types are skipped; absent counters stay absent', () => {
  const odd = attr(200, Buffer.from([1, 2, 3]));           // a future attribute with any length
  const next = attr(16, Buffer.alloc(6));                   // the next counter a kernel might add, any length
  const r = decode(Buffer.concat([cpuMsg(0, [odd, next, be32(A.INSERT_FAILED, 7)]), msg(0x999, Buffer.alloc(8)), done()]),
    globalMsg([attr(9, Buffer.alloc(1)), be32(G.ENTRIES, 1), be32(G.MAX, 2)]));
  assert.deepEqual(r, { entries: 1, maxEntries: 2, cpus: 1, counters: { insert_failed: 7 } });
});

test('decodeConntrackStats: malformed replies are EPROTO errors that say what was wrong', () => {
  const cpuOk = Buffer.concat([cpuMsg(0, [be32(A.DROP, 1)]), done()]);
  const short = (t: number, n: number) => attr(t, Buffer.alloc(n));
  const cases: Array<[string, Buffer, Buffer, RegExp]> = [
    ['a counter of 2 bytes', Buffer.concat([cpuMsg(0, [short(A.DROP, 2)]), done()]), goodGlobal, /malformed per-CPU/],
    ['a counter of 8 bytes', Buffer.concat([cpuMsg(0, [short(A.FOUND, 8)]), done()]), goodGlobal, /malformed per-CPU/],
    ['an attribute longer than its message', Buffer.concat([msg(STATS_CPU, Buffer.concat([nfgen(), Buffer.from([40, 0, 10, 0, 0, 0, 0, 1])])), done()]), goodGlobal, /malformed per-CPU/],
    ['an attribute length below its header', Buffer.concat([msg(STATS_CPU, Buffer.concat([nfgen(), Buffer.from([2, 0, 10, 0])])), done()]), goodGlobal, /malformed per-CPU/],
    ['a trailing half attribute header', Buffer.concat([msg(STATS_CPU, Buffer.concat([nfgen(), be32(A.DROP, 1), Buffer.from([8, 0])])), done()]), goodGlobal, /malformed per-CPU/],
    ['a CPU message shorter than nfgenmsg', Buffer.concat([msg(STATS_CPU, Buffer.alloc(2)), done()]), goodGlobal, /malformed per-CPU/],
    ['a dump without NLMSG_DONE', cpuMsg(0, [be32(A.DROP, 1)]), goodGlobal, /per-CPU conntrack statistics reply ended early/],
    ['a netlink length past the datagram', cpuMsg(0, [be32(A.DROP, 1)]).subarray(0, 20), goodGlobal, /malformed per-CPU conntrack statistics reply/],
    ['an empty per-CPU reply', Buffer.alloc(0), goodGlobal, /per-CPU conntrack statistics reply ended early/],
    ['entries of 2 bytes', cpuOk, globalMsg([short(G.ENTRIES, 2), be32(G.MAX, 2)]), /malformed conntrack statistics/],
    ['max of 5 bytes', cpuOk, globalMsg([be32(G.ENTRIES, 1), short(G.MAX, 5)]), /malformed conntrack statistics/],
    ['no max', cpuOk, globalMsg([be32(G.ENTRIES, 1)]), /malformed conntrack statistics/],
    ['no entries', cpuOk, globalMsg([be32(G.MAX, 1)]), /malformed conntrack statistics/],
    ['a global reply cut in its attribute', cpuOk, (() => { const m = globalMsg([be32(G.ENTRIES, 1), be32(G.MAX, 2)]); const c = Buffer.from(m.subarray(0, m.length - 2)); c.writeUInt32LE(c.length, 0); return c; })(), /malformed conntrack statistics/],
    ['a global reply that is only DONE', cpuOk, done(), /ended without the statistics/],
    ['no global reply', cpuOk, Buffer.alloc(0), /conntrack statistics reply ended early/],
  ];
  for (const [name, cpu, global, re] of cases) {
    assert.throws(() => decode(cpu, global), eproto(re), name);
  }
});

test('decodeConntrackStats: a kernel error in either reply is that errno', () => {
  const cpuOk = Buffer.concat([cpuMsg(0, [be32(A.DROP, 1)]), done()]);
  assert.throws(() => decode(errMsg(-1), goodGlobal), (e: Error & { code?: string }) => e.code === 'EPERM' && /per-CPU conntrack statistics refused by the kernel/.test(e.message));
  assert.throws(() => decode(done(-95), goodGlobal), (e: Error & { code?: string }) => e.code === 'EOPNOTSUPP');
  assert.throws(() => decode(cpuOk, errMsg(-12)), (e: Error & { code?: string }) => e.code === 'ENOMEM' && /conntrack statistics refused/.test(e.message));
  // An error code the kernel never sends (positive) is a corrupt reply.
  assert.throws(() => decode(errMsg(5), goodGlobal), eproto(/refused by the kernel/));
});

test('decodeConntrackStats: arguments must be Buffers', () => {
  const d = loadAddon().decodeConntrackStats as (a: unknown, b: unknown) => unknown;
  assert.throws(() => d('x', Buffer.alloc(0)), (e: Error) => e instanceof TypeError && /^cpuReply must be a Buffer/.test(e.message));
  assert.throws(() => d(Buffer.alloc(0), undefined), (e: Error) => e instanceof TypeError && /^globalReply must be a Buffer/.test(e.message));
});
