// The element index's entries (element-index.ts): one entry per destination of an endpoint map and
// per hairpin address, and a full sync's claims written as if every element had its own entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ElementDef } from '../../../src/proxier/nftables/desired';
import { ElementIndex, IndexEdit, byEntry, claimAll, entryKey } from '../../../src/proxier/nftables/element-index';

const slots = (set: string, dest: (string | number)[], eps: string[]): ElementDef[] =>
  eps.map((ip, i) => ({ set, key: [...dest, i], data: [ip, 80] }));

test('an endpoint map\'s slots of one destination share an entry; hairpin keeps its address once; other keys are their text', () => {
  const [a0, a1] = slots('endpoints-2', ['10.96.0.1', 'tcp', 80], ['10.180.0.1', '10.180.0.2']);
  assert.equal(entryKey(a0), '10.96.0.1 . tcp . 80');
  assert.equal(entryKey(a1), entryKey(a0));
  assert.equal(entryKey({ set: 'nodeport-endpoints-3', key: ['tcp', 30080, 2], data: ['10.180.0.1', 80] }), 'tcp . 30080');
  assert.equal(entryKey({ set: 'hairpin', key: ['10.180.0.1', '10.180.0.1'] }), '10.180.0.1');
  assert.equal(entryKey({ set: 'cluster-ip-ports', key: ['10.96.0.1', 'tcp', 80] }), '10.96.0.1 . tcp . 80');
  // A set whose name only looks like an endpoint map's prefix keeps the whole key.
  assert.equal(entryKey({ set: 'endpoints-x', key: ['10.96.0.1', 'tcp', 80, 0] }), '10.96.0.1 . tcp . 80 . 0');
});

test('a full sync writes every slot of its first claimant, none of a later one, and a repeated key once with its last element', () => {
  const index = new ElementIndex();
  const a = slots('endpoints-2', ['5.6.7.8', 'tcp', 80], ['10.180.0.1', '10.180.0.2']);
  const b = slots('endpoints-2', ['5.6.7.8', 'tcp', 80], ['10.180.1.1', '10.180.1.2']);
  assert.deepEqual(claimAll(index, 'a', a), a);
  assert.deepEqual(claimAll(index, 'b', b), []);
  assert.deepEqual(index.get('endpoints-2', '5.6.7.8 . tcp . 80'), ['a', 'b']);
  // The ClusterIP as an external IP: the same destination twice in one ServicePort.
  const again = slots('endpoints-2', ['10.96.0.9', 'tcp', 80], ['10.180.2.1', '10.180.2.2']);
  const later = slots('endpoints-2', ['10.96.0.9', 'tcp', 80], ['10.180.3.1', '10.180.3.2']);
  const plain: ElementDef = { set: 'cluster-ips', key: ['10.96.0.9'] };
  assert.deepEqual(claimAll(index, 'c', [...again, plain, ...later, plain]), [...later, plain]);
  assert.equal(index.get('endpoints-2', '10.96.0.9 . tcp . 80'), 'c');
  assert.deepEqual([...index.counts()], [['endpoints-2', 2], ['cluster-ips', 1]]);
});

test('an edit counts entries, not slots: a set stays in use while one destination is left in it', () => {
  const index = new ElementIndex();
  const a = slots('endpoints-3', ['10.96.0.1', 'tcp', 80], ['10.180.0.1', '10.180.0.2', '10.180.0.3']);
  const b = slots('endpoints-3', ['10.96.0.2', 'tcp', 80], ['10.180.1.1', '10.180.1.2', '10.180.1.3']);
  claimAll(index, 'a', a);
  claimAll(index, 'b', b);
  const edit = new IndexEdit(index);
  edit.release('a', byEntry(a));
  assert.deepEqual([...edit.countsAfter()], [['endpoints-3', 1]]);
  assert.deepEqual([...edit.changed.values()].map((t) => [t.entry, t.claimants]), [['10.96.0.1 . tcp . 80', undefined]]);
  edit.release('b', byEntry(b));
  assert.deepEqual([...edit.countsAfter()], [['endpoints-3', 0]]);
  edit.applyTo(index);
  assert.deepEqual([...index.entries()], []);
});

test("byEntry: a destination's slots make one entry, a key wanted twice is there once with its last element", () => {
  const a = slots('endpoints-2', ['10.96.0.1', 'tcp', 80], ['10.180.0.1', '10.180.0.2']);
  const again = slots('endpoints-2', ['10.96.0.1', 'tcp', 80], ['10.180.3.1', '10.180.3.2']);
  const ip: ElementDef = { set: 'cluster-ips', key: ['10.96.0.1'] };
  const hairpin: ElementDef = { set: 'hairpin', key: ['10.180.0.1', '10.180.0.1'] };
  const m = byEntry([...a, ip, hairpin, again[1], ip]);
  assert.deepEqual([...m.keys()], ['endpoints-2\u000010.96.0.1 . tcp . 80', 'cluster-ips\u000010.96.0.1', 'hairpin\u000010.180.0.1']);
  assert.deepEqual(m.get('endpoints-2\u000010.96.0.1 . tcp . 80'), { set: 'endpoints-2', entry: '10.96.0.1 . tcp . 80', els: [a[0], again[1]] });
  assert.deepEqual(m.get('cluster-ips\u000010.96.0.1')!.els, [ip]);
  assert.deepEqual(m.get('hairpin\u000010.180.0.1')!.entry, '10.180.0.1');
  for (const [id, e] of m) assert.equal(id, `${e.set}\u0000${entryKey(e.els[0])}`);
});
