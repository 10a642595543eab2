// Which IP families each pending Service's change touches, with a running count per family: the
// per-family pending gauges (upstream keeps one change tracker per family) then cost nothing per
// event, although the whole cluster is pending between the first list and the first sync.
import { sameAsApplied } from './equality';
import { familyOfKey } from './keys';
import type { IPFamily } from './types';

const BIT: Record<IPFamily, number> = { IPv4: 1, IPv6: 2 };

/** The families whose part of `wanted` differs from what `keys` name in `applied`. */
export function differingFamilies<V>(
  families: readonly IPFamily[],
  wanted: ReadonlyMap<string, V>,
  keys: readonly string[],
  applied: ReadonlyMap<string, V>,
  equal: (a: V, b: V) => boolean,
): IPFamily[] {
  if (families.length === 1) return sameAsApplied(wanted, keys, applied, equal) ? [] : [...families];
  return families.filter((f) => {
    const part = new Map([...wanted].filter(([k]) => familyOfKey(k) === f));
    return !sameAsApplied(part, keys.filter((k) => familyOfKey(k) === f), applied, equal);
  });
}

export class PendingFamilies {
  /** Service -> bit mask of the families its pending change touches (a small integer: no object each). */
  private readonly masks = new Map<string, number>();
  private readonly counts: Record<IPFamily, number> = { IPv4: 0, IPv6: 0 };

  set(id: string, families: readonly IPFamily[]): void {
    this.delete(id);
    let mask = 0;
    for (const f of families) {
      mask |= BIT[f];
      this.counts[f]++;
    }
    if (mask !== 0) this.masks.set(id, mask);
  }

  delete(id: string): void {
    const mask = this.masks.get(id);
    if (mask === undefined) return;
    this.masks.delete(id);
    for (const f of ['IPv4', 'IPv6'] as const) if (mask & BIT[f]) this.counts[f]--;
  }

  count(family: IPFamily): number {
    return this.counts[family];
  }

  clear(): void {
    this.masks.clear();
    this.counts.IPv4 = this.counts.IPv6 = 0;
  }
}
