// A full sync: one transaction that makes our table hold exactly the desired state, whatever
// it held before, with no moment where traffic sees an empty table (the kernel applies the
// whole batch atomically). It flushes every rule and every map, re-adds everything, keeps the
// affinity set's elements, and deletes chains, sets and tables we know of (from the mirror, the
// start-up dump, or a failed transaction) that are no longer wanted.
import { setAttrs } from '../../native/set-spec';
import { NFT_DATA_VERDICT, SET_F } from '../../native/nft-types';
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, ElementDef, ServiceObjects, SetDef } from './desired';
import { buildIndex, winner, type Claims, type IndexKey } from './element-index';
import { BASE_OWNER, MIXED_OWNER, TxWriter, nativeSetSpec } from './tx-writer';
import { countSetUse, setFingerprint, slim, type FamilyMirror, type FamilyState } from './state';
import type { IpFamily } from './rule-steps';
import { qual, unqual } from './layout';

/** What we know exists in the kernel before this sync, beyond what we want. */
export interface KnownObjects {
  /** Tables of ours that exist (start-up listing); those the layout does not want are deleted. */
  tables: Iterable<string>;
  /** qual(table, chain) */
  chains: Iterable<string>;
  /** qual(table, set) -> a test whether the existing set can be kept as `want` */
  sets: Map<string, (want: SetDef) => boolean>;
}

export interface FullFamilyInput {
  ctx: FamilyContext;
  ctxKey: string;
  base: BaseObjects;
  /** Compiled ServicePorts, in a stable order. */
  services: ServiceObjects[];
  known: KnownObjects;
  /** Re-create the base chains (once per process): an existing one may have another hook or priority. */
  resetBaseChains: boolean;
}

const SET_COMPARE_FLAGS = 0x4 | 0x8 | 0x10 | 0x20; // interval, map, timeout, dynamic

export interface DumpedSet { flags: number; keyLen: number; keyType?: number; dataType?: number; dataLen?: number }

/**
 * A test for a set found by Nft.dumpTable: same kind, key and (for a data map) data as the one we
 * want, so that its elements can be written. Anything else is deleted and created anew.
 */
export function dumpedSetMatcher(d: DumpedSet): (want: SetDef) => boolean {
  return (want) => {
    const a = setAttrs(nativeSetSpec(want));
    if ((a.flags & SET_COMPARE_FLAGS) !== (d.flags & SET_COMPARE_FLAGS) || a.keyLen !== d.keyLen) return false;
    if (d.keyType !== undefined && d.keyType !== a.keyType) return false;
    const dataMap = (a.flags & SET_F.map) !== 0 && a.dataType !== NFT_DATA_VERDICT;
    return !dataMap || (d.dataType === a.dataType && d.dataLen === a.dataLen);
  };
}

export function mirrorSetMatcher(fingerprint: string): (want: SetDef) => boolean {
  return (want) => setFingerprint(want) === fingerprint;
}

/** Who claims what, base first, for buildIndex. */
export function ownersOf(base: BaseObjects, services: readonly ServiceObjects[]): { owner: string; elements: readonly ElementDef[] }[] {
  return [{ owner: BASE_OWNER, elements: base.elements }, ...services.map((s) => ({ owner: s.key, elements: s.elements }))];
}

function writeElements(w: TxWriter, family: IpFamily, index: Map<IndexKey, Claims>, fine: boolean): void {
  const groups = new Map<string, { table: string; set: string; owner: string; els: ElementDef[] }>();
  for (const c of index.values()) {
    const win = winner(c);
    if (!win) continue;
    const g = fine ? qual(win.el.table, `${win.el.set}\u0000${win.owner}`) : qual(win.el.table, win.el.set);
    let group = groups.get(g);
    if (!group) groups.set(g, group = { table: win.el.table, set: win.el.set, owner: win.owner, els: [] });
    if (group.owner !== win.owner) group.owner = MIXED_OWNER;
    group.els.push(win.el);
  }
  for (const g of groups.values()) w.addElements(family, g.table, g.set, g.els, g.owner);
}

/** Writes one family's full sync into `w` and returns the state the kernel will hold after it. */
export function planFullFamily(w: TxWriter, input: FullFamilyInput, fine: boolean): FamilyState {
  const { ctx, base } = input;
  const f = ctx.family;
  const mirror: FamilyMirror = { chains: new Map(), sets: new Map() };
  const tables = new Set(base.tables);
  for (const t of base.tables) { w.addTable(f, t); w.flushTable(f, t); }

  const wantedSets = new Map(base.sets.map((s) => [qual(s.table, s.name), s]));
  for (const [q, canKeep] of input.known.sets) {
    const { table, name } = unqual(q);
    const want = wantedSets.get(q);
    if (tables.has(table) && (!want || !canKeep(want))) w.deleteSet(f, table, name);
  }
  for (const s of base.sets) {
    w.addSet(f, s);
    if (!s.keepElements) w.flushSet(f, s.table, s.name);
    mirror.sets.set(qual(s.table, s.name), setFingerprint(s));
  }

  const chains: { def: ChainDef; owner: string }[] = [
    ...base.chains.map((def) => ({ def, owner: BASE_OWNER })),
    ...input.services.flatMap((s) => s.chains.map((def) => ({ def, owner: s.key }))),
  ];
  if (input.resetBaseChains) {
    for (const c of base.chains.filter((c) => c.base)) {
      w.addChain(f, { table: c.table, name: c.name }, BASE_OWNER);
      w.deleteChain(f, c.table, c.name, BASE_OWNER);
    }
  }
  for (const { def, owner } of chains) w.addChain(f, def, owner);
  for (const { def, owner } of chains) mirror.chains.set(qual(def.table, def.name), w.addRules(f, def, owner));

  const index = buildIndex(ownersOf(base, input.services));
  writeElements(w, f, index, fine);

  for (const q of new Set(input.known.chains)) {
    const { table, name } = unqual(q);
    if (mirror.chains.has(q) || !tables.has(table)) continue;
    // add + delete: correct whether or not the chain still exists.
    w.addChain(f, { table, name }, BASE_OWNER);
    w.deleteChain(f, table, name, BASE_OWNER);
  }
  // Shard tables of an earlier version: their Services are in our table now, in the same
  // transaction, so traffic never misses them.
  for (const t of new Set(input.known.tables)) if (!tables.has(t)) w.deleteTable(f, t);
  return {
    family: f, ctx, ctxKey: input.ctxKey, base, mirror, index,
    services: new Map(input.services.map((s) => [s.key, slim(s)])),
    setUse: countSetUse(index),
  };
}
