// A partial sync: only the chains of the ServicePorts that changed, and only the elements whose
// wanted value differs from what the mirror says the kernel holds. Its cost depends on what
// changed, not on how many Services exist.
import type { BaseObjects, ChainDef, ElementDef, ServiceObjects } from './desired';
import { IndexEdit, keyText, winnerOf, type TouchedEntry } from './element-index';
import { BASE_OWNER, TxWriter } from './tx-writer';
import { compileBase, isEndpointMap } from './compile-base';
import { ElementsOf } from './elements-of';
import { chainFingerprint, setFingerprint, setsInUse, type FamilyState, type ServiceSource } from './state';

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

  for (const { key, next } of changes) {
    const prev = elementsOf.previous(key);
    if (!prev && !next) continue;
    services.set(key, next?.source ?? null);
    elementsOf.setNext(key, next?.obj ?? null);
    for (const c of prev?.chains ?? []) {
      if (!wanted.has(c.name)) { wanted.set(c.name, null); droppedBy.set(c.name, key); }
    }
    for (const c of next?.obj.chains ?? []) wanted.set(c.name, { def: c, owner: key });
    index.release(key, prev?.elements ?? []);
    if (next) index.claim(key, next.obj.elements);
  }

  const counts = index.countsAfter();
  // The base depends on the Services only through the endpoint maps in use: most partial syncs
  // keep it, and then only declare its sets.
  const sameMaps = endpointMapsInUse(state.index.counts()) === endpointMapsInUse(counts);
  const base = sameMaps ? state.base : compileBase(state.ctx, setsInUse(counts));
  const sets = writeBaseSets(w, state, base);
  if (!sameMaps) writeBaseChains(w, state, base, chains);
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

  writeElementChanges(w, state, index, elementsOf);

  for (const [name, want] of wanted) {
    if (want || !state.mirror.chains.has(name)) continue;
    w.deleteChain(f, name, droppedBy.get(name)!);
    chains.set(name, null);
  }
  for (const [name, fp] of sets) if (fp === null) w.deleteSet(f, name);
  return { state, base, sets, chains, services, index };
}

function endpointMapsInUse(counts: ReadonlyMap<string, number>): string {
  return setsInUse(counts).filter(isEndpointMap).sort().join(' ');
}

/** Declares the sets that exist, adds the endpoint maps now needed; returns the set changes. */
function writeBaseSets(w: TxWriter, state: FamilyState, base: BaseObjects): Map<string, string | null> {
  const f = state.family;
  const out = new Map<string, string | null>();
  const wanted = new Set(base.sets.map((s) => s.name));
  for (const s of state.base.sets) {
    w.declareSet(f, s);
    if (!wanted.has(s.name)) out.set(s.name, null);
  }
  for (const s of base.sets) {
    if (state.mirror.sets.has(s.name)) continue;
    w.addSet(f, s);
    out.set(s.name, setFingerprint(s));
  }
  return out;
}

/** Rewrites the base chains whose rules changed (the select chains, when endpoint counts come and go). */
function writeBaseChains(w: TxWriter, state: FamilyState, base: BaseObjects, chains: Map<string, string | null>): void {
  const f = state.family;
  for (const c of base.chains) {
    const fp = chainFingerprint(c);
    if (state.mirror.chains.get(c.name) === fp) continue;
    w.flushChain(f, c.name, BASE_OWNER);
    w.addRules(f, c, BASE_OWNER);
    chains.set(c.name, fp);
  }
}

/** An element's value as text: its verdict, its data, or '' in a plain set. */
function valueText(el: ElementDef): string {
  if (el.verdict) return el.verdict.kind === 'jump' || el.verdict.kind === 'goto' ? `${el.verdict.kind} ${el.verdict.chain}` : el.verdict.kind;
  return el.data ? el.data.join(' . ') : '';
}

/**
 * What to delete and add for one touched index entry: the kernel holds the old winner's elements
 * (the old index is what it holds), the new winner's should be there. An element whose key and
 * value both have is left alone; in a plain set, nothing changes while anyone wants the entry.
 */
function entryChange(t: TouchedEntry, state: FamilyState, elementsOf: ElementsOf): { del: ElementDef[]; add: ElementDef[] } {
  const have = winnerOf(state.index.get(t.set, t.entry));
  const win = winnerOf(t.claimants);
  const valued = t.el.verdict !== undefined || t.el.data !== undefined;
  if (have !== undefined && win !== undefined && !valued) return { del: [], add: [] };
  const del = have === undefined ? [] : elementsOf.at(have, 'prev', t);
  const add = win === undefined ? [] : elementsOf.at(win, 'next', t);
  if (del.length === 0 || add.length === 0) return { del, add };
  const held = new Map(del.map((e) => [keyText(e.key), valueText(e)]));
  const kept = new Set(add.filter((e) => held.get(keyText(e.key)) === valueText(e)).map((e) => keyText(e.key)));
  return { del: del.filter((e) => !kept.has(keyText(e.key))), add: add.filter((e) => !kept.has(keyText(e.key))) };
}

/** Deletes, then adds, the elements whose winning value changed. */
function writeElementChanges(w: TxWriter, state: FamilyState, index: IndexEdit, elementsOf: ElementsOf): void {
  const f = state.family;
  const adds: { owner: string; el: ElementDef }[] = [];
  for (const t of index.changed.values()) {
    const { del, add } = entryChange(t, state, elementsOf);
    const blame = winnerOf(t.claimants) || t.by;
    for (const el of del) w.deleteElements(f, el.set, [el], blame);
    for (const el of add) adds.push({ owner: blame, el });
  }
  for (const { owner, el } of adds) w.addElements(f, el.set, [el], owner);
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
