// ElementBatch: elements encoded as they are given, added as one op. The buffer must be the one
// addElements writes, and the op's record (decoded from the buffer) must describe and script the
// same elements; on the kernel, both must leave the same set contents.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ElementBatch, Nft, Transaction, type Element, type SetSpec, type TableDump } from '../../src/native';
import { FakeKernel } from '../../src/native/testing';
import { ipv6Text } from '../../src/native/txn/element-decode';
import { withNetns } from '../helpers/netns';
import { DATA_SETS, DATA_SETS6, SETS, T4, TD } from './fixtures';

interface Case { family: 'ip' | 'ip6'; table: string; spec: SetSpec; elements: Element[] }

const CASES: Case[] = [
  { family: 'ip', table: T4, spec: SETS.services, elements: [
    { key: ['172.30.0.41', 'tcp', 80], verdict: { kind: 'goto', chain: 'svc-a' } },
    { key: ['172.30.0.42', 17, 53], verdict: { kind: 'drop' } }] },
  { family: 'ip', table: T4, spec: SETS.noEndpoints, elements: [{ key: ['172.30.0.44', 'tcp', 8080] }, { key: ['172.30.0.45', 'sctp', 1] }] },
  { family: 'ip', table: T4, spec: SETS.timed, elements: [{ key: ['10.1.1.1'], timeoutSeconds: 3600 }, { key: ['10.1.1.2'] }] },
  { family: 'ip', table: T4, spec: SETS.protos, elements: [{ key: ['tcp'] }, { key: [1] }] },
  { family: 'ip', table: TD, spec: DATA_SETS.endpoints, elements: [
    { key: ['10.0.0.1', 'tcp', 80, 0], data: ['10.1.0.1', 8080] }, { key: ['10.0.0.1', 'tcp', 80, 1], data: ['10.1.0.2', 8080] }] },
  { family: 'ip', table: TD, spec: DATA_SETS.marks, elements: [{ key: ['10.3.0.1'], data: [0x4000], timeoutSeconds: 60 }, { key: ['10.3.0.2'], data: [1] }] },
  { family: 'ip', table: TD, spec: DATA_SETS.picked, elements: [{ key: ['10.2.0.1', 3] }, { key: ['10.2.0.2', 0xffffffff] }] },
  { family: 'ip6', table: TD, spec: DATA_SETS6.endpoints, elements: [
    { key: ['fd00::1', 'tcp', 80, 0], data: ['fd00:1::1', 8080] }, { key: ['2001:db8::1:0:0:1', 'udp', 80, 2], data: ['::', 8081] }] },
];

function build(c: Case, batched: boolean, cases = [c]): Transaction {
  const tx = new Transaction();
  for (const k of cases) {
    tx.addTable(k.family, k.table);
    tx.addChain(k.family, k.table, { name: 'svc-a' });
    tx.addSet(k.family, k.table, k.spec);
    if (!batched) tx.addElements(k.family, k.table, k.spec.name, k.elements);
    else tx.addElementBatch(k.family, k.table, k.elements.reduce((b, el) => b.add(el), new ElementBatch(k.spec)));
  }
  return tx;
}

test('a batch writes the bytes addElements writes; its record describes and scripts the same elements', () => {
  for (const c of CASES) {
    const plain = build(c, false);
    const batched = build(c, true);
    assert.deepEqual(batched.serialize(), plain.serialize(), c.spec.name);
    assert.equal(batched.opCount, plain.opCount);
    assert.equal(batched.describe(3), plain.describe(3));
    assert.equal(batched.toNftScript(), plain.toNftScript());
  }
});

test('the record decodes elements in canonical form: protocols by name, numbers as numbers', () => {
  const c = CASES[0];
  const op = build(c, true).opRecords()[3];
  assert.equal(op.op, 'addElements');
  assert.deepEqual(op.op === 'addElements' && op.elements, [
    { key: ['172.30.0.41', 'tcp', 80], verdict: { kind: 'goto', chain: 'svc-a' } },
    { key: ['172.30.0.42', 'udp', 53], verdict: { kind: 'drop' } }]);
  const timed = build(CASES[2], true).opRecords()[3];
  assert.deepEqual(timed.op === 'addElements' && timed.elements, [{ key: ['10.1.1.1'], timeoutSeconds: 3600 }, { key: ['10.1.1.2'] }]);
});

test('IPv6 addresses decode as RFC 5952 text', () => {
  const text = (groups: number[]) => ipv6Text(Uint8Array.from(groups.flatMap((g) => [g >> 8, g & 0xff])), 0);
  assert.equal(text([0, 0, 0, 0, 0, 0, 0, 0]), '::');
  assert.equal(text([0, 0, 0, 0, 0, 0, 0, 1]), '::1');
  assert.equal(text([0xfd00, 0, 0, 0, 0, 0, 0, 0]), 'fd00::');
  assert.equal(text([0x2001, 0xdb8, 0, 0, 1, 0, 0, 1]), '2001:db8::1:0:0:1');
  assert.equal(text([1, 0, 0, 2, 0, 0, 0, 3]), '1:0:0:2::3');
  assert.equal(text([1, 0, 2, 0, 3, 0, 4, 0]), '1:0:2:0:3:0:4:0');
  assert.equal(text([0xfd00, 0xabcd, 0x12, 0, 0, 0, 0, 0x41]), 'fd00:abcd:12::41');
});

test('a bad element is refused by name and leaves the batch as it was', () => {
  const b = new ElementBatch(SETS.noEndpoints).add({ key: ['10.0.0.1', 'tcp', 80] });
  const before = Buffer.concat(b.bytes());
  assert.throws(() => b.add({ key: ['10.0.0.300', 'tcp', 80] }), /elements\[1\]\.key\[0\]: '10\.0\.0\.300' is not an IP address/);
  assert.throws(() => b.add({ key: ['10.0.0.2', 'tcp'] }), /elements\[1\]\.key: set 'no-endpoint-services' has 3 key part/);
  assert.throws(() => b.add({ key: ['10.0.0.2', 'tcp', 80], verdict: { kind: 'drop' } }), /elements\[1\]\.verdict: set 'no-endpoint-services' is not a map/);
  assert.equal(b.count, 1);
  assert.deepEqual(Buffer.concat(b.bytes()), before);
  assert.throws(() => new ElementBatch(DATA_SETS.endpoints).add({ key: ['10.0.0.1', 'tcp', 80, 0] }), /elements\[0\]\.data: map 'endpoints-2' needs/);
});

test('batches take known sets without intervals, of the types they were encoded for', () => {
  assert.throws(() => new ElementBatch(SETS.cidrs), /'pod-cidrs' is an interval set; add its elements with addElements/);
  assert.throws(() => new ElementBatch({ name: 'x', key: [] } as never), /set\.key: expected a non-empty array/);
  const tx = new Transaction().addTable('ip', T4).addSet('ip', T4, SETS.noEndpoints).addSet('ip', T4, SETS.cidrs);
  assert.throws(() => tx.addElementBatch('ip', T4, new ElementBatch(SETS.protos)), /unknown set 'protos' in ip kpn-test/);
  const other = { ...SETS.noEndpoints, key: ['ipv4_addr', 'inet_service'] } as SetSpec;
  assert.throws(() => tx.addElementBatch('ip', T4, new ElementBatch(other)), /was encoded as ipv4_addr \. inet_service : , the set in ip kpn-test is ipv4_addr \. inet_proto/);
  assert.throws(() => tx.addElementBatch('ip', T4, new ElementBatch({ ...SETS.cidrs, interval: false })), /with intervals/);
  assert.throws(() => tx.addElementBatch('ip', T4, {} as never), /batch: expected an ElementBatch/);
  const ops = tx.opCount;
  tx.addElementBatch('ip', T4, new ElementBatch(SETS.noEndpoints));
  assert.equal(tx.opCount, ops, 'an empty batch adds no op');
});

test('the fake kernel holds what a batch adds, as it holds what addElements adds', async () => {
  for (const c of CASES) {
    const listing = async (batched: boolean) => {
      const kernel = new FakeKernel();
      await kernel.open().commit(build(c, batched));
      return kernel.listRuleset();
    };
    assert.equal(await listing(true), await listing(false), c.spec.name);
  }
});

/** A hash set lists its elements in the order of its hash, seeded per namespace: compare them sorted. */
function sortedElements(d: TableDump): TableDump {
  const hex = (e: TableDump['sets'][number]['elements'][number]) => e.key.toString('hex');
  return { ...d, sets: d.sets.map((s) => ({ ...s, elements: [...s.elements].sort((a, b) => hex(a).localeCompare(hex(b))) })) };
}

test('the kernel holds what a batch adds, as it holds what addElements adds', async () => {
  const dump = (batched: boolean) => withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      for (const c of CASES) await nft.commit(build(c, batched));
      const [t4, td, td6] = [await nft.dumpTable('ip', T4), await nft.dumpTable('ip', TD), await nft.dumpTable('ip6', TD)];
      return [t4, td, td6].map(sortedElements);
    } finally {
      nft.close();
    }
  });
  const [plain, batched] = [await dump(false), await dump(true)];
  assert.ok(plain[1].sets.some((s) => s.elements.length === 2));
  assert.deepEqual(batched, plain);
});

test('reserve makes room at once and changes nothing that is written', () => {
  const plain = build(CASES[4], true);
  const tx = new Transaction().reserve(1 << 20);
  for (const k of [CASES[4]]) {
    tx.addTable(k.family, k.table).addChain(k.family, k.table, { name: 'svc-a' }).addSet(k.family, k.table, k.spec);
    tx.reserve(0).addElementBatch(k.family, k.table, k.elements.reduce((b, el) => b.add(el), new ElementBatch(k.spec)));
  }
  assert.deepEqual(tx.serialize(), plain.serialize());
  assert.throws(() => tx.reserve(-1), /bytes: -1 is not a byte count/);
  assert.throws(() => tx.reserve(1.5), /bytes: 1.5 is not a byte count/);
});

test('a batch of many elements (several chunks) writes what addElements writes', () => {
  const spec = DATA_SETS.endpoints;
  const elements: Element[] = Array.from({ length: 20_000 }, (_, i) =>
    ({ key: [`10.${i >> 8 & 255}.${i & 255}.1`, i % 2 ? 'udp' : 'tcp', 1 + (i % 60_000), i % 7], data: [`10.200.${i >> 8 & 255}.${i & 255}`, 8080] }));
  const c: Case = { family: 'ip', table: TD, spec, elements };
  const batched = build(c, true);
  const plain = build(c, false);
  assert.deepEqual(batched.serialize(), plain.serialize());
  assert.equal(batched.describe(3), plain.describe(3));
  assert.match(batched.describe(3), /, \.\.\. \} \(20000 elements\)$/);
  assert.equal(batched.toNftScript(), plain.toNftScript());
  const op = batched.opRecords()[3];
  assert.deepEqual(op.op === 'addElements' && op.elements[19_999], elements[19_999]);
});
