// Which ServicePorts want each element of the shared maps and sets. Several ServicePorts may want
// the same element (the ports of one Service share their ClusterIP in `cluster-ips`; two Services
// may claim one external IP and port): the element stays while anyone wants it, and the first
// claimant's verdict wins. Updated per changed ServicePort, so a partial sync costs only what it
// touches.
import type { ElementDef, KeyPart } from './desired';
import { elementKeyString } from './desired';
import type { Verdict } from './rule-steps';
import { verdictText } from './rule-steps';

export interface Claims {
  table: string;
  set: string;
  key: KeyPart[];
  /** owner -> value it wants (empty for plain sets), in claim order. */
  owners: Map<string, ElementValue>;
}

/** What a map element maps to: a verdict, or data (endpoint maps). */
export interface ElementValue { verdict?: Verdict; data?: KeyPart[] }

export type IndexKey = string;
export const indexKey = (table: string, set: string, key: readonly KeyPart[]): IndexKey =>
  `${table}\u0000${set}\u0000${elementKeyString(key)}`;

/** The element the kernel should hold for these claims, or null when nobody wants it. */
export function winner(c: Claims | undefined): { owner: string; el: ElementDef } | null {
  if (!c || c.owners.size === 0) return null;
  const [owner, v] = c.owners.entries().next().value as [string, ElementValue];
  return { owner, el: { table: c.table, set: c.set, key: c.key, ...v } };
}

export function elementValue(el: Pick<ElementDef, 'verdict' | 'data'>): string {
  if (el.verdict) return verdictText(el.verdict);
  return el.data ? elementKeyString(el.data) : '';
}

function valueOf(el: ElementDef): ElementValue {
  return el.verdict ? { verdict: el.verdict } : el.data ? { data: el.data } : {};
}

/** Copy-on-write edits of an index: a failed sync leaves the index as it was. */
export class IndexEdit {
  readonly changed = new Map<IndexKey, Claims>();
  /** The ServicePort whose change touched each key last (blamed if the kernel refuses the op). */
  readonly touchedBy = new Map<IndexKey, string>();

  constructor(private readonly base: ReadonlyMap<IndexKey, Claims>) {}

  private entry(k: IndexKey, el: ElementDef): Claims {
    let c = this.changed.get(k);
    if (!c) {
      const old = this.base.get(k);
      c = { table: el.table, set: el.set, key: el.key, owners: new Map(old?.owners ?? []) };
      this.changed.set(k, c);
    }
    return c;
  }

  release(owner: string, els: readonly ElementDef[]): void {
    for (const el of els) {
      const k = indexKey(el.table, el.set, el.key);
      this.entry(k, el).owners.delete(owner);
      this.touchedBy.set(k, owner);
    }
  }

  claim(owner: string, els: readonly ElementDef[]): void {
    for (const el of els) {
      const k = indexKey(el.table, el.set, el.key);
      this.entry(k, el).owners.set(owner, valueOf(el));
      this.touchedBy.set(k, owner);
    }
  }

  current(k: IndexKey): Claims | undefined {
    return this.changed.get(k) ?? this.base.get(k);
  }

  applyTo(index: Map<IndexKey, Claims>): void {
    for (const [k, c] of this.changed) {
      if (c.owners.size === 0) index.delete(k); else index.set(k, c);
    }
  }
}
