// A partial sync: only the chains of the ServicePorts that changed, and only the elements whose
// wanted value differs from what the mirror says the kernel holds. Its cost depends on what
// changed, not on how many Services exist.
import type { BaseObjects, ChainDef, ElementDef, ServiceObjects } from './desired';
import { IndexEdit, groupedParts, keyText, winnerOf, type TouchedEntry } from './element-index';
import { BASE_OWNER, TxWriter } from './tx-writer';
import { baseSetsByName, compileBase, isDerivedSet } from './compile-base';
import { ElementsOf } from './elements-of';
import { chainFingerprint, setFingerprint, setsInUse, type FamilyState, type ServiceSource } from './state';
import { pairChangesOf, type PairChanges } from './affinity-records';
import type { EndpointMapFamily } from './names';

export interface PartialChange {
  key: string;
  /** null: the ServicePort is gone from this family (removed, refused, or moved family). */
  next: { obj: ServiceObjects; source: ServiceSource } | null;
}

/** The edits to apply to the family's state once the transaction has committed. */
export interface PartialResult {
  state: FamilyState;
  /** The base after this sync: endpoint maps and select rules follow the endpoint counts in use. */
  base: BaseObjects;
  sets: Map<string, string | null>;
  chains: Map<string, string | null>;
  services: Map<string, ServiceSource | null>;
  index: IndexEdit;
  /** Session-affinity pairs removed and added, per endpoint map family: their stale records go after the commit. */
  pairs: Map<EndpointMapFamily, PairChanges>;
}

export function planPartialFamily(w: TxWriter, state: FamilyState, changes: PartialChange[]): PartialResult {
  const f = state.family;
  const index = new IndexEdit(state.index);
  const elementsOf = new ElementsOf(state);
  const chains = new Map<string, string | null>();
  const services = new Map<string, ServiceSource | null>();
  // chain name -> what we want there (null: the chain goes away), and who owned a chain that goes
  const wanted = new Map<string, { def: ChainDef; owner: string } | null>();
  const droppedBy = new Map<string, string>();
  w.existingSets(f, baseSetsByName(state.base));

  for (const { key, next } of changes) {
    const prev = elementsOf.previous(key);
    if (!prev && !next) continue;
    services.set(key, next?.source ?? null);
    elementsOf.setNext(key, next?.obj ?? null);
    for (const c of prev?.chains ?? []) {
      if (!wanted.has(c.name)) { wanted.set(c.name, null); droppedBy.set(c.name, key); }
    }
    for (const c of next?.obj.chains ?? []) wanted.set(c.name, { def: c, owner: key });
    if (prev) index.release(key, elementsOf.indexed(prev));
    if (next) index.claim(key, elementsOf.indexed(next.obj));
  }

  // The base depends on the Services only through the endpoint maps in use: most partial syncs
  // keep it (its sets are all in the kernel: a full sync or the partial sync that made it added them).
  const sameMaps = !index.usageChanges().some(isDerivedSet);
  const base = sameMaps ? state.base : compileBase(state.ctx, setsInUse(index.countsAfter()));
  const sets = sameMaps ? new Map<string, string | null>() : writeBaseSets(w, state, base);
  const goneBaseChains = sameMaps ? [] : writeBaseChains(w, state, base, chains);
  const fill: { def: ChainDef; owner: string }[] = [];
  for (const [name, want] of wanted) {
    const have = state.mirror.chains.get(name);
    if (!want) {
      if (have !== undefined) w.flushChain(f, name, droppedBy.get(name)!);
      continue;
    }
    const fp = chainFingerprint(want.def);
    if (have === fp) continue;
    if (have === undefined) w.addChain(f, want.def, want.owner); else w.flushChain(f, name, want.owner);
    fill.push(want);
    chains.set(name, fp);
  }
  for (const c of fill) w.addRules(f, c.def, c.owner);

  const pairs = writeElementChanges(w, state, index, elementsOf);

  for (const [name, want] of wanted) {
    if (want || !state.mirror.chains.has(name)) continue;
    w.deleteChain(f, name, droppedBy.get(name)!);
    chains.set(name, null);
  }
  // A count's chain goes once the verdict-map elements that sent destinations to it are gone.
  for (const name of goneBaseChains) {
    w.deleteChain(f, name, BASE_OWNER);
    chains.set(name, null);
  }
  for (const [name, fp] of sets) if (fp === null) w.deleteSet(f, name);
  return { state, base, sets, chains, services, index, pairs };
}

/** A new base's set changes: the endpoint maps now needed are added, those no longer needed go. */
function writeBaseSets(w: TxWriter, state: FamilyState, base: BaseObjects): Map<string, string | null> {
  const f = state.family;
  const out = new Map<string, string | null>();
  const wanted = new Set(base.sets.map((s) => s.name));
  for (const s of state.base.sets) if (!wanted.has(s.name)) out.set(s.name, null);
  for (const s of base.sets) {
    if (state.mirror.sets.has(s.name)) continue;
    w.addSet(f, s);
    out.set(s.name, setFingerprint(s));
  }
  return out;
}

/**
 * Rewrites the base chains whose rules changed (the select chains, when endpoint counts come and
 * go), adds the chains of larger counts that appear, and empties those of counts that disappear,
 * returned to be deleted once nothing refers to them.
 */
function writeBaseChains(w: TxWriter, state: FamilyState, base: BaseObjects, chains: Map<string, string | null>): string[] {
  const f = state.family;
  // Every new chain before any rule: a changed chain's rules may jump to one that comes later (record-affinity).
  const changed = base.chains.map((c) => ({ c, fp: chainFingerprint(c) })).filter(({ c, fp }) => state.mirror.chains.get(c.name) !== fp);
  for (const { c } of changed) if (state.mirror.chains.has(c.name)) w.flushChain(f, c.name, BASE_OWNER); else w.addChain(f, c, BASE_OWNER);
  for (const { c, fp } of changed) {
    w.addRules(f, c, BASE_OWNER);
    chains.set(c.name, fp);
  }
  const wanted = new Set(base.chains.map((c) => c.name));
  const gone = state.base.chains.filter((c) => !wanted.has(c.name)).map((c) => c.name);
  for (const name of gone) w.flushChain(f, name, BASE_OWNER);
  return gone;
}

/** Whether two elements have the same key and value (verdict, data, or none in a plain set). */
function sameElement(a: ElementDef, b: ElementDef): boolean {
  if (!sameParts(a.key, b.key)) return false;
  if (a.verdict || b.verdict) {
    if (!a.verdict || !b.verdict || a.verdict.kind !== b.verdict.kind) return false;
    return !('chain' in a.verdict) || a.verdict.chain === (b.verdict as { chain: string }).chain;
  }
  return a.data === undefined || b.data === undefined ? a.data === b.data : sameParts(a.data, b.data);
}

function sameParts(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** `a` without the elements that are also in `b` (key and value). */
function without(a: ElementDef[], b: readonly ElementDef[]): ElementDef[] {
  // An endpoint map's slots come in slot order on both sides: compare them pairwise first.
  if (a.length === b.length && a.every((e, i) => sameParts(e.key, b[i].key))) return a.filter((e, i) => !sameElement(e, b[i]));
  const held = new Map(b.map((e) => [keyText(e.key), e]));
  return a.filter((e) => { const h = held.get(keyText(e.key)); return !h || !sameElement(e, h); });
}

/**
 * What to delete and add for one touched index entry: the kernel holds the old winner's elements
 * (the index before the edit is what it holds), the new winner's should be there. An element whose key and
 * value both have is left alone; in a plain set, nothing changes while anyone wants the entry.
 */
function entryChange(t: TouchedEntry, elementsOf: ElementsOf): { del: ElementDef[]; add: ElementDef[] } {
  const have = winnerOf(t.before);
  const win = winnerOf(t.claimants);
  // A destination's group (endpoint slots, affinity pairs) differs from one claimant to the next, as a value does.
  const valued = t.el.verdict !== undefined || t.el.data !== undefined || groupedParts(t.el.set) > 0;
  if (have !== undefined && win !== undefined && !valued) return { del: [], add: [] };
  const del = have === undefined ? [] : elementsOf.at(have, 'prev', t);
  const add = win === undefined ? [] : elementsOf.at(win, 'next', t);
  if (del.length === 0 || add.length === 0) return { del, add };
  return { del: without(del, add), add: without(add, del) };
}

/** Elements to write, one op per set and owner (the owner is blamed if the kernel refuses the op). */
class ElementOps {
  private readonly ops = new Map<string, { set: string; owner: string; els: ElementDef[] }>();

  push(owner: string, els: readonly ElementDef[]): void {
    for (const el of els) {
      const id = `${owner}\u0000${el.set}`;
      const op = this.ops.get(id);
      if (op) op.els.push(el); else this.ops.set(id, { set: el.set, owner, els: [el] });
    }
  }

  values(): IterableIterator<{ set: string; owner: string; els: ElementDef[] }> {
    return this.ops.values();
  }
}

/** Deletes, then adds, the elements whose winning value changed; returns the affinity pairs among them. */
function writeElementChanges(w: TxWriter, state: FamilyState, index: IndexEdit, elementsOf: ElementsOf): Map<EndpointMapFamily, PairChanges> {
  const f = state.family;
  const dels = new ElementOps();
  const adds = new ElementOps();
  const deleted: ElementDef[] = [];
  const added: ElementDef[] = [];
  for (const t of index.changed.values()) {
    const { del, add } = entryChange(t, elementsOf);
    const blame = winnerOf(t.claimants) || t.by;
    dels.push(blame, del);
    adds.push(blame, add);
    deleted.push(...del);
    added.push(...add);
  }
  for (const op of dels.values()) w.deleteElements(f, op.set, op.els, op.owner);
  for (const op of adds.values()) w.addElements(f, op.set, op.els, op.owner);
  return pairChangesOf(deleted, added);
}

/** Makes the state describe the kernel after the partial transaction committed. */
export function applyPartial(r: PartialResult): void {
  const { state } = r;
  state.base = r.base;
  for (const [name, fp] of r.sets) {
    if (fp === null) state.mirror.sets.delete(name); else state.mirror.sets.set(name, fp);
  }
  for (const [name, fp] of r.chains) {
    if (fp === null) state.mirror.chains.delete(name); else state.mirror.chains.set(name, fp);
  }
  for (const [key, source] of r.services) {
    if (source === null) state.services.delete(key); else state.services.set(key, source);
  }
  r.index.applyTo(state.index);
}
