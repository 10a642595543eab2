// The decision tree that sends a destination to its endpoint count's rule (count-trie.ts): for any
// counts in use, every count reaches its own leaf, the small counts (1..4) reach code 0, and a path
// tests at most one bit per bit of the largest code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeBits, countCode, countTrie, isBranch, type CountNode } from '../../../src/proxier/nftables/count-trie';

/** The code of the leaf a destination of `count` endpoints reaches, as the kernel follows the tests. */
function walk(node: CountNode, count: number): number {
  const code = countCode(count);
  let n = node;
  while (isBranch(n)) n = (code >>> n.bit) & 1 ? n.one : n.zero;
  return n.code;
}

function depth(n: CountNode, count: number): number {
  const code = countCode(count);
  let d = 0;
  for (let x = n; isBranch(x); x = (code >>> x.bit) & 1 ? x.one : x.zero) d++;
  return d;
}

function leaves(n: CountNode): number[] {
  return isBranch(n) ? [...leaves(n.one), ...leaves(n.zero)] : [n.code];
}

/** A small deterministic generator (xorshift), so a failure names its seed. */
function rng(seed: number): () => number {
  let x = seed || 1;
  return () => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return (x >>> 0) / 2 ** 32; };
}

test('codes and bits: counts 1..4 have code 0 and no bit; above, count - 4 in binary', () => {
  assert.deepEqual([1, 2, 3, 4].map(codeBits), [[], [], [], []]);
  assert.deepEqual([5, 6, 7, 8, 9, 12, 100].map(codeBits), [[0], [1], [0, 1], [2], [0, 2], [3], [5, 6]]);
});

test('no count above 4 in use: a single leaf, the small counts\' rules, and no test', () => {
  assert.deepEqual(countTrie([]), { code: 0 });
});

test('every count in use reaches its own leaf, the small ones code 0, in at most one test per bit of the largest code (2,000 random sets)', () => {
  for (let seed = 1; seed <= 2000; seed++) {
    const r = rng(seed);
    const max = 5 + Math.floor(r() * (r() < 0.2 ? 2000 : 40));
    const counts = Array.from({ length: 1 + Math.floor(r() * 30) }, () => 1 + Math.floor(r() * max));
    const large = counts.filter((c) => c > 4);
    const tree = countTrie(large);
    const codes = [...new Set([0, ...large.map(countCode)])].sort((a, b) => a - b);
    assert.deepEqual(leaves(tree).sort((a, b) => a - b), codes, `seed ${seed}: one leaf per code in use`);
    const bits = 32 - Math.clz32(Math.max(...codes));
    for (const c of counts) {
      assert.equal(walk(tree, c), countCode(c), `seed ${seed}: count ${c} of ${counts}`);
      assert.ok(depth(tree, c) <= bits, `seed ${seed}: count ${c} passes ${depth(tree, c)} tests, more than ${bits} bits`);
    }
  }
});

test('each test\'s bit is set in every code on its one side and in none on its zero side; ranges hold their codes', () => {
  const check = (n: CountNode): number[] => {
    if (!isBranch(n)) return [n.code];
    const one = check(n.one);
    const zero = check(n.zero);
    assert.ok(one.every((c) => (c >>> n.bit) & 1) && zero.every((c) => !((c >>> n.bit) & 1)));
    assert.ok([...one, ...zero].every((c) => c >= n.lo && c <= n.hi), `codes within ${n.lo}..${n.hi}`);
    return [...one, ...zero];
  };
  check(countTrie([5, 6, 7, 8, 12, 13, 20, 36, 37, 1000]));
});
