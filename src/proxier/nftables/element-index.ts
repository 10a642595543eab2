// Which ServicePorts want each element of the shared maps and sets. Several ServicePorts may want
// the same element (the ports of one Service share their ClusterIP in `cluster-ips`; two Services
// may claim one external IP and port): the element stays while anyone wants it, and the first
// claimant's value wins. Updated per changed ServicePort, so a partial sync costs only what it
// touches. The index is also our record of what the kernel holds: after every committed sync its
// winners are exactly the kernel's elements.
//
// At 44k Services the kernel holds ~740k elements of ours, so the index keeps as little per element
// as it can: per set, an entry's text (entryKey) -> the key of the ServicePort that wants it (a
// string the model holds anyway), or, when several do (rare), their keys in claim order. No element
// objects and no values (verdicts, endpoint addresses): a partial sync recompiles the ServicePorts
// it touches and takes them from there (plan-partial.ts). One entry stands for all the slots of a
// destination in an endpoint map (entryKey): those slots are half of all elements.
import type { ElementDef, KeyPart } from './desired';
import { SET, parseAffinitySetName, parseEndpointMapName } from './names';

/** Who wants an element: one ServicePort key, or several in claim order (the first one's value is written). */
export type Claimants = string | readonly string[];

/** An element's key as nft writes it: `10.96.0.1 . tcp . 80 . 3`. */
export const keyText = (key: readonly KeyPart[]): string => key.join(' . ');

const groupParts = new Map<string, number>();

/**
 * How many trailing key parts tell apart the elements one destination has in `set`, remembered per
 * name (a handful of names, looked up per element): an endpoint map's slot (1), an affinity pair's
 * endpoint address and port (2), none elsewhere.
 */
export function groupedParts(set: string): number {
  let n = groupParts.get(set);
  if (n === undefined) {
    const pairs = parseAffinitySetName(set);
    groupParts.set(set, n = parseEndpointMapName(set) !== null ? 1 : pairs !== null && pairs.timeoutSeconds > 0 ? 2 : 0);
  }
  return n;
}

/**
 * The text of the index entry that records an element. An endpoint map's element is a destination
 * and a slot (`10.96.0.1 . tcp . 80 . 3`), an affinity pair a destination and an endpoint (groupedParts): both
 * are one entry per destination, as below; a ServicePort that wants one slot of a destination in
 * the map of E endpoints wants all E (compile-service.ts endpointElements), and claims and releases
 * them together, so the E slots always have the same claimants: one entry, keyed by the destination
 * alone, stands for them all. A `hairpin` element is an address twice: its entry holds it once.
 * Every other element's entry is its key text.
 */
export function entryKey(el: ElementDef): string {
  const k = el.key;
  if (el.set === SET.hairpin && k.length === 2 && k[0] === k[1]) return String(k[0]);
  const grouped = groupedParts(el.set);
  if (grouped > 0 && k.length > grouped) return keyText(k.slice(0, -grouped));
  return keyText(k);
}

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
  /** set name -> entry text -> claimants; a set's map is its wanted entries. */
  private readonly bySet = new Map<string, Map<string, Claimants>>();

  get(set: string, entry: string): Claimants | undefined {
    return this.bySet.get(set)?.get(entry);
  }

  /** Sets the claimants of an entry; undefined removes it. */
  put(set: string, entry: string, c: Claimants | undefined): void {
    let m = this.bySet.get(set);
    if (c === undefined) {
      m?.delete(entry);
      return;
    }
    if (!m) this.bySet.set(set, m = new Map());
    m.set(entry, c);
  }

  /** The entries of one set, made on first use (a full sync's claims). */
  entriesOf(set: string): Map<string, Claimants> {
    let m = this.bySet.get(set);
    if (!m) this.bySet.set(set, m = new Map());
    return m;
  }

  /** Wanted entries of one set. */
  size(set: string): number {
    return this.bySet.get(set)?.size ?? 0;
  }

  /** Wanted entries per set (a set is in use while it has one). */
  counts(): Map<string, number> {
    return new Map([...this.bySet].map(([set, m]) => [set, m.size]));
  }

  /** Every entry, set by set (tests and the memory bench). */
  *entries(): IterableIterator<[set: string, entry: string, claimants: Claimants]> {
    for (const [set, m] of this.bySet) for (const [entry, c] of m) yield [set, entry, c];
  }
}

/** Whether two elements have the same key, or (`slot`) differ only in an endpoint map's slot. */
function sameKey(a: ElementDef, b: ElementDef, slot = false): boolean {
  if (a.set !== b.set || a.key.length !== b.key.length) return false;
  const grouped = slot ? groupedParts(a.set) : 0;
  const last = grouped > 0 && a.key.length > grouped ? a.key.length - 1 - grouped : a.key.length - 1;
  for (let i = last; i >= 0; i--) if (a.key[i] !== b.key[i]) return false;
  return true;
}

/** `el` in place of the element of `first[from..]` with its key, or added at the end. */
function replaceOrPush(first: ElementDef[], el: ElementDef, from: number): void {
  let at = first.length - 1;
  while (at >= from && !sameKey(first[at], el)) at--;
  if (at < from) first.push(el); else first[at] = el;
}

/**
 * Claims each of `owner`'s elements (a full sync, ServicePort by ServicePort) and returns those it
 * claimed first, whose values are written. A ServicePort that wants one key twice is written with
 * its last element, as a later claim replaces its own (compileService makes none: its ClusterIP
 * listed as an external IP is served once, as the ClusterIP).
 */
export function claimAll(index: ElementIndex, owner: string, els: readonly ElementDef[]): ElementDef[] {
  const first: ElementDef[] = [];
  // A run: elements of one entry in a row (an endpoint map's slots), claimed once, at its head.
  let head: ElementDef | undefined;
  let runStart = 0;
  let outcome: 'first' | 'again' | 'taken' = 'first';
  for (const el of els) {
    if (!head || !sameKey(head, el, true)) {
      head = el;
      runStart = first.length;
      const entries = index.entriesOf(el.set);
      const entry = entryKey(el);
      const c = entries.get(entry);
      // `owner` already claimed first in this call: the same key (or entry) again, its element replaced.
      outcome = c === undefined ? 'first' : c === owner ? 'again' : 'taken';
      if (outcome !== 'again') entries.set(entry, withClaim(c, owner));
    }
    if (outcome === 'first') replaceOrPush(first, el, runStart);
    else if (outcome === 'again') replaceOrPush(first, el, 0);
  }
  return first;
}

/** The elements one ServicePort wants in one index entry: one element, or a destination's slots. */
export interface EntryElements {
  set: string;
  entry: string;
  els: ElementDef[];
}

/**
 * A ServicePort's elements by index entry (`set NUL entry`), in order. A key it wants twice is there
 * once, with its last element, as a full sync writes it. An endpoint map's slots follow each other:
 * the entry text is made once per destination, not per slot.
 */
export function byEntry(els: readonly ElementDef[]): Map<string, EntryElements> {
  const m = new Map<string, EntryElements>();
  let run: EntryElements | undefined;
  for (const el of els) {
    if (!run || !sameKey(run.els[0], el, true)) {
      const entry = entryKey(el);
      const id = `${el.set}\u0000${entry}`;
      run = m.get(id);
      if (!run) { m.set(id, run = { set: el.set, entry, els: [el] }); continue; }
    }
    const same = run.els.findIndex((e) => sameKey(e, el));
    if (same < 0) run.els.push(el); else run.els[same] = el;
  }
  return m;
}

/** An index entry a partial sync touched: its claimants after the sync, and what it knows of it. */
export interface TouchedEntry {
  set: string;
  entry: string;
  claimants: Claimants | undefined;
  /** Its claimants before the edit: the index's, whose winners the kernel holds. */
  before: Claimants | undefined;
  /** One of the entry's elements, as a touching ServicePort wants it: whether the set holds values. */
  el: ElementDef;
  /** The ServicePort whose change touched it last (blamed if the kernel refuses the op). */
  by: string;
}

/** Copy-on-write edits of an index: a failed sync leaves the index as it was. */
export class IndexEdit {
  readonly changed = new Map<string, TouchedEntry>();

  constructor(private readonly base: ElementIndex) {}

  private edit(owner: string, entries: ReadonlyMap<string, EntryElements>,
    change: (c: Claimants | undefined, owner: string) => Claimants | undefined): void {
    for (const [id, { set, entry, els }] of entries) {
      const t = this.changed.get(id);
      const before = t ? t.before : this.base.get(set, entry);
      const claimants = change(t ? t.claimants : before, owner);
      const el = els[els.length - 1];
      if (t) Object.assign(t, { claimants, el, by: owner });
      else this.changed.set(id, { set, entry, claimants, before, el, by: owner });
    }
  }

  /** `entries`: the ServicePort's elements by entry (byEntry). */
  release(owner: string, entries: ReadonlyMap<string, EntryElements>): void {
    this.edit(owner, entries, withoutClaim);
  }

  claim(owner: string, entries: ReadonlyMap<string, EntryElements>): void {
    this.edit(owner, entries, withClaim);
  }

  /**
   * The sets whose use starts (first entry) or ends (last entry gone) with this edit: the only
   * ones whose being in use changes, found from the touched entries alone.
   */
  usageChanges(): string[] {
    const out: string[] = [];
    for (const [set, d] of this.entryDeltas()) {
      const n = this.base.size(set);
      if ((n === 0) !== (n + d === 0)) out.push(set);
    }
    return out;
  }

  /** Wanted entries per set once the edit is applied. */
  countsAfter(): Map<string, number> {
    const counts = this.base.counts();
    for (const [set, d] of this.entryDeltas()) counts.set(set, (counts.get(set) ?? 0) + d);
    return counts;
  }

  /** Per set, the wanted entries the edit adds (claimed where none was) less those it empties (a set none of its entries starts or ends in is absent). */
  private entryDeltas(): Map<string, number> {
    const delta = new Map<string, number>();
    for (const t of this.changed.values()) {
      const d = (t.claimants !== undefined ? 1 : 0) - (t.before !== undefined ? 1 : 0);
      if (d !== 0) delta.set(t.set, (delta.get(t.set) ?? 0) + d);
    }
    return delta;
  }

  applyTo(index: ElementIndex): void {
    for (const t of this.changed.values()) index.put(t.set, t.entry, t.claimants);
  }
}
