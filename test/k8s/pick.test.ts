import { test } from 'node:test';
import assert from 'node:assert/strict';
import { date, fields, keys, list, pick, value } from '../../src/k8s/pick';

test('pick keeps the listed fields as plain data, null as null, absent as absent', () => {
  const keep = fields({
    a: value,
    when: date,
    tags: keys('x', 'y'),
    items: list(fields({ n: value })),
    inner: fields({ b: value }),
    gone: value,
  });
  const raw = { a: [1, 2], when: '2025-01-02T03:04:05Z', tags: { x: '1', z: '2' }, items: [{ n: 1, m: 2 }, null], inner: {}, other: 'dropped', gone: null };
  assert.deepEqual(pick(raw, keep), {
    a: [1, 2], when: new Date('2025-01-02T03:04:05Z'), tags: { x: '1' }, items: [{ n: 1 }, null], inner: {}, gone: null,
  });
  // A map left with none of its wanted keys goes; an empty object or list stays (the model logs "no spec" and "no ports" differently).
  assert.deepEqual(pick({ tags: { z: '2' }, inner: {}, items: [] }, keep), { inner: {}, items: [] });
  assert.equal(pick(null, keep), null);
  assert.equal(pick(undefined, keep), undefined);
  assert.equal(Object.getPrototypeOf(pick({ a: 1 }, keep)), Object.prototype);
  // Only own keys: an inherited one is not a label.
  assert.deepEqual(pick({ tags: Object.create({ x: 'inherited' }) }, keep), {});
});
