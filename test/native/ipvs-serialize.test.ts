// The IPVS op buffer: what serializeIpvsOps writes the addon's decoder reads back op for op, bad
// ops are refused in TypeScript with their index and field, and bytes TypeScript would never write
// are refused by the decoder with their op index and field, before anything is sent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAddon } from '../../src/native';
import { serializeIpvsOps, serializeIpvsServiceKey } from '../../src/native/ipvs/ipvs-serialize';
import type { IpvsOp, IpvsService } from '../../src/native/ipvs/ipvs-types';

const svc4: IpvsService = { family: 4, protocol: 'TCP', address: '10.96.0.10', port: 53, scheduler: 'rr', flags: 0, timeout: 0, prefixLength: 32 };
const svc6: IpvsService = { family: 6, protocol: 'SCTP', address: 'fd00::10', port: 9000, scheduler: 'wrr', flags: 1, timeout: 10800, prefixLength: 128 };
const dest4 = { family: 4 as const, address: '10.1.0.5', port: 8053, weight: 1, forward: 'masq' as const };
const dest6 = { family: 6 as const, address: 'fd00:1::5', port: 9001, weight: 0, forward: 'masq' as const };

const every: IpvsOp[] = [
  { op: 'addService', service: svc4 },
  { op: 'addService', service: svc6 },
  { op: 'editService', service: { ...svc4, scheduler: 'sh', protocol: 'UDP' } },
  { op: 'addDest', service: svc4, dest: dest4 },
  { op: 'addDest', service: svc6, dest: dest6 },
  { op: 'editDest', service: svc4, dest: { ...dest4, weight: 2147483647, forward: 'route' } },
  { op: 'deleteDest', service: svc6, dest: { address: 'fd00:1::5', port: 9001 } },
  { op: 'deleteService', service: { family: 4, protocol: 'UDP', address: '10.96.0.10', port: 53 } },
];

const validate = (b: Buffer) => loadAddon().validateIpvsOps(b);
/** Byte offset of op i in the buffer of `ops`. */
const opAt = (ops: IpvsOp[], i: number) => serializeIpvsOps(ops.slice(0, i)).length;
const patched = (ops: IpvsOp[], at: number, bytes: number[]) => {
  const b = Buffer.from(serializeIpvsOps(ops));
  Buffer.from(bytes).copy(b, at);
  return b;
};

test('every op kind, both families, serializes and decodes to the same op count', () => {
  assert.equal(validate(serializeIpvsOps(every)), every.length);
  assert.equal(validate(serializeIpvsOps([])), 0);
  const many: IpvsOp[] = Array.from({ length: 20000 }, (_, i) => ({ op: 'addDest', service: svc4, dest: { ...dest4, port: i % 65536 } }));
  assert.equal(validate(serializeIpvsOps(many)), 20000);
});

test('a v4 op has the layout docs/wire-format.md gives', () => {
  const b = serializeIpvsOps([{ op: 'addDest', service: svc4, dest: dest4 }]);
  assert.deepEqual([...b], [
    0x4b, 0x50, 0x56, 0x49, 1, 0, 0, 0, 1, 0, 0, 0, // magic, version, reserved, opCount
    4, 6, 53, 0, 4, 10, 96, 0, 10, // addDest, TCP, port 53, family 4, 10.96.0.10
    0x75, 0x1f, 4, 10, 1, 0, 5, 1, 0, 0, 0, 0, // port 8053, family 4, 10.1.0.5, weight 1, masq
  ]);
});

const tsCases: [string, IpvsOp, ErrorConstructor, RegExp][] = [
  ['port above 65535', { op: 'addService', service: { ...svc4, port: 65536 } }, RangeError, /^ops\[1\]\.service\.port: /],
  ['v6 address in a v4 service', { op: 'addService', service: { ...svc4, address: 'fd00::1' } }, RangeError, /^ops\[1\]\.service\.address: .*not an IPv4/],
  ['scheduler of 16 chars', { op: 'addService', service: { ...svc4, scheduler: 'x'.repeat(16) } }, RangeError, /^ops\[1\]\.service\.scheduler:/],
  ['v6 prefix 0', { op: 'editService', service: { ...svc6, prefixLength: 0 } }, RangeError, /^ops\[1\]\.service\.prefixLength:/],
  ['v4 prefix 33', { op: 'editService', service: { ...svc4, prefixLength: 33 } }, RangeError, /^ops\[1\]\.service\.prefixLength:/],
  ['negative weight', { op: 'addDest', service: svc4, dest: { ...dest4, weight: -1 } }, RangeError, /^ops\[1\]\.dest\.weight:/],
  ['unknown forward', { op: 'addDest', service: svc4, dest: { ...dest4, forward: 'nat' as never } }, TypeError, /^ops\[1\]\.dest\.forward:/],
  ['unknown protocol', { op: 'deleteService', service: { ...svc4, protocol: 'ICMP' as never } }, TypeError, /^ops\[1\]\.service\.protocol:/],
  ['unknown op', { op: 'flush' } as never, TypeError, /^ops\[1\]\.op:/],
  ['dest family 6 with a v4 address', { op: 'deleteDest', service: svc4, dest: { family: 6, address: '10.0.0.1', port: 1 } as never }, RangeError, /^ops\[1\]\.dest\.address:/],
];
for (const [name, op, type, re] of tsCases) {
  test(`serializer refuses ${name}`, () => assert.throws(() => serializeIpvsOps([every[0], op]), (e: Error) => e instanceof type && re.test(e.message)));
}

// Offsets inside op 1 = every[1] (addService v6 SCTP fd00::10): opcode, protocol, port(2), family, address(16), then the body.
const op1 = opAt(every, 1);
const sched1 = op1 + 1 + 1 + 2 + 1 + 16;
const op3 = opAt(every, 3); // addDest v4: opcode, proto, port, fam, addr(4), dest port(2), fam, addr(4), weight(4), forward
const decoderCases: [string, Buffer, RegExp][] = [
  ['a bad magic', patched(every, 0, [0]), /field magic: not an IPVS op buffer/],
  ['version 2', patched(every, 4, [2]), /field version: version 2/],
  ['an op count beyond the buffer', patched(every, 8, [0xff, 0xff, 0, 0]), /field opCount: /],
  ['opcode 7', patched(every, op1, [7]), /field ops\[1\]\.opcode: opcode 7/],
  ['protocol 1', patched(every, op1 + 1, [1]), /field ops\[1\]\.service\.protocol: protocol 1/],
  ['family 5', patched(every, op1 + 4, [5]), /field ops\[1\]\.service\.family: family 5/],
  ['a scheduler name of 16 bytes', patched(every, sched1, [16]), /field ops\[1\]\.service\.scheduler: name length 16/],
  ['a scheduler name with a NUL', patched(every, sched1 + 1, [0]), /field ops\[1\]\.service\.scheduler: byte 0/],
  ['v6 prefix 129', patched(every, sched1 + 1 + 3 + 8, [129]), /field ops\[1\]\.service\.prefixLength: prefix length 129/],
  ['weight 2^31', patched(every, op3 + 9 + 7, [0, 0, 0, 0x80]), /field ops\[3\]\.dest\.weight: weight 2147483648/],
  ['forward 5', patched(every, op3 + 9 + 7 + 4, [5]), /field ops\[3\]\.dest\.forward: forwarding method 5/],
  ['dest family 0', patched(every, op3 + 9 + 2, [0]), /field ops\[3\]\.dest\.family: family 0/],
  ['a truncated last op', serializeIpvsOps(every).subarray(0, serializeIpvsOps(every).length - 1), /field ops\[7\]\.service\.address: truncated/],
  ['a byte after the last op', Buffer.concat([serializeIpvsOps(every), Buffer.from([0])]), /field end: 1 bytes after the last op/],
];
for (const [name, buf, re] of decoderCases) {
  test(`decoder refuses ${name}`, () => assert.throws(() => validate(buf), (e: Error) => e instanceof RangeError && re.test(e.message)));
}

test('decoder refuses what is not a Buffer', () => {
  assert.throws(() => validate('x' as never), TypeError);
});

test('a service key serializes to exactly its bytes', () => {
  assert.deepEqual([...serializeIpvsServiceKey(svc4)], [6, 53, 0, 4, 10, 96, 0, 10]);
  assert.throws(() => serializeIpvsServiceKey({ ...svc4, port: -1 }), /^RangeError: service\.port:/);
});
