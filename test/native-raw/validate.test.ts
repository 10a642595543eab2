// Malformed transaction buffers are refused with a RangeError naming the byte offset and field;
// nothing crashes. Buffers are written by hand so each test breaks exactly one thing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addon } from './addon';
import { NFPROTO, OP, W, addTable, ex, head, op, regularChain, rule, txn, V, MAGIC } from './wire-writer';

const IP = NFPROTO.ip;

function rejects(buf: Buffer, field: RegExp, offset?: number): void {
  assert.throws(() => addon.validateTransaction(buf), (e: Error) => {
    assert.ok(e instanceof RangeError, `expected RangeError, got ${e}`);
    assert.match(e.message, field);
    if (offset !== undefined) assert.match(e.message, new RegExp(`at byte ${offset},`));
    return true;
  });
}

const elemOp = (count: number, elems: Buffer[]) =>
  op(OP.ADD_ELEMS, Buffer.concat([head(IP, 't').str('s').u32(0).u32(count).done(), ...elems]));
const elem = (key: number[], dataKind = 0, extra: Buffer = Buffer.alloc(0)) =>
  Buffer.concat([new W().blob(key).blob([]).u32(0).u8(dataKind).done(), extra, new W().u64(0).done()]);

test('a well-formed buffer validates and returns its op count', () => {
  const buf = txn([addTable(IP, 't'), regularChain(IP, 't', 'c'), rule(IP, 't', 'c', [ex.counter(), ex.verdict(V.ACCEPT)])]);
  assert.equal(addon.validateTransaction(buf), 3);
  assert.equal(addon.validateTransaction(txn([])), 0);
});

test('every truncation of a valid buffer is refused, never a crash', () => {
  const buf = txn([addTable(IP, 't'), rule(IP, 't', 'c', [ex.payload(1, 16, 4, 1), ex.cmp(1, 0, [10, 0, 0, 1]), ex.verdict(V.JUMP, 'x')]),
    elemOp(1, [elem([1, 2, 3, 4], 1, new W().i32(V.DROP).str('').done())])]);
  for (let n = 0; n < buf.length; n++) {
    assert.throws(() => addon.validateTransaction(buf.subarray(0, n)), RangeError, `prefix of ${n} bytes`);
  }
  rejects(buf.subarray(0, 3), /field magic: truncated/, 0);
});

test('bad magic, version and reserved header fields', () => {
  const good = txn([]);
  const bad = (at: number, v: number) => { const b = Buffer.from(good); b[at] = v; return b; };
  rejects(bad(0, 0), /field magic: not a transaction buffer/, 0);
  rejects(bad(4, 2), /field version: unsupported version 2/, 4);
  rejects(bad(6, 1), /field reserved: must be 0/, 6);
});

test('unknown enums are refused with the field named', () => {
  rejects(txn([op(99, Buffer.alloc(0))]), /ops\[0\]\.opcode: unknown opcode 99/, 12);
  rejects(txn([op(OP.ADD_TABLE, head(IP, 't').u32(0).done(), 2)]), /ops\[0\]\.flags/, 13);
  rejects(txn([op(OP.ADD_TABLE, head(3, 't').u32(0).done())]), /ops\[0\]\.family: family 3/, 18);
  rejects(txn([rule(IP, 't', 'c', [Buffer.from([99])])]), /ops\[0\]\.exprs\[0\]\.exprType: unknown expression type 99/);
  rejects(txn([rule(IP, 't', 'c', [ex.cmp(1, 6, [1])])]), /exprs\[0\]\.op: value 6 is above the maximum 5/);
  rejects(txn([rule(IP, 't', 'c', [ex.verdict(7)])]), /verdictCode: unknown verdict code 7/);
  rejects(txn([rule(IP, 't', 'c', [ex.verdict(V.JUMP, '')])]), /verdictChain: jump\/goto needs a chain name/);
  rejects(txn([rule(IP, 't', 'c', [ex.verdict(V.ACCEPT, 'x')])]), /verdictChain: only jump\/goto/);
  const chain = (type: string) => op(OP.ADD_CHAIN, head(IP, 't').str('c').u8(1).u32(0).i32(0).str(type).u8(0).done());
  rejects(txn([chain('bogus')]), /ops\[0\]\.type: chain type "bogus"/);
  rejects(txn([op(OP.ADD_CHAIN, head(IP, 't').str('c').u8(1).u32(5).i32(0).str('nat').u8(0).done())]), /ops\[0\]\.hook/);
  rejects(txn([op(OP.ADD_TABLE, head(IP, 't').u32(0x100).done())]), /ops\[0\]\.tableFlags: unknown flag bits 0x100/);
});

test('registers outside 0, 1..4, 8..23 are refused', () => {
  for (const reg of [5, 7, 24, 0xffffffff]) {
    rejects(txn([rule(IP, 't', 'c', [ex.payload(1, 16, 4, reg)])]), /exprs\[0\]\.dreg: register \d+ is not one of/);
  }
  rejects(txn([rule(IP, 't', 'c', [ex.counter(), ex.cmp(6, 0, [1])])]), /ops\[0\]\.exprs\[1\]\.sreg/);
  for (const reg of [0, 4, 8, 23]) {
    assert.equal(addon.validateTransaction(txn([rule(IP, 't', 'c', [ex.payload(1, 16, 4, reg)])])), 1);
  }
});

test('oversize and inconsistent lengths are refused', () => {
  rejects(txn([op(OP.ADD_TABLE, head(IP, 'x'.repeat(256)).u32(0).done())]), /ops\[0\]\.table: string length 256 is outside 1\.\.255/);
  rejects(txn([op(OP.ADD_TABLE, head(IP, '').u32(0).done())]), /ops\[0\]\.table: string length 0/);
  rejects(txn([rule(IP, 't', 'c', [ex.cmp(1, 0, new Array(65).fill(1))])]), /exprs\[0\]\.data: length 65 is outside 1\.\.64/);
  rejects(txn([rule(IP, 't', 'c', [ex.payload(1, 0, 17, 1)])]), /exprs\[0\]\.len: payload length must be 1\.\.16/);
  const badBitwise = new W().u8(4).u32(1).u32(1).u32(4).blob([1, 2, 3]).blob([0, 0, 0, 0]).done();
  rejects(txn([rule(IP, 't', 'c', [badBitwise])]), /exprs\[0\]\.mask: length 3 is outside 4\.\.4/);
  // bodyLen larger than what follows
  const table = addTable(IP, 't');
  table.writeUInt32LE(1000, 2);
  rejects(txn([table]), /ops\[0\]\.bodyLen: body length 1000 exceeds/, 14);
  // a string claiming more bytes than its op body holds
  const short = op(OP.DEL_TABLE, new W().u8(IP).u16(50).raw([0x74]).done());
  rejects(txn([short]), /ops\[0\]\.table: truncated: needs 50 bytes, 1 left in op body/);
  rejects(txn([op(OP.ADD_TABLE, head(IP, 't\u0000x').u32(0).done())]), /ops\[0\]\.table: string contains a NUL byte/);
  rejects(txn([op(OP.ADD_TABLE, new W().u8(IP).blob([0xff, 0xfe]).u32(0).done())]), /not valid UTF-8/);
});

test('trailing bytes inside an op body or after the last op are refused', () => {
  const padded = op(OP.ADD_TABLE, Buffer.concat([head(IP, 't').u32(0).done(), Buffer.from([0, 0])]));
  rejects(txn([padded]), /ops\[0\]\.body: 2 unread bytes at the end of the op body/);
  rejects(Buffer.concat([txn([addTable(IP, 't')]), Buffer.from([1])]), /field trailer: 1 trailing bytes/);
  rejects(txn([addTable(IP, 't')], 2), /ops\[1\]\.opcode: truncated/);
});

test('huge counts are refused up front instead of allocating', () => {
  rejects(txn([], 0xffffffff), /field opCount: 4294967295 ops cannot fit/, 8);
  rejects(txn([elemOp(0xffffffff, [elem([1])])]), /ops\[0\]\.count: 4294967295 elements cannot fit/);
  rejects(txn([elemOp(0, [])]), /ops\[0\]\.count: an element op needs at least one element/);
  rejects(txn([elemOp(2, [elem([1])])]), /ops\[0\]\.count: 2 elements cannot fit in the 18 bytes/);
  // a data blob eating into the bytes of the element's timeout
  const longData = Buffer.concat([new W().blob([1, 2]).blob([]).u32(0).u8(2).u16(9).done(), Buffer.alloc(12)]);
  rejects(txn([elemOp(1, [longData])]), /ops\[0\]\.elements\[0\]\.timeoutMs: truncated: needs 8 bytes, 3 left in op body/);
  rejects(txn([op(OP.ADD_RULE, head(IP, 't').str('c').blob([]).u16(0xffff).done())]), /exprs\[0\]\.exprType: truncated/);
});

test('set ids at or above 0x80000000 are reserved for the addon', () => {
  rejects(txn([rule(IP, 't', 'c', [ex.lookup(1, 's', 0x80000000)])]), /exprs\[0\]\.setId: set ids must be below 0x80000000/);
  assert.equal(addon.validateTransaction(txn([rule(IP, 't', 'c', [ex.lookup(1, 's', 0x7fffffff)])])), 1);
});

test('random mutations of a valid buffer never crash the decoder', () => {
  const base = txn([addTable(IP, 't'), rule(IP, 't', 'c', [ex.payload(1, 16, 4, 1), ex.cmp(1, 0, [10, 0, 0, 1]), ex.counter()]),
    elemOp(2, [elem([1, 2, 3, 4]), elem([5, 6, 7, 8], 2, new W().blob([9]).done())])]);
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  let refused = 0;
  for (let i = 0; i < 5000; i++) {
    const b = Buffer.from(base);
    for (let k = 0; k < 1 + Math.floor(rand() * 3); k++) b[Math.floor(rand() * b.length)] = Math.floor(rand() * 256);
    try { addon.validateTransaction(b); } catch (e) { assert.ok(e instanceof RangeError); refused++; }
  }
  assert.ok(refused > 0);
});

test('a non-Buffer argument is a TypeError', () => {
  for (const bad of [undefined, null, 'KPNT', 42, {}, [1, 2]]) {
    assert.throws(() => (addon.validateTransaction as (x: unknown) => number)(bad), TypeError);
  }
  assert.equal(MAGIC, 0x544e504b);
});
