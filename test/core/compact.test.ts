import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EMPTY, itemsOf, keptFilter, keptOneOrMore, setOrDelete } from '../../src/core/compact';

test('keptFilter: the list itself when nothing is filtered out, the shared empty list when everything is, else a copy', () => {
  const list = [1, 2, 3, 4];
  assert.equal(keptFilter(list, () => true), list);
  assert.equal(keptFilter(list, () => false), EMPTY);
  const odd = keptFilter(list, (n) => n % 2 === 1);
  assert.deepEqual(odd, [1, 3]);
  assert.deepEqual(list, [1, 2, 3, 4]);
  assert.ok(Object.isFrozen(EMPTY));
});

test('keptOneOrMore / itemsOf: a lone item is kept as itself, several as a list, none as absent', () => {
  assert.equal(keptOneOrMore(['a']), 'a');
  assert.deepEqual(keptOneOrMore(new Set(['a', 'b'])), ['a', 'b']);
  assert.equal(keptOneOrMore([]), undefined);
  assert.deepEqual(itemsOf('a'), ['a']);
  assert.deepEqual(itemsOf(['a', 'b']), ['a', 'b']);
  assert.deepEqual(itemsOf(undefined), []);
  const m = new Map<string, number>([['k', 1]]);
  setOrDelete(m, 'k', undefined);
  assert.equal(m.has('k'), false);
  setOrDelete(m, 'k', 2);
  assert.equal(m.get('k'), 2);
});
