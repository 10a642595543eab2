// Which of one table's objects --cleanup removes (pure): upstream's chains (upstream-names.ts)
// with every rule in them, and the rules of built-in (base) chains that jump or go to one of them
// (upstream installs those jumps: `-A PREROUTING ... -j KUBE-SERVICES`). Nothing else changes.
// A rule of another regular chain that refers to one of upstream's chains is someone else's
// (a CNI's `-j KUBE-MARK-MASQ`, say): that chain stays, with every chain it reaches, since
// removing it would mean editing that owner's rule. The kernel would refuse the delete anyway.
import type { TableDump } from '../native';
import { isUpstreamChain } from './upstream-names';

export interface UpstreamTablePlan {
  /** Regular chains to flush and delete, in the dump's order. */
  chains: string[];
  /** Rules inside those chains (removed by the flush). */
  rulesInChains: number;
  /** Rules of base chains that jump or go to a removed chain, deleted by handle. */
  jumps: { chain: string; handle: number }[];
  /** Upstream's chains that stay because a rule of another owner refers to them. */
  kept: { chain: string; referencedBy: string[] }[];
}

export function planUpstreamTable(table: string, dump: Pick<TableDump, 'chains' | 'rules'>): UpstreamTablePlan {
  const base = new Set(dump.chains.filter((c) => c.hook !== undefined).map((c) => c.name));
  const ours = new Set(dump.chains.filter((c) => !base.has(c.name) && isUpstreamChain(table, c.name)).map((c) => c.name));
  const referencedBy = foreignReferences(dump.rules, ours, base);
  const kept = keepReachable(dump.rules, ours, [...referencedBy.keys()]);
  const removed = new Set([...ours].filter((c) => !kept.has(c)));
  return {
    chains: dump.chains.map((c) => c.name).filter((c) => removed.has(c)),
    rulesInChains: dump.rules.filter((r) => removed.has(r.chain)).length,
    jumps: dump.rules.filter((r) => base.has(r.chain) && r.jumps.some((j) => removed.has(j))).map((r) => ({ chain: r.chain, handle: r.handle })),
    kept: [...kept].map((chain) => ({ chain, referencedBy: referencedBy.get(chain) ?? [] })),
  };
}

/** Upstream's chains a rule of another regular chain jumps to, with those chains' names. */
function foreignReferences(rules: TableDump['rules'], ours: Set<string>, base: Set<string>): Map<string, string[]> {
  const by = new Map<string, string[]>();
  for (const r of rules) {
    if (ours.has(r.chain) || base.has(r.chain)) continue;
    for (const j of r.jumps) {
      if (!ours.has(j)) continue;
      const list = by.get(j) ?? [];
      if (!list.includes(r.chain)) list.push(r.chain);
      by.set(j, list);
    }
  }
  return by;
}

/** The given chains and every chain of ours their rules reach: what stays must keep working. */
function keepReachable(rules: TableDump['rules'], ours: Set<string>, roots: string[]): Set<string> {
  const kept = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    const c = todo.pop() as string;
    if (kept.has(c)) continue;
    kept.add(c);
    for (const r of rules) if (r.chain === c) for (const j of r.jumps) if (ours.has(j) && !kept.has(j)) todo.push(j);
  }
  return kept;
}
