// A partial sync: only the chains of the ServicePorts that changed, and only the elements whose
// wanted value differs from what the mirror says the kernel holds. Its cost depends on what
// changed, not on how many Services exist.
import type { ChainDef, ServiceObjects } from './desired';
import { IndexEdit, elementValue, winner, type IndexKey } from './element-index';
import { TxWriter } from './tx-writer';
import type { Rule } from '../../native/rule-builder';
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
  const wanted = new Map<string, { def: ChainDef; owner: string } | null>();
  const dropped = new Map<string, string>();

  for (const { key, next } of changes) {
    const prev = state.services.get(key);
    if (!prev && !next) continue;
    services.set(key, next);
    for (const c of prev?.chains ?? []) { if (!wanted.has(c.name)) { wanted.set(c.name, null); dropped.set(c.name, key); } }
    for (const c of next?.chains ?? []) wanted.set(c.name, { def: c, owner: key });
    index.release(key, prev?.elements ?? []);
    if (next) index.claim(key, next.elements);
  }

  for (const s of state.base.sets) w.declareSet(f, s);
  const fill: { def: ChainDef; owner: string; rules: Rule[] }[] = [];
  for (const [name, want] of wanted) {
    const have = state.mirror.chains.get(name);
    if (!want) {
      if (have !== undefined) w.flushChain(f, name, dropped.get(name)!);
      continue;
    }
    const rules = w.buildRules(f, want.def, want.owner);
    const fp = chainFingerprint(want.def, rules);
    if (have === fp) continue;
    if (have === undefined) w.addChain(f, want.def, want.owner); else w.flushChain(f, name, want.owner);
    fill.push({ ...want, rules });
    chains.set(name, fp);
  }
  for (const c of fill) w.addRules(f, c.def, c.owner, c.rules);

  const elements = writeElementChanges(w, state, index);

  for (const [name, want] of wanted) {
    if (want || !state.mirror.chains.has(name)) continue;
    w.deleteChain(f, name, dropped.get(name)!);
    chains.set(name, null);
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
      w.deleteElements(f, have.set, [{ set: have.set, key: have.key, verdict: have.verdict }], blame);
      out.set(k, null);
    }
    if (win) {
      adds.push({ owner: blame, el: { ...win.el, value: value! } });
      out.set(k, { set: win.el.set, key: win.el.key, value: value!, ...(win.el.verdict ? { verdict: win.el.verdict } : {}) });
    }
  }
  for (const { owner, el } of adds) w.addElements(f, el.set, [{ set: el.set, key: el.key, verdict: el.verdict }], owner);
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
