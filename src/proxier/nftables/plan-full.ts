// A full sync: one transaction that makes our table hold exactly the desired state, whatever
// it held before, with no moment where traffic sees an empty table (the kernel applies the
// whole batch atomically). It flushes every rule and every map, re-adds everything, keeps the
// affinity set's elements, and deletes chains and sets we know of (from the mirror, the
// start-up dump, or a failed transaction) that are no longer wanted.
import { setAttrs } from '../../native/set-spec';
import { NFT_DATA_VERDICT, SET_F } from '../../native/nft-types';
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, ElementDef, NftFamily, ServiceObjects, SetDef } from './desired';
import { buildIndex, winner, type Claims, type IndexKey } from './element-index';
import { BASE_OWNER, MIXED_OWNER, TxWriter, nativeSetSpec } from './tx-writer';
import { chainFingerprint, countSetUse, setFingerprint, withoutRules, type FamilyMirror, type FamilyState } from './state';

/** What we know exists in our table before this sync, beyond what we want. */
export interface KnownObjects {
  /** Chain names. */
  chains: Iterable<string>;
  /** Set name -> a test whether the existing set can be kept as `want`. */
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
  recreateBaseChains: boolean;
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

/**
 * One op per set; with `opPerOwner`, one per set and ServicePort (slower, but a refused op then
 * names its ServicePort).
 */
function writeElements(w: TxWriter, family: NftFamily, index: Map<IndexKey, Claims>, opPerOwner: boolean): void {
  const groups = new Map<string, { set: string; owner: string; els: ElementDef[] }>();
  for (const c of index.values()) {
    const win = winner(c);
    if (!win) continue;
    const g = opPerOwner ? `${win.el.set}\u0000${win.owner}` : win.el.set;
    let group = groups.get(g);
    if (!group) groups.set(g, group = { set: win.el.set, owner: win.owner, els: [] });
    if (group.owner !== win.owner) group.owner = MIXED_OWNER;
    group.els.push(win.el);
  }
  for (const g of groups.values()) w.addElements(family, g.set, g.els, g.owner);
}

/** Writes one family's full sync into `w` and returns the state the kernel will hold after it. */
export function planFullFamily(w: TxWriter, input: FullFamilyInput, elementOpPerOwner: boolean): FamilyState {
  const { ctx, base } = input;
  const f = ctx.family;
  const mirror: FamilyMirror = { chains: new Map(), sets: new Map() };
  w.addTable(f);
  w.flushTable(f);

  const wantedSets = new Map(base.sets.map((s) => [s.name, s]));
  for (const [name, canKeep] of input.known.sets) {
    const want = wantedSets.get(name);
    if (!want || !canKeep(want)) w.deleteSet(f, name);
  }
  for (const s of base.sets) {
    w.addSet(f, s);
    if (!s.keepElements) w.flushSet(f, s.name);
    mirror.sets.set(s.name, setFingerprint(s));
  }

  const chains: { def: ChainDef; owner: string }[] = [
    ...base.chains.map((def) => ({ def, owner: BASE_OWNER })),
    ...input.services.flatMap((s) => s.chains.map((def) => ({ def, owner: s.key }))),
  ];
  if (input.recreateBaseChains) {
    for (const c of base.chains.filter((c) => c.base)) {
      w.addChain(f, { name: c.name }, BASE_OWNER);
      w.deleteChain(f, c.name, BASE_OWNER);
    }
  }
  for (const { def, owner } of chains) w.addChain(f, def, owner);
  for (const { def, owner } of chains) {
    w.addRules(f, def, owner);
    mirror.chains.set(def.name, chainFingerprint(def));
  }

  const index = buildIndex(ownersOf(base, input.services));
  writeElements(w, f, index, elementOpPerOwner);

  for (const name of new Set(input.known.chains)) {
    if (mirror.chains.has(name)) continue;
    // add + delete: correct whether or not the chain still exists.
    w.addChain(f, { name }, BASE_OWNER);
    w.deleteChain(f, name, BASE_OWNER);
  }
  return {
    family: f, ctx, ctxKey: input.ctxKey, base, mirror, index,
    services: new Map(input.services.map((s) => [s.key, withoutRules(s)])),
    setUse: countSetUse(index),
  };
}
