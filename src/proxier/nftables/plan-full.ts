// A full sync: one transaction that makes our table hold exactly the desired state, whatever
// it held before, with no moment where traffic sees an empty table (the kernel applies the
// whole batch atomically). It flushes every rule and every map, re-adds everything, keeps the
// affinity set's elements, and deletes chains and sets we know of (from the mirror, the
// start-up dump, or a failed transaction) that are no longer wanted.
import { setAttrs } from '../../native/set-spec';
import { NFT_DATA_VERDICT, SET_F } from '../../native/nft-types';
import { baseElements, compileBase, isEndpointMap, setDefFor } from './compile-base';
import { compileService } from './compile-service';
import type { FamilyContext } from './context';
import type { ChainDef, ElementDef, NftFamily, ServiceObjects, SetDef } from './desired';
import { ElementIndex, claimAll } from './element-index';
import { ElementSink } from './element-sink';
import { BASE_OWNER, TxWriter, nativeSetSpec } from './tx-writer';
import { chainFingerprint, setFingerprint, setsInUse, type FamilyMirror, type FamilyState, type ServiceSource } from './state';

/** What we know exists in our table before this sync, beyond what we want. */
export interface KnownObjects {
  /** Chain names. */
  chains: Iterable<string>;
  /** Set name -> a test whether the existing set can be kept as `want`. */
  sets: Map<string, (want: SetDef) => boolean>;
}

/** One ServicePort compiled for the full sync, and the model objects it came from. */
export interface CompiledService {
  obj: ServiceObjects;
  source: ServiceSource;
}

export interface FullFamilyInput {
  ctx: FamilyContext;
  ctxKey: string;
  /**
   * The family's ServicePorts, compiled one at a time in a stable order: each one's elements are
   * encoded and claimed, then dropped, so the sync never holds them all as objects.
   */
  services: Iterable<CompiledService>;
  known: KnownObjects;
  /** Re-create the base chains (once per process): an existing one may have another hook or priority. */
  recreateBaseChains: boolean;
  /** NftablesProxierOptions.beforeElementsCopied. */
  beforeElementsCopied?: (bytes: number) => void;
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

/** Claims each element for `owner`; the first claimant's element is encoded into its set's op. */
function claimInto(index: ElementIndex, sink: ElementSink, owner: string, els: readonly ElementDef[]): void {
  for (const el of claimAll(index, owner, els)) sink.add(owner, el);
}

/**
 * Writes one family's full sync into `w` and returns the state the kernel will hold after it.
 * Each ServicePort's chains are added as it is compiled and its rules dropped, so the compiled rules
 * never exist together (44k Services: ~90 MiB of Rule objects held to the compile's end, the process's
 * peak; docs/memory.md); the rules are compiled again once the base's rules are written. The chains
 * come before the endpoint maps (a ServicePort's chains need only the table; its rules refer only to
 * the affinity set and base chains).
 */
export function planFullFamily(w: TxWriter, input: FullFamilyInput, elementOpPerOwner: boolean): FamilyState {
  const { ctx } = input;
  const f = ctx.family;
  const mirror: FamilyMirror = { chains: new Map(), sets: new Map() };
  const fixed = compileBase(ctx);
  w.addTable(f);
  w.flushTable(f);
  writeSets(w, input, fixed.sets, mirror, (name) => !isEndpointMap(name));
  addBaseChains(w, input, fixed.chains);
  // Elements as they are compiled (the base's own first, then the ServicePorts' in order): the
  // endpoint maps, and so the base's sets and select rules, depend on which are claimed.
  const index = new ElementIndex();
  const sink = new ElementSink((set) => setDefFor(ctx, set), elementOpPerOwner);
  claimInto(index, sink, BASE_OWNER, baseElements(ctx));
  const services = new Map<string, ServiceSource>();
  const withChains: string[] = [];
  for (const { obj, source } of input.services) {
    claimInto(index, sink, obj.key, obj.elements);
    for (const def of obj.chains) w.addChain(f, def, obj.key);
    if (obj.chains.length > 0) withChains.push(obj.key);
    services.set(obj.key, source);
  }
  const base = compileBase(ctx, setsInUse(index.counts()));
  writeSets(w, input, base.sets.filter((s) => isEndpointMap(s.name)), mirror, isEndpointMap);
  for (const def of base.chains) addRules(w, f, def, BASE_OWNER, mirror);
  for (const key of withChains) writeRulesAgain(w, ctx, key, services.get(key)!, mirror);
  withChains.length = 0;
  input.beforeElementsCopied?.(sink.byteLength);
  sink.writeTo(w, f);
  for (const name of new Set(input.known.chains)) {
    if (mirror.chains.has(name)) continue;
    // add + delete: correct whether or not the chain still exists.
    w.addChain(f, { name }, BASE_OWNER);
    w.deleteChain(f, name, BASE_OWNER);
  }
  return { family: f, ctx, ctxKey: input.ctxKey, base, mirror, index, services };
}

/**
 * The known sets `ours` picks out deleted when not wanted or of another type, then `sets` added
 * (and flushed, but affinity). Fixed sets go first, the endpoint maps once the compile has named them.
 */
function writeSets(w: TxWriter, input: FullFamilyInput, sets: readonly SetDef[], mirror: FamilyMirror, ours: (name: string) => boolean): void {
  const f = input.ctx.family;
  const wantedSets = new Map(sets.map((s) => [s.name, s]));
  for (const [name, canKeep] of input.known.sets) {
    if (!ours(name)) continue;
    const want = wantedSets.get(name);
    if (!want || !canKeep(want)) w.deleteSet(f, name);
  }
  for (const s of sets) {
    w.addSet(f, s);
    if (!s.keepElements) w.flushSet(f, s.name);
    mirror.sets.set(s.name, setFingerprint(s));
  }
}

/** Every base chain (re-created first when asked), without rules: ServicePorts' rules jump to them. */
function addBaseChains(w: TxWriter, input: FullFamilyInput, baseChains: readonly ChainDef[]): void {
  const f = input.ctx.family;
  if (input.recreateBaseChains) {
    for (const def of baseChains) {
      if (!def.base) continue;
      w.addChain(f, { name: def.name }, BASE_OWNER);
      w.deleteChain(f, def.name, BASE_OWNER);
    }
  }
  for (const def of baseChains) w.addChain(f, def, BASE_OWNER);
}

/**
 * A ServicePort's rules, compiled again from the model objects its chains came from (the compile is
 * deterministic; it succeeded for these once). Writing them as first compiled would interleave
 * rules with the chains in the kernel's memory, and a partial sync's commit, which walks every
 * chain, took ~1 ms longer at 44k (docs/benchmarks.md).
 */
function writeRulesAgain(w: TxWriter, ctx: FamilyContext, owner: string, source: ServiceSource, mirror: FamilyMirror): void {
  for (const def of compileService(source.sp, source.eps, ctx).chains) addRules(w, ctx.family, def, owner, mirror);
}

function addRules(w: TxWriter, f: NftFamily, def: ChainDef, owner: string, mirror: FamilyMirror): void {
  w.addRules(f, def, owner);
  mirror.chains.set(def.name, chainFingerprint(def));
}
