// Look-ups of single objects (Nft.getElements, Nft.dumpChain and FakeNft's): their results, and
// the checks and encodings both kernels share, so the real and the fake one refuse the same calls.
import type { DumpedElement } from './nft';
import { encodeKey, type KeyPart } from '../txn/elements';
import type { Family } from '../txn/nft-types';
import type { Rule } from '../txn/rule';
import type { SetSpec } from '../txn/set-spec';
import { Transaction } from '../txn/transaction';

/** One key looked up: `element` as the kernel holds it (as dumpTable gives it), absent when the set has no such key. */
export interface ElementLookup { key: KeyPart[]; element?: DumpedElement }

/** One rule of a dumped chain. `matches`: with expected rules, whether the kernel's rule is the expected one at its position. */
export interface ChainRule { handle: number; exprs: string[]; jumps: string[]; matches?: boolean }

/** The rules a chain should hold, and the specs of the sets they refer to. */
export interface ExpectedChain { rules: readonly Rule[]; sets: readonly SetSpec[] }

/** The most keys one getElements call takes (the addon's bound). */
export const MAX_LOOKUP_KEYS = 65536;

/** Each key encoded as the element encoder encodes it; a bad one throws naming keys[i]. */
export function encodeLookupKeys(set: SetSpec, keys: readonly (readonly KeyPart[])[]): Buffer[] {
  if (typeof set !== 'object' || set === null || typeof set.name !== 'string' || !Array.isArray(set.key)) {
    throw new TypeError('set: expected a set spec ({ name, key, ... })');
  }
  if (!Array.isArray(keys)) throw new TypeError('keys: expected an array of keys');
  if (keys.length === 0 || keys.length > MAX_LOOKUP_KEYS) throw new RangeError(`keys: expected 1..${MAX_LOOKUP_KEYS} keys, got ${keys.length}`);
  return keys.map((k, i) => Buffer.from(encodeKey(set, k, `keys[${i}]`)));
}

/** The expected rules as a transaction (sets declared, rules added to `chain`): what the addon compares against. */
export function expectedChainTransaction(family: Family, table: string, chain: string, expected: ExpectedChain): Transaction {
  if (typeof expected !== 'object' || expected === null || !Array.isArray(expected.rules) || !Array.isArray(expected.sets)) {
    throw new TypeError('expected: expected { rules: Rule[], sets: SetSpec[] }');
  }
  const tx = new Transaction();
  for (const s of expected.sets) tx.declareSet(family, table, s);
  for (const r of expected.rules) tx.addRule(family, table, chain, r);
  return tx;
}
