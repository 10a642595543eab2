// Which ServicePorts want each element of the shared maps and sets. Several ServicePorts may want
// the same element (the ports of one Service share their ClusterIP in `cluster-ips`; two Services
// may claim one external IP and port): the element stays while anyone wants it, and the first
// claimant's value wins. Updated per changed ServicePort, so a partial sync costs only what it
// touches. The index is also our record of what the kernel holds: after every committed sync its
// winners are exactly the kernel's elements.
//
// At 44k Services the index holds ~750k entries, so an entry is as small as a Map entry can be:
// per set, the element's key as text -> the key of the ServicePort that wants it (a string the
// model holds anyway), or, when several do (rare), their keys in claim order. No element objects
// and no values (verdicts, endpoint addresses): a partial sync recompiles the ServicePorts it
// touches and takes them from there (plan-partial.ts).
import type { ElementDef, KeyPart } from './desired';

/** Who wants an element: one ServicePort key, or several in claim order (the first one's value is written). */
export type Claimants = string | readonly string[];

/** An element's key as the index holds it: its parts as nft writes them, `10.96.0.1 . tcp . 80`. */
export const keyText = (key: readonly KeyPart[]): string => key.join(' . ');

/** The claimant whose element the kernel holds. */
export function winnerOf(c: Claimants | undefined): string | undefined {
  return c === undefined || typeof c === 'string' ? c : c[0];
}

/** `owner` added at the end of the claim order (a claimant keeps its place). */
function withClaim(c: Claimants | undefined, owner: string): Claimants {
  if (c === undefined || c === owner) return owner;
  if (typeof c === 'string') return [c, owner];
  return c.includes(owner) ? c : [...c, owner];
}

/** `owner` taken out of the claim order; undefined once nobody wants the element. Releasing a non-claimant changes nothing. */
function withoutClaim(c: Claimants | undefined, owner: string): Claimants | undefined {
  if (c === undefined || typeof c === 'string') return c === owner ? undefined : c;
  const rest = c.filter((o) => o !== owner);
  return rest.length > 1 ? rest : rest[0];
}

export class ElementIndex {
  /** set name -> key text -> claimants; a set's map is its wanted elements. */
  private readonly bySet = new Map<string, Map<string, Claimants>>();

  get(set: string, text: string): Claimants | undefined {
    return this.bySet.get(set)?.get(text);
  }

  /** Sets the claimants of an element; undefined removes it. */
  put(set: string, text: string, c: Claimants | undefined): void {
    let m = this.bySet.get(set);
    if (c === undefined) {
      m?.delete(text);
      return;
    }
    if (!m) this.bySet.set(set, m = new Map());
    m.set(text, c);
  }

  /** Adds a claim (a full sync, in claim order); true when `owner` is the element's first claimant, whose element is written. */
  claim(set: string, text: string, owner: string): boolean {
    const c = this.get(set, text);
    this.put(set, text, withClaim(c, owner));
    return c === undefined;
  }

  /** Wanted elements per set. */
  counts(): Map<string, number> {
    return new Map([...this.bySet].map(([set, m]) => [set, m.size]));
  }

  /** Every entry, set by set (tests and the memory bench). */
  *entries(): IterableIterator<[set: string, text: string, claimants: Claimants]> {
    for (const [set, m] of this.bySet) for (const [text, c] of m) yield [set, text, c];
  }
}

/**
 * Claims each of `owner`'s elements (a full sync, ServicePort by ServicePort) and returns those it
 * claimed first, whose values are written. A ServicePort that wants one key twice (an external IP
 * equal to its ClusterIP) is written with its last element, as a later claim replaces its own.
 */
export function claimAll(index: ElementIndex, owner: string, els: readonly ElementDef[]): ElementDef[] {
  const first: ElementDef[] = [];
  const texts: string[] = [];
  for (const el of els) {
    const text = keyText(el.key);
    if (index.claim(el.set, text, owner)) {
      first.push(el);
      texts.push(text);
    } else if (winnerOf(index.get(el.set, text)) === owner) {
      first[first.findIndex((f, i) => f.set === el.set && texts[i] === text)] = el;
    }
  }
  return first;
}

/** An element a partial sync touched: its claimants after the sync, and what it knows of it. */
export interface TouchedElement {
  set: string;
  text: string;
  claimants: Claimants | undefined;
  /** A touching ServicePort's element: the key parts every claimant shares. */
  el: ElementDef;
  /** The ServicePort whose change touched it last (blamed if the kernel refuses the op). */
  by: string;
}

/** Copy-on-write edits of an index: a failed sync leaves the index as it was. */
export class IndexEdit {
  readonly changed = new Map<string, TouchedElement>();

  constructor(private readonly base: ElementIndex) {}

  private edit(owner: string, els: readonly ElementDef[], change: (c: Claimants | undefined, owner: string) => Claimants | undefined): void {
    for (const el of els) {
      const text = keyText(el.key);
      const id = `${el.set}\u0000${text}`;
      const t = this.changed.get(id);
      const claimants = change(t ? t.claimants : this.base.get(el.set, text), owner);
      if (t) Object.assign(t, { claimants, el, by: owner });
      else this.changed.set(id, { set: el.set, text, claimants, el, by: owner });
    }
  }

  release(owner: string, els: readonly ElementDef[]): void {
    this.edit(owner, els, withoutClaim);
  }

  claim(owner: string, els: readonly ElementDef[]): void {
    this.edit(owner, els, withClaim);
  }

  /** Wanted elements per set once the edit is applied. */
  countsAfter(): Map<string, number> {
    const counts = this.base.counts();
    for (const t of this.changed.values()) {
      const delta = (t.claimants !== undefined ? 1 : 0) - (this.base.get(t.set, t.text) !== undefined ? 1 : 0);
      if (delta !== 0) counts.set(t.set, (counts.get(t.set) ?? 0) + delta);
    }
    return counts;
  }

  applyTo(index: ElementIndex): void {
    for (const t of this.changed.values()) index.put(t.set, t.text, t.claimants);
  }
}
