// The transaction's buffer bookkeeping a sync relies on: its byte count without a view, a small
// first allocation that grows to the same bytes, and a declared set's spec checked once only when
// it cannot change.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SetSpec, Transaction } from '../../src/native';

const EP: SetSpec = { name: 'ep', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'],
  typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport' };

function fill(tx: Transaction): Transaction {
  tx.addTable('ip', 't').declareSet('ip', 't', EP);
  for (let i = 0; i < 200; i++) tx.addElements('ip', 't', 'ep', [{ key: [`10.0.${i >> 8}.${i & 255}`, 'tcp', 80, i % 2], data: ['10.1.0.2', 8080] }]);
  return tx;
}

test('byteLength is the serialized length, after every op', () => {
  const tx = new Transaction();
  assert.equal(tx.byteLength, tx.serialize().length);
  tx.addTable('ip', 't');
  assert.equal(tx.byteLength, tx.serialize().length);
  fill(tx);
  assert.equal(tx.byteLength, tx.serialize().length);
  assert.ok(tx.byteLength > 4096);
});

test('a transaction that starts small grows to the same bytes as one that starts large', () => {
  const small = fill(new Transaction({ initialBytes: 64 }));
  const large = fill(new Transaction());
  assert.ok(small.byteLength > 64 * 64, 'grew past its first size many times');
  assert.deepEqual(small.serialize(), large.serialize());
});

test('initialBytes must be a byte count', () => {
  for (const bad of [0, 63, 1.5, -1, 2 ** 31, NaN]) {
    assert.throws(() => new Transaction({ initialBytes: bad }), /initialBytes: .* is not a byte count/, String(bad));
  }
});

test('a frozen set spec is checked once; one that can still change is checked every time', () => {
  const frozen = Object.freeze({ ...EP, key: Object.freeze([...EP.key]), map: Object.freeze([...(EP.map as string[])]) }) as SetSpec;
  new Transaction().declareSet('ip', 't', frozen);
  new Transaction().declareSet('ip', 't', frozen);
  const open: SetSpec = { ...EP, key: [...EP.key] };
  new Transaction().declareSet('ip', 't', open);
  (open.key as string[])[0] = 'nonsense';
  assert.throws(() => new Transaction().declareSet('ip', 't', open), /set\.key\[0\]: 'nonsense' is not a key type/);
  const shallow = Object.freeze({ ...EP, key: [...EP.key] }) as SetSpec;
  new Transaction().declareSet('ip', 't', shallow);
  (shallow.key as string[])[0] = 'nonsense';
  assert.throws(() => new Transaction().declareSet('ip', 't', shallow), /set\.key\[0\]: 'nonsense' is not a key type/,
    'a frozen spec whose key array can change is not trusted');
});
