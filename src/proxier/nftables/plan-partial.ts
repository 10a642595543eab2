// A partial sync: only the chains of the ServicePorts that changed, and only the elements whose
// wanted value differs from what the mirror says the kernel holds. Its cost depends on what
// changed, not on how many Services exist.
import type { ChainDef, ServiceObjects } from './desired';
import { IndexEdit, elementValue, winner, type IndexKey } from './element-index';
import { TxWriter } from './tx-writer';
import type { Rule } from '../../native/rule-builder';
import { qual } from './layout';
import { chainFingerprint, slim, type FamilyState, type MirrorElement } from './state';

export interface PartialChange {
  key: string;
  /** null: the ServicePort is gone from this family (removed, refused, or moved family). */
  next: ServiceObjects | null;
}

/** The edits to apply to the family's state once the transaction has committed. */
export interface PartialResult {
  state: FamilyState;
  chains: Map<string, string | null>;
  elements: Map<IndexKey, MirrorElement | null>;
  services: Map<string, ServiceObjects | null>;
  index: IndexEdit;
}

export function planPartialFamily(w: TxWriter, state: FamilyState, changes: PartialChange[]): PartialResult {
  const f = state.family;
  const index = new IndexEdit(state.index);
  const chains = new Map<string, string | null>();
  const services = new Map<string, ServiceObjects | null>();
  // qual(table, chain) -> what we want there (null: the chain goes away)
  const wanted = new Map<string, { def: ChainDef; owner: string } | null>();
  const dropped = new Map<string, { table: string; name: string; owner: string }>();

  for (const { key, next } of changes) {
    const prev = state.services.get(key);
    if (!prev && !next) continue;
    services.set(key, next);
    for (const c of prev?.chains ?? []) {
      const q = qual(c.table, c.name);
      if (!wanted.has(q)) { wanted.set(q, null); dropped.set(q, { table: c.table, name: c.name, owner: key }); }
    }
    for (const c of next?.chains ?? []) wanted.set(qual(c.table, c.name), { def: c, owner: key });
    index.release(key, prev?.elements ?? []);
    if (next) index.claim(key, next.elements);
  }

  for (const s of state.base.sets) w.declareSet(f, s);
  const fill: { def: ChainDef; owner: string; rules: Rule[] }[] = [];
  for (const [q, want] of wanted) {
    const have = state.mirror.chains.get(q);
    if (!want) {
      const d = dropped.get(q)!;
      if (have !== undefined) w.flushChain(f, d.table, d.name, d.owner);
      continue;
    }
    const rules = w.buildRules(f, want.def, want.owner);
    const fp = chainFingerprint(want.def, rules);
    if (have === fp) continue;
    if (have === undefined) w.addChain(f, want.def, want.owner); else w.flushChain(f, want.def.table, want.def.name, want.owner);
    fill.push({ ...want, rules });
    chains.set(q, fp);
  }
  for (const c of fill) w.addRules(f, c.def, c.owner, c.rules);

  const elements = writeElementChanges(w, state, index);

  for (const [q, want] of wanted) {
    if (want || !state.mirror.chains.has(q)) continue;
    const d = dropped.get(q)!;
    w.deleteChain(f, d.table, d.name, d.owner);
    chains.set(q, null);
  }
  return { state, chains, elements, services, index };
}

function writeElementChanges(w: TxWriter, state: FamilyState, index: IndexEdit): Map<IndexKey, MirrorElement | null> {
  const f = state.family;
  const out = new Map<IndexKey, MirrorElement | null>();
  const adds: { owner: string; el: MirrorElement }[] = [];
  for (const [k, claims] of index.changed) {
    const have = state.mirror.elements.get(k);
    const win = winner(claims);
    const value = win ? elementValue(win.el) : undefined;
    if (have && have.value === value) continue;
    const blame = win?.owner || index.touchedBy.get(k)!;
    if (have) {
      w.deleteElements(f, have.table, have.set, [{ key: have.key, verdict: have.verdict }], blame);
      out.set(k, null);
    }
    if (win) {
      const el: MirrorElement = { table: win.el.table, set: win.el.set, key: win.el.key, value: value!, ...(win.el.verdict ? { verdict: win.el.verdict } : {}) };
      adds.push({ owner: blame, el });
      out.set(k, el);
    }
  }
  for (const { owner, el } of adds) w.addElements(f, el.table, el.set, [{ key: el.key, verdict: el.verdict }], owner);
  return out;
}

/** Makes the state describe the kernel after the partial transaction committed. */
export function applyPartial(r: PartialResult): void {
  const { state } = r;
  for (const [name, fp] of r.chains) {
    if (fp === null) state.mirror.chains.delete(name); else state.mirror.chains.set(name, fp);
  }
  for (const [k, el] of r.elements) {
    if (el === null) state.mirror.elements.delete(k); else state.mirror.elements.set(k, el);
  }
  for (const [key, obj] of r.services) {
    if (obj === null) state.services.delete(key); else state.services.set(key, slim(obj));
  }
  r.index.applyTo(state.index);
}
