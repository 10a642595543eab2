// memberDropper: the members named go from the bytes, whatever they hold and wherever they are, and
// nothing else changes: checked against deleting the same members from the parsed value.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { memberDropper } from '../../src/k8s/drop-members';
import { generateCluster } from '../../bench/scale/cluster-objects';

const NAMES = ['managedFields', 'targetRef'];
const drop = memberDropper(NAMES);

/** What dropping must give: the value with every named member whose value is an object or a list deleted. */
function without(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(without);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (NAMES.includes(k) && x !== null && typeof x === 'object') continue;
    out[k] = without(x);
  }
  return out;
}

function dropped(text: string): string {
  const b = Buffer.from(text);
  return b.toString('utf8', 0, drop(b));
}

function agrees(value: unknown): void {
  const text = JSON.stringify(value);
  assert.deepEqual(JSON.parse(dropped(text)), without(value), text);
}

/** A small deterministic generator (xorshift), so a failure is reproducible. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const TRICKY = ['', ',', '{', '}', '[', ']', '"', '\\', '\\"', '","managedFields":[', '{"targetRef":{"a":1}}', 'managedFields', 'é∂😀', '\n\t', ',"targetRef":'];

function randomValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth > 4 || k < 0.3) {
    const p = r();
    if (p < 0.4) return TRICKY[Math.floor(r() * TRICKY.length)] + String(Math.floor(r() * 100));
    if (p < 0.6) return Math.floor(r() * 1000) - 500;
    if (p < 0.75) return r() < 0.5;
    return null;
  }
  if (k < 0.55) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const keys = [...NAMES, 'a', 'b', 'metadata', 'f:managedFields', 'managedFields2', 'xtargetRef', TRICKY[Math.floor(r() * TRICKY.length)]];
  const o: Record<string, unknown> = {};
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) o[keys[Math.floor(r() * keys.length)]] = randomValue(r, depth + 1);
  return o;
}

describe('memberDropper', () => {
  it('drops the named members (objects and lists) at any depth, first, last, only or in a row', () => {
    agrees({ managedFields: [{ a: 1 }], b: 2 });
    agrees({ a: 1, managedFields: [] });
    agrees({ managedFields: [{ fieldsV1: { 'f:metadata': { '.': {} } } }] });
    agrees({ managedFields: [], targetRef: {}, a: 1 });
    agrees({ managedFields: [], targetRef: {} });
    agrees({ a: 1, managedFields: [], targetRef: { kind: 'Pod' }, b: [{ targetRef: { x: [1, { y: '}' }] }, c: 3 }] });
    agrees([{ targetRef: { name: 'a' } }, { addresses: ['10.0.0.1'], targetRef: { name: 'b' } }]);
    assert.equal(dropped('{"metadata":{"name":"x","managedFields":[{"m":"k"}]},"spec":{}}'), '{"metadata":{"name":"x"},"spec":{}}');
  });

  it('keeps the members whose value is not an object or a list, and names that only contain the names', () => {
    agrees({ managedFields: null, targetRef: 'x', a: 1 });
    agrees({ 'f:managedFields': {}, managedFields2: [], xtargetRef: {} });
    agrees({ a: '","managedFields":[1]', b: ['{"targetRef":{}}'], c: { '\\': '\\"' } });
  });

  it('agrees with deleting the members from the parsed value (2,000 random documents)', () => {
    const r = rng(11);
    for (let i = 0; i < 2000; i++) agrees(randomValue(r, 0));
  });

  it('agrees on the scale bench objects, and leaves their other members byte for byte', () => {
    const { services, slices } = generateCluster({ services: 40, seed: 3 });
    const page = { kind: 'List', metadata: { resourceVersion: '9' }, items: [...services, ...slices] };
    agrees(page);
    const text = dropped(JSON.stringify(page));
    assert.ok(!text.includes('"managedFields":') && !text.includes('"targetRef":'));
    assert.equal(text, JSON.stringify(without(page)));
  });

  it('leaves what it cannot take apart safely: spaces around the key, a value that never closes or does not match', () => {
    const spaced = JSON.stringify({ managedFields: [1], a: 1 }, null, 1);
    assert.equal(dropped(spaced), spaced);
    for (const broken of ['{"a":1,"managedFields":[{"x":1}', '{"managedFields":[1}', '{"managedFields":["]', '{"a":1,"targetRef":{"k":"\\"}']) {
      assert.equal(dropped(broken), broken);
      assert.throws(() => JSON.parse(dropped(broken)));
    }
  });

  it('refuses a name that would need escaping in JSON', () => {
    assert.throws(() => memberDropper(['a"b']), /not a plain member name/);
  });
});
