// How a new connection finds the rule of its destination's endpoint count without a verdict map.
//
// Each endpoint count E has its map (`endpoints-E`) and one rule that draws `numgen random mod E`
// in it. Counts up to SELECT_RULES_MAX are tried rule after rule. A larger count is reached through
// a binary decision over its code, E - SELECT_RULES_MAX: a destination is an element of the plain
// set of every bit set in its code (`endpoints-over-4-bit-1`), and the select chains test those
// sets, highest differing bit first, with `goto` the chain of the codes that have the bit. A
// destination with at most SELECT_RULES_MAX endpoints is in none of them and falls through every
// test to the small counts' rules (code 0).
//
// Why: a transaction that adds a jump or goto verdict (a rule, or a verdict-map element) makes the
// kernel validate the whole table, through every element of every verdict map
// (docs/nftables-ruleset.md, "When the kernel validates the whole table"). When a destination's
// count changes, or a Service comes or goes, only plain-set and data-map elements change here; the
// rules change only when a count appears in, or leaves, the cluster.
import { SELECT_RULES_MAX } from './names';

export interface CountLeaf { code: number }
export interface CountBranch {
  /** The bit this node tests; the codes under it agree on every higher bit. */
  bit: number;
  /** Codes with the bit set, then those without. */
  one: CountNode;
  zero: CountNode;
  /** The range of codes that share this node's higher bits: [lo, hi]. */
  lo: number;
  hi: number;
}
export type CountNode = CountLeaf | CountBranch;

export const isBranch = (n: CountNode): n is CountBranch => 'bit' in n;

/** A count's code: 0 for the counts the select rules serve, E - SELECT_RULES_MAX above them. */
export const countCode = (count: number): number => Math.max(0, count - SELECT_RULES_MAX);

/** The bits set in a count's code: the bit sets a destination with `count` endpoints is in. */
export function codeBits(count: number): number[] {
  const out: number[] = [];
  for (let code = countCode(count), bit = 0; code > 0; code >>>= 1, bit++) if (code & 1) out.push(bit);
  return out;
}

/**
 * The decision tree over the codes in use (0 is always in it: the small counts' rules, possibly
 * none). Each branch tests the highest bit its codes differ in, so a path is as long as the
 * number of distinct bits that separate its code from the others, at most the bit length of the
 * largest code.
 */
export function countTrie(largeCounts: Iterable<number>): CountNode {
  const codes = [...new Set([0, ...[...largeCounts].map(countCode)])].sort((a, b) => a - b);
  return build(codes);
}

function build(codes: readonly number[]): CountNode {
  if (codes.length === 1) return { code: codes[0] };
  const bit = 31 - Math.clz32(codes[0] ^ codes[codes.length - 1]);
  const lo = (codes[0] >>> (bit + 1)) << (bit + 1);
  const split = codes.findIndex((c) => (c >>> bit) & 1);
  return { bit, one: build(codes.slice(split)), zero: build(codes.slice(0, split)), lo, hi: lo + 2 ** (bit + 1) - 1 };
}
