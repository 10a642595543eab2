// Which ServicePorts want each element of the shared maps and sets. Several ServicePorts may want
// the same element (the ports of one Service share their ClusterIP in `cluster-ips`; two Services
// may claim one external IP and port): the element stays while anyone wants it, and the first
// claimant's value wins. Updated per changed ServicePort, so a partial sync costs only what it
// touches. The index is also our record of what the kernel holds: after every committed sync its
// winners are exactly the kernel's elements.
//
// At 50k Services the index holds ~400k entries, so an entry is kept small: the first claimant's
// own ElementDef (no copy) and, only when others want the element too, a map of them.
import type { ElementDef, KeyPart } from './desired';
import { elementKeyString } from './desired';
import { verdictText } from '../../native/elements';

export interface Claims {
  /** The winning claimant and its element; undefined once nobody wants the element. */
  owner: string | undefined;
  el: ElementDef;
  /** Further claimants in claim order (rare). */
  others?: Map<string, ElementDef>;
}

export type IndexKey = string;
export const indexKey = (set: string, key: readonly KeyPart[]): IndexKey => `${set}\u0000${elementKeyString(key)}`;

/** The element the kernel should hold for these claims, or null when nobody wants it. */
export function winner(c: Claims | undefined): { owner: string; el: ElementDef } | null {
  return c && c.owner !== undefined ? { owner: c.owner, el: c.el } : null;
}

export function isWanted(c: Claims | undefined): boolean {
  return c !== undefined && c.owner !== undefined;
}

/** The element's value as text: its verdict, its data, or '' in a plain set. */
export function elementValue(el: Pick<ElementDef, 'verdict' | 'data'>): string {
  if (el.verdict) return verdictText(el.verdict);
  return el.data ? elementKeyString(el.data) : '';
}

function copy(c: Claims | undefined, el: ElementDef): Claims {
  if (!c) return { owner: undefined, el };
  return c.others ? { owner: c.owner, el: c.el, others: new Map(c.others) } : { owner: c.owner, el: c.el };
}

function claimIn(c: Claims, owner: string, el: ElementDef): void {
  if (c.owner === undefined || c.owner === owner) {
    c.owner = owner;
    c.el = el;
  } else {
    (c.others ??= new Map()).set(owner, el);
  }
}

function releaseIn(c: Claims, owner: string): void {
  if (c.owner !== owner) {
    c.others?.delete(owner);
    return;
  }
  const next = c.others?.entries().next();
  if (!next || next.done) {
    c.owner = undefined;
    return;
  }
  const [o, el] = next.value;
  c.others!.delete(o);
  c.owner = o;
  c.el = el;
}

/** A new index from every owner's elements, in claim order (a full sync: nothing to copy or blame). */
export function buildIndex(owners: Iterable<{ owner: string; elements: readonly ElementDef[] }>): Map<IndexKey, Claims> {
  const index = new Map<IndexKey, Claims>();
  for (const { owner, elements } of owners) {
    for (const el of elements) {
      const k = indexKey(el.set, el.key);
      const c = index.get(k);
      if (c) claimIn(c, owner, el); else index.set(k, { owner, el });
    }
  }
  return index;
}

/** Copy-on-write edits of an index: a failed sync leaves the index as it was. */
export class IndexEdit {
  readonly changed = new Map<IndexKey, Claims>();
  /** The ServicePort whose change touched each key last (blamed if the kernel refuses the op). */
  readonly touchedBy = new Map<IndexKey, string>();

  constructor(private readonly base: ReadonlyMap<IndexKey, Claims>) {}

  private entry(k: IndexKey, el: ElementDef): Claims {
    let c = this.changed.get(k);
    if (!c) this.changed.set(k, c = copy(this.base.get(k), el));
    return c;
  }

  release(owner: string, els: readonly ElementDef[]): void {
    for (const el of els) {
      const k = indexKey(el.set, el.key);
      releaseIn(this.entry(k, el), owner);
      this.touchedBy.set(k, owner);
    }
  }

  claim(owner: string, els: readonly ElementDef[]): void {
    for (const el of els) {
      const k = indexKey(el.set, el.key);
      claimIn(this.entry(k, el), owner, el);
      this.touchedBy.set(k, owner);
    }
  }

  applyTo(index: Map<IndexKey, Claims>): void {
    for (const [k, c] of this.changed) {
      if (c.owner === undefined) index.delete(k); else index.set(k, c);
    }
  }
}
