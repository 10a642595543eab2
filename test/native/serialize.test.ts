// The wire buffer, byte for byte (docs/wire-format.md), and the addon's decoder agreeing with it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAddon, rule, SetSpec, Transaction } from '../../src/native';
import { keyLength, keyTypeId } from '../../src/native/txn/nft-types';
import { everyKind } from './fixtures';

const hex = (b: Buffer) => b.toString('hex');
const str = (s: string) => Buffer.concat([Buffer.from([s.length, 0]), Buffer.from(s)]).toString('hex');
const u32 = (v: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return hex(b); };
const i32 = (v: number) => { const b = Buffer.alloc(4); b.writeInt32LE(v); return hex(b); };
const u64 = (v: number) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return hex(b); };

function op(opcode: number, flags: number, body: string): string {
  return `${opcode.toString(16).padStart(2, '0')}${flags.toString(16).padStart(2, '0')}${u32(body.length / 2)}${body}`;
}

test('header and table ops', () => {
  const tx = new Transaction().addTable('ip', 'kp', { create: true }).deleteTable('ip6', 'x').flushTable('inet', 'y');
  const expected = '4b504e54' + '0100' + '0000' + u32(3)
    + op(1, 1, '02' + str('kp') + u32(0))
    + op(2, 0, '0a' + str('x'))
    + op(3, 0, '01' + str('y'));
  assert.equal(hex(tx.serialize()), expected);
});

test('base and regular chains', () => {
  const tx = new Transaction()
    .addChain('ip', 't', { name: 'pre', base: { type: 'nat', hook: 'prerouting', priority: -100, policy: 'drop' } })
    .addChain('ip', 't', { name: 'c' });
  const expected = op(4, 0, '02' + str('t') + str('pre') + '01' + u32(0) + i32(-100) + str('nat') + '02')
    + op(4, 0, '02' + str('t') + str('c') + '00');
  assert.equal(hex(tx.serialize().subarray(12)), expected);
});

test('a rule: payload, cmp, verdict, with a comment in nft udata form', () => {
  const r = rule('ip').daddr('10.0.0.1').verdict({ kind: 'jump', chain: 'svc' }).comment('hi').build();
  const tx = new Transaction().addRule('ip', 't', 'c', r);
  const exprs = '01' + '01' + u32(16) + u32(4) + u32(1) // payload network +16 len 4 -> reg 1
    + '03' + u32(1) + u32(0) + '0400' + '0a000001' // cmp eq reg 1
    + '06' + u32(0) + i32(-3) + str('svc'); // immediate verdict jump svc
  const udata = '0500' + '0003686900';
  assert.equal(hex(tx.serialize().subarray(12)), op(7, 0, '02' + str('t') + str('c') + udata + '0300' + exprs));
});

test('concatenated lookups use word-aligned registers, as nft', () => {
  const tx = new Transaction().addSet('ip6', 't', { name: 's', key: ['ipv6_addr', 'inet_proto', 'inet_service'] });
  tx.addRule('ip6', 't', 'c', rule('ip6').lookup(['daddr', 'l4proto', 'dport'], 's').build());
  const e = tx.serialize();
  // ipv6 daddr in reg 1 (words 0-3), l4proto in word 4 = NFT_REG_2, dport in word 5 = NFT_REG32_05 (13).
  const payload6 = '01' + '01' + u32(24) + u32(16) + u32(1);
  const meta = '02' + '00' + u32(16) + u32(2);
  const dport = '01' + '02' + u32(2) + u32(2) + u32(13);
  const lookup = '05' + u32(1) + str('s') + u32(1) + '00' + u32(0) + u32(0);
  assert.ok(hex(e).endsWith('0400' + payload6 + meta + dport + lookup), hex(e));
});

test('sets: flags, key type and length, timeout, concat field lengths for concatenated intervals, userdata', () => {
  const tx = new Transaction()
    .addSet('ip', 't', { name: 'fw', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'ipv4_addr'], interval: true })
    .addSet('ip', 't', { name: 'm', key: ['ipv4_addr'], map: 'verdict', timeout: true, dynamic: true, defaultTimeoutSeconds: 3 });
  const fw = '02' + str('t') + str('fw') + u32(1) + u32(0x84) + u32(0x1cc347) + u32(16) + u32(0) + u32(0) + u64(0) + u32(0)
    + '04' + '04010204' + u32(0) + '1000' + '000400000000' + '0308' + '00040d000000' + '0100'; // udata: byte order, concat typeof
  const m = '02' + str('t') + str('m') + u32(2) + u32(0x38) + u32(7) + u32(4) + u32(0xffffff00) + u32(0) + u64(3000) + u32(0)
    + '00' + u32(0) + '1200' + '000402000000' + '010400000000' + '060400000000'; // udata: key, data byte order, data interval
  assert.equal(hex(tx.serialize().subarray(12)), op(8, 0, fw) + op(8, 0, m));
});

test('nft type ids and key lengths', () => {
  assert.equal(keyTypeId(['ipv4_addr', 'inet_proto', 'inet_service']), (7 << 12) | (12 << 6) | 13);
  assert.equal(keyTypeId(['ipv4_addr', 'inet_proto', 'inet_service', 'ipv4_addr']), 0x1cc347); // as nft 1.0.6 sends it
  assert.equal(keyLength(['ipv4_addr', 'inet_proto', 'inet_service']), 12);
  assert.equal(keyLength(['ipv6_addr', 'inet_proto', 'inet_service']), 24);
  assert.equal(keyLength(['inet_service']), 2);
  assert.equal(keyLength(['ifname']), 16);
});

test('elements: map verdicts, timeouts, network-order keys', () => {
  const tx = new Transaction().addSet('ip', 't', { name: 'm', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict', timeout: true });
  const start = tx.serialize().length;
  tx.addElements('ip', 't', 'm', [{ key: ['1.2.3.4', 'udp', 53], verdict: { kind: 'goto', chain: 'x' }, timeoutSeconds: 5 }]);
  const el = '0c00' + '01020304' + '11000000' + '00350000' + '0000' + u32(0) + '01' + i32(-4) + str('x') + u64(5000);
  assert.equal(hex(tx.serialize().subarray(start)), op(11, 0, '02' + str('t') + str('m') + u32(1) + u32(1) + el));
});

test('interval elements: the 0 end element, start/end pairs, no end past the top', () => {
  const tx = new Transaction().addSet('ip', 't', { name: 'c', key: ['ipv4_addr'], interval: true });
  const start = tx.serialize().length;
  tx.addElements('ip', 't', 'c', [{ key: ['255.0.0.0/8'] }, { key: ['10.0.0.0/8'] }]);
  const el = (key: string, flags: number) => '0400' + key + '0000' + u32(flags) + '00' + u64(0);
  const expected = el('00000000', 1) + el('0a000000', 0) + el('0b000000', 1) + el('ff000000', 0);
  assert.equal(hex(tx.serialize().subarray(start)), op(11, 0, '02' + str('t') + str('c') + u32(1) + u32(4) + expected));
  // A second add to the same set in this batch does not repeat the 0 end element.
  const again = tx.serialize().length;
  tx.addElements('ip', 't', 'c', [{ key: ['20.0.0.1'] }]);
  assert.equal(hex(tx.serialize().subarray(again)),
    op(11, 0, '02' + str('t') + str('c') + u32(1) + u32(2) + el('14000001', 0) + el('14000002', 1)));
});

test('the addon decodes every op of a full transaction', () => {
  const tx = everyKind();
  assert.equal(loadAddon().validateTransaction(tx.serialize()), tx.opCount);
});

const EP: SetSpec = { name: 'ep', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'],
  typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport' };

test('data maps: data type and length as nft computes them; elements carry data padded like keys', () => {
  const tx = new Transaction().addSet('ip', 't', EP)
    .addSet('ip', 't', { name: 'p', key: ['ipv4_addr'], map: 'inet_service' });
  const sets = hex(tx.serialize().subarray(12));
  // nft 1.0.6 for this typeof: key type 0x1cc344 (integer = 4) length 16, data type 0x1cd length 8.
  assert.ok(sets.includes(u32(0x8) + u32(0x1cc344) + u32(16) + u32(0x1cd) + u32(8)), sets);
  assert.ok(sets.includes(u32(0x8) + u32(7) + u32(4) + u32(13) + u32(2)), sets);
  const start = tx.serialize().length;
  tx.addElements('ip', 't', 'ep', [{ key: ['10.0.0.1', 'tcp', 80, 1], data: ['10.1.0.2', 8080] }]);
  tx.addElements('ip', 't', 'p', [{ key: ['10.0.0.1'], data: [8080] }]);
  // The numgen part is a host-order u32, as nft writes `... . 1`.
  const key = '1000' + '0a000001' + '06000000' + '00500000' + '01000000';
  const el = key + '0000' + u32(0) + '02' + '0800' + '0a010002' + '1f900000' + u64(0);
  const el2 = '0400' + '0a000001' + '0000' + u32(0) + '02' + '0200' + '1f90' + u64(0);
  assert.equal(hex(tx.serialize().subarray(start)),
    op(11, 0, '02' + str('t') + str('ep') + u32(1) + u32(1) + el) + op(11, 0, '02' + str('t') + str('p') + u32(2) + u32(1) + el2));
});

test('deleting from a data map sends the key only, with or without data given', () => {
  const tx = new Transaction().declareSet('ip', 't', EP);
  const start = tx.serialize().length;
  tx.deleteElements('ip', 't', 'ep', [{ key: ['10.0.0.1', 'tcp', 80, 1], data: ['10.1.0.2', 8080] }, { key: ['10.0.0.1', 'tcp', 80, 0] }]);
  const el = (n: string) => '1000' + '0a000001' + '06000000' + '00500000' + n + '0000' + u32(0) + '00' + u64(0);
  assert.equal(hex(tx.serialize().subarray(start)), op(12, 0, '02' + str('t') + str('ep') + u32(0) + u32(2) + el('01000000') + el('00000000')));
  assert.equal(tx.toNftScript(), 'delete element ip t ep { 10.0.0.1 . tcp . 80 . 1, 10.0.0.1 . tcp . 80 . 0 }\n');
});

test('dnatMap: the nat expression takes a port register only when the map data has a port', () => {
  const tx = new Transaction().declareSet('ip', 't', EP)
    .declareSet('ip6', 't', { name: 'a6', key: ['ipv6_addr'], map: 'ipv6_addr' })
    .declareSet('ip6', 't', { name: 'p6', key: ['ipv6_addr'], map: ['ipv6_addr', 'inet_service'] });
  const nat = (family: number, protoReg: number) => '07' + u32(1) + u32(family) + u32(1) + u32(0) + u32(protoReg) + u32(0) + u32(0);
  const lookup = (set: string) => '05' + u32(1) + str(set) + u32(0) + '01' + u32(1) + u32(0);
  const at = () => tx.serialize().length;
  let start = at();
  tx.addRule('ip', 't', 'c', rule('ip').dnatMap(['daddr', 'l4proto', 'dport', { numgen: 2 }], 'ep').build());
  const numgen = '0a' + u32(11) + u32(2) + u32(1) + u32(0); // reg 11 = NFT_REG32_03, random, mod 2
  assert.ok(hex(tx.serialize().subarray(start)).endsWith(numgen + lookup('ep') + nat(2, 9)));
  start = at();
  tx.addRule('ip6', 't', 'c', rule('ip6').dnatMap(['daddr'], 'a6').build());
  assert.ok(hex(tx.serialize().subarray(start)).endsWith(lookup('a6') + nat(10, 0)));
  start = at();
  tx.addRule('ip6', 't', 'c', rule('ip6').dnatMap(['daddr'], 'p6').build());
  assert.ok(hex(tx.serialize().subarray(start)).endsWith(lookup('p6') + nat(10, 2))); // port after 16 bytes: NFT_REG_2
});
