// Which changes to our tables, made by another process, mean the kernel no longer holds what we
// programmed (pure). The packet path fills the session-affinity set itself, so its elements come
// and go without anyone tampering; everything else in our tables is ours alone.
import { SET, TABLE, parseAffinitySetName } from './names';
import type { NftFamily } from './desired';

/** One entry of a change report (src/native NftMonitor), aggregated per object. */
export interface ObservedChange {
  op: 'add' | 'delete' | 'unknown';
  kind: string;
  family: string;
  table: string;
  /** The chain or set the change is in (rules and elements), or the object's own name. */
  name?: string;
  count: number;
}

/** The tables whose changes the monitor must report for this mode. */
export function watchedTables(families: readonly NftFamily[]): { family: NftFamily; table: string }[] {
  return families.map((family) => ({ family, table: TABLE }));
}

/** What a change monitor needs from this mode (src/app's RulesetGuard takes it). */
export function guardedTables(families: readonly NftFamily[]) {
  return { interest: watchedTables(families), tampering, describe: describeChanges };
}

/** The affinity records are written by the packet path (and deleted by us when stale): not tampering. */
const packetPathOwned = (c: ObservedChange): boolean =>
  c.kind === 'element' && (c.name === SET.affinity || parseAffinitySetName(c.name ?? '')?.timeoutSeconds === 0);

/** A message the monitor could not read may have touched anything: treat it as ours. */
const unreadable = (c: ObservedChange): boolean => c.op === 'unknown' || c.kind === 'unknown';

/** The changes that alter our rules (empty: nothing to repair). */
export function tampering<C extends ObservedChange>(changes: readonly C[]): C[] {
  return changes.filter((c) => unreadable(c) || (c.table === TABLE && (c.family === 'ip' || c.family === 'ip6') && !packetPathOwned(c)));
}

/** "delete 3 elements ip kube-proxy cluster-ip-ports; add rule ip kube-proxy services", for logs. */
export function describeChanges(changes: readonly ObservedChange[], max = 10): string {
  const parts = changes.slice(0, max).map((c) => {
    const what = c.count === 1 ? c.kind : `${c.count} ${c.kind}s`;
    return `${c.op} ${what} ${c.family} ${c.table}${c.name ? ` ${c.name}` : ''}`;
  });
  if (changes.length > max) parts.push(`and ${changes.length - max} more`);
  return parts.join('; ');
}
