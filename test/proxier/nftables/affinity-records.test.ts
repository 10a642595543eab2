// Stale session-affinity records (affinity-records.ts): after the commit that removes a destination's
// endpoint (or its affinity), the records naming that pair are deleted and the others kept; after a
// full sync, every record whose pair no ServicePort wants. On the fake kernel, with records written
// as the packet path would (the fake has no packet path).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../../src/native';
import { setDefFor } from '../../../src/proxier/nftables/compile-base';
import { pairId, readPair, readRecord } from '../../../src/proxier/nftables/affinity-records';
import { TABLE } from '../../../src/proxier/nftables/names';
import { changed, ctx, ep, snapshot, sp } from './fixtures';
import { elementsOf, proxierOnFake } from './fake-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const sticky = sp('sticky', { clusterIP: '172.30.0.50', affinityTimeoutSeconds: 600, nodePort: 30050 });
const three = [ep('10.180.5.1'), ep('10.180.5.2'), ep('10.180.5.3')];
const records = (kernel: Parameters<typeof elementsOf>[0], set = 'affinity-records') => elementsOf(kernel, set).sort();

/** Records as the packet path writes them: client . destination -> endpoint. */
function write(set: string, recs: [client: string, dest: (string | number)[], ep: string][]): Transaction {
  return new Transaction().declareSet('ip', TABLE, setDefFor(ctx(), set))
    .addElements('ip', TABLE, set, recs.map(([client, dest, e]) => ({ key: [client, ...dest], data: [e, 80] })));
}

test('a removed endpoint\'s records go after the commit; the other endpoints\' and other destinations\' stay', async () => {
  const other = sp('other', { clusterIP: '172.30.0.51', affinityTimeoutSeconds: 600 });
  const entries = (eps: Endpoint[]): [ServicePort, Endpoint[]][] => [[sticky, eps], [other, [ep('10.180.5.1')]]];
  const { proxier, kernel } = proxierOnFake({ families: ['ip'] });
  assert.deepEqual(await proxier.sync(snapshot(entries(three)), changed(), true), { full: true, ok: true });
  await kernel.open().commit(write('affinity-records', [
    ['10.0.0.1', ['172.30.0.50', 'tcp', 80], '10.180.5.1'],
    ['10.0.0.2', ['172.30.0.50', 'tcp', 80], '10.180.5.2'],
    ['10.0.0.3', ['172.30.0.51', 'tcp', 80], '10.180.5.1'],
  ]));
  await kernel.open().commit(write('affinity-nodeport-records', [['10.0.0.4', ['tcp', 30050], '10.180.5.1']]));
  // 10.180.5.1 leaves sticky (it stays other's endpoint).
  assert.deepEqual(await proxier.sync(snapshot(entries(three.slice(1))), changed(sticky.key), false), { full: false, ok: true });
  assert.deepEqual(records(kernel), [
    '10.0.0.2 . 172.30.0.50 . tcp . 80 : 10.180.5.2 . 80',
    '10.0.0.3 . 172.30.0.51 . tcp . 80 : 10.180.5.1 . 80',
  ]);
  assert.deepEqual(records(kernel, 'affinity-nodeport-records'), [], 'the NodePort\'s record of it too');
  // A new endpoint moves no record.
  assert.deepEqual(await proxier.sync(snapshot(entries(three)), changed(sticky.key), false), { full: false, ok: true });
  assert.equal(records(kernel).length, 2);
  // sticky loses its affinity: all its records go, other's stay.
  assert.deepEqual(await proxier.sync(snapshot([[{ ...sticky, affinityTimeoutSeconds: 0 }, three], [other, [ep('10.180.5.1')]]]), changed(sticky.key), false),
    { full: false, ok: true });
  assert.deepEqual(records(kernel), ['10.0.0.3 . 172.30.0.51 . tcp . 80 : 10.180.5.1 . 80']);
});

test('a timeout change moves the pairs to another set: the records stay', async () => {
  const { proxier, kernel } = proxierOnFake({ families: ['ip'] });
  assert.deepEqual(await proxier.sync(snapshot([[sticky, three]]), changed(), true), { full: true, ok: true });
  await kernel.open().commit(write('affinity-records', [['10.0.0.1', ['172.30.0.50', 'tcp', 80], '10.180.5.1']]));
  assert.deepEqual(await proxier.sync(snapshot([[{ ...sticky, affinityTimeoutSeconds: 60 }, three]]), changed(sticky.key), false), { full: false, ok: true });
  assert.deepEqual(elementsOf(kernel, 'affinity-endpoints-60').length, 3);
  assert.deepEqual(records(kernel), ['10.0.0.1 . 172.30.0.50 . tcp . 80 : 10.180.5.1 . 80']);
});

test('after a full sync, records naming a pair no ServicePort wants go (changes made while the proxy was down)', async () => {
  const { proxier, kernel } = proxierOnFake({ families: ['ip'] });
  assert.deepEqual(await proxier.sync(snapshot([[sticky, three]]), changed(), true), { full: true, ok: true });
  await kernel.open().commit(write('affinity-records', [
    ['10.0.0.1', ['172.30.0.50', 'tcp', 80], '10.180.5.1'],
    ['10.0.0.2', ['172.30.0.50', 'tcp', 80], '10.180.9.9'],
    ['10.0.0.3', ['172.30.0.99', 'tcp', 80], '10.180.5.1'],
  ]));
  assert.deepEqual(await proxier.sync(snapshot([[sticky, three]]), changed(), true), { full: true, ok: true });
  assert.deepEqual(records(kernel), ['10.0.0.1 . 172.30.0.50 . tcp . 80 : 10.180.5.1 . 80']);
});

test('a deletion the kernel refuses is logged, the sync stands, and the next sync deletes the records', async () => {
  const errors: string[] = [];
  const log = { debug() {}, info() {}, warn() {}, error: (_o: object, m: string) => errors.push(m) };
  const { proxier, kernel, nft } = proxierOnFake({ families: ['ip'], log });
  assert.deepEqual(await proxier.sync(snapshot([[sticky, three]]), changed(), true), { full: true, ok: true });
  await kernel.open().commit(write('affinity-records', [['10.0.0.1', ['172.30.0.50', 'tcp', 80], '10.180.5.1']]));
  nft.inject({ errno: 'EBUSY', at: /^delete element ip kube-proxy affinity-records/ });
  assert.deepEqual(await proxier.sync(snapshot([[sticky, three.slice(1)]]), changed(sticky.key), false), { full: false, ok: true });
  assert.match(errors.join(), /Could not delete stale session-affinity records/);
  assert.equal(records(kernel).length, 1);
  assert.deepEqual(await proxier.sync(snapshot([[sticky, three.slice(1)]]), changed(), false), { full: false, ok: true });
  assert.deepEqual(records(kernel), []);
});

test('records and pairs read from the kernel\'s bytes meet the pairs as compiled, however an address is written', () => {
  const v4 = Buffer.from([10, 0, 0, 1, 172, 30, 0, 50, 6, 0, 0, 0, 0, 80, 0, 0]);
  const data = Buffer.from([10, 180, 5, 1, 0, 80, 0, 0]);
  const records = setDefFor(ctx(), 'affinity-records');
  const r = readRecord(records, v4, data)!;
  assert.deepEqual(r.key, ['10.0.0.1', '172.30.0.50', 'tcp', 80]);
  assert.equal(r.pair, pairId(['172.30.0.50', 'tcp', 80, '10.180.5.1', 80]));
  assert.equal(readRecord(records, v4.subarray(1), data), null, 'a key of another length');
  assert.equal(readRecord(setDefFor(ctx(), 'affinity-nodeport-records'), v4, data), null, 'another family\'s record');
  const pairKey = Buffer.concat([Buffer.from([172, 30, 0, 50, 6, 0, 0, 0, 0, 80, 0, 0]), data]);
  assert.equal(readPair(setDefFor(ctx(), 'affinity-endpoints-600'), pairKey), r.pair);
  const v6 = pairId(['fd00:30::0:41', 'udp', 53, 'fd00:10::1', 5353]);
  assert.equal(v6, pairId(['fd00:30::41', 'udp', 53, 'fd00:10:0:0::1', 5353]));
});
