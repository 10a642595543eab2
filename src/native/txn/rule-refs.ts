// What a rule refers to, kept in the Transaction's op record instead of the Rule (a million built
// rules must not stay alive after they were written): the chains it jumps to and the sets it
// binds, in expression order, which the kernel resolves and counts, and its expression names as a
// table dump lists them. FakeNft applies rules from this record.
import type { Expr } from './expressions';
import { VERDICT_CODE } from './nft-types';

/** How a rule binds a set: a plain lookup, a verdict map, a data map (dnat), a packet-path update. */
export type SetUse = 'match' | 'vmap' | 'map' | 'dynset';
export type RuleRef = { chain: string } | { set: string; use: SetUse };

export interface RuleRefs {
  /** NFTA_EXPR_NAME of each expression, space-separated (Nft.dumpTable's `exprs`). */
  exprs: string;
  /** Absent when the rule refers to no chain and no set. */
  refs?: RuleRef[];
}

// The same few expression sequences recur across thousands of rules: one string for each.
const interned = new Map<string, string>();
const MAX_INTERNED = 10_000;

function intern(s: string): string {
  const known = interned.get(s);
  if (known !== undefined) return known;
  if (interned.size >= MAX_INTERNED) interned.clear();
  interned.set(s, s);
  return s;
}

/** The kernel names a verdict an `immediate` (a load into the verdict register). */
function kernelName(e: Expr): string {
  return e.type === 'verdict' ? 'immediate' : e.type;
}

function refOf(e: Expr): RuleRef | undefined {
  if (e.type === 'verdict') return e.code === VERDICT_CODE.jump || e.code === VERDICT_CODE.goto ? { chain: e.chain } : undefined;
  if (e.type === 'dynset') return { set: e.set, use: 'dynset' };
  if (e.type !== 'lookup') return undefined;
  return { set: e.set, use: e.dreg === undefined ? 'match' : e.dreg === 0 ? 'vmap' : 'map' };
}

export function ruleRefs(exprs: readonly Expr[]): RuleRefs {
  const refs: RuleRef[] = [];
  for (const e of exprs) {
    const r = refOf(e);
    if (r) refs.push(r);
  }
  const names = intern(exprs.map(kernelName).join(' '));
  return refs.length > 0 ? { exprs: names, refs } : { exprs: names };
}
