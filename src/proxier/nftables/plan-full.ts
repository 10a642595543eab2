// A full sync: one transaction that makes our table hold exactly the desired state, whatever
// it held before, with no moment where traffic sees an empty table (the kernel applies the
// whole batch atomically). It flushes every rule and every map, re-adds everything, keeps the
// affinity set's elements, and deletes chains and sets we know of (from the mirror, the
// start-up dump, or a failed transaction) that are no longer wanted.
import { setAttrs } from '../../native/txn/set-spec';
import { NFT_DATA_VERDICT, SET_F } from '../../native/txn/nft-types';
import { baseElements, compileBase, isDerivedSet, setDefFor } from './compile-base';
import { compileService } from './compile-service';
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, ElementDef, NftFamily, ServiceObjects, SetDef } from './desired';
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
 * A cold start's staging (our table absent): what no packet can reach until a hooked chain exists
 * (the table, its sets and their elements, the regular chains and their rules) goes to the kernel
 * in commits of their own while the compile goes on, and the sync's own transaction adds the hooked
 * chains. The kernel's work (~3 s of a 44k first commit, done after the compile in one transaction)
 * then runs beside the compile on the other core; traffic sees nothing until that last
 * transaction, as with one transaction (docs/nftables-ruleset.md, "Syncing").
 */
export interface Staging {
  /** Encoded elements that make a staging commit. */
  minBytes: number;
  /**
   * Queues `w`'s commit after the staging commits before it (a failure is the caller's to collect)
   * and resolves once the one before it has settled: the compile stays at most one commit ahead of
   * the kernel, so queued transactions do not add up in memory.
   */
  commit(w: TxWriter): Promise<void>;
}

/** ServicePorts compiled between two turns of the event loop while staging: a staging commit that ends is followed by the next within ~30 ms. */
const SERVICES_PER_TURN = 256;
const TURN = Symbol('turn');

/** Writes one family's full sync into `w` (sync: no staging) and returns the state the kernel will hold after it. */
export function planFullFamily(w: TxWriter, input: FullFamilyInput, elementOpPerOwner: boolean): FamilyState {
  const steps = planSteps(w, input, elementOpPerOwner);
  for (let r = steps.next(); ; r = steps.next()) if (r.done) return r.value;
}

/** planFullFamily with staging: the event loop turns every few hundred ServicePorts, so that queued staging commits start. */
export async function planStagedFamily(w: TxWriter, input: FullFamilyInput, elementOpPerOwner: boolean, staging: Staging): Promise<FamilyState> {
  const steps = planSteps(w, input, elementOpPerOwner, staging.minBytes);
  for (let r = steps.next(); ; r = steps.next()) {
    if (r.done) return r.value;
    if (r.value !== TURN) await staging.commit(r.value);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Writes one family's full sync into `w` and returns the state the kernel will hold after it.
 * Each ServicePort's chains are added as it is compiled and its rules dropped, so the compiled rules
 * never exist together (44k Services: ~90 MiB of Rule objects held to the compile's end, the process's
 * peak; docs/memory.md); the rules are compiled again once the base's rules are written. The chains
 * come before the endpoint maps (a ServicePort's chains need only the table; its rules refer only to
 * the affinity set and base chains).
 * With `stageBytes` (a cold start), yields each staging transaction as it fills, and TURN now and
 * then; a segment's chains and rules go in its staging transaction as compiled (StagedObjects), and
 * `w` gets the base chains, their rules and the endpoint maps.
 */
function* planSteps(w: TxWriter, input: FullFamilyInput, elementOpPerOwner: boolean, stageBytes?: number): Generator<TxWriter | typeof TURN, FamilyState> {
  const { ctx } = input;
  const f = ctx.family;
  const mirror: FamilyMirror = { chains: new Map(), sets: new Map() };
  const fixed = compileBase(ctx);
  const staged = stageBytes === undefined ? undefined : new StagedObjects(ctx, fixed, stageBytes);
  w.addTable(f);
  if (!staged) w.flushTable(f);
  writeSets(w, input, fixed.sets, mirror, (name) => !isDerivedSet(name), !staged);
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
    if (staged) staged.addChains(obj);
    else {
      for (const def of obj.chains) w.addChain(f, def, obj.key);
      if (obj.chains.length > 0) withChains.push(obj.key);
    }
    services.set(obj.key, source);
    if (staged?.full(sink)) yield staged.take(sink, mirror, false);
    else if (staged && services.size % SERVICES_PER_TURN === 0) yield TURN;
  }
  if (staged) yield staged.take(sink, mirror, true);
  const base = compileBase(ctx, setsInUse(index.counts()));
  writeSets(w, input, base.sets.filter((s) => isDerivedSet(s.name)), mirror, isDerivedSet, !staged);
  // The chains of the larger endpoint counts in use (select-endpoint-6): their rules name the maps just added.
  const fixedChains = new Set(fixed.chains.map((c) => c.name));
  for (const def of base.chains) if (!fixedChains.has(def.name)) w.addChain(f, def, BASE_OWNER);
  for (const def of base.chains) addRules(w, f, def, BASE_OWNER, mirror);
  for (const key of withChains) writeRulesAgain(w, ctx, key, services.get(key)!, mirror);
  withChains.length = 0;
  // Staged, every element is in the kernel by now, and whileStaging has collected the compile's garbage.
  if (!staged) input.beforeElementsCopied?.(sink.byteLength());
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
 * The staging transactions of one family's cold start. The first adds the table, the fixed sets and
 * the regular base chains; each adds the ServicePort chains compiled since the last one, then their
 * rules (each segment's chains next to each other), then the elements encoded since, after adding
 * the sets they name (adding a set the kernel holds with the same definition changes nothing). The
 * verdict maps' elements, the only way into a ServicePort's chains, go in the last one. Nothing
 * reaches any of it until the sync's own transaction adds the hooked chains.
 */
class StagedObjects {
  writer = new TxWriter();
  /** Sets the current staging transaction adds. */
  private sets = new Set<string>();
  private chains: { def: ChainDef; owner: string }[] = [];
  private readonly fixedSets: ReadonlyMap<string, SetDef>;

  constructor(private readonly ctx: FamilyContext, fixed: BaseObjects, private readonly minBytes: number) {
    this.fixedSets = new Map(fixed.sets.map((s) => [s.name, s]));
    this.writer.addTable(ctx.family);
    for (const s of fixed.sets) this.addSet(s);
    for (const def of fixed.chains) if (!def.base) this.writer.addChain(ctx.family, def, BASE_OWNER);
  }

  addChains(obj: ServiceObjects): void {
    for (const def of obj.chains) this.chains.push({ def, owner: obj.key });
  }

  full(sink: ElementSink): boolean {
    return sink.byteLength(notVerdictMap) >= this.minBytes;
  }

  /** The staging transaction; the next one starts empty. `last`: the verdict maps' elements too. */
  take(sink: ElementSink, mirror: FamilyMirror, last: boolean): TxWriter {
    const w = this.writer;
    const f = this.ctx.family;
    w.existingSets(f, this.fixedSets);
    for (const { def, owner } of this.chains) w.addChain(f, def, owner);
    for (const { def, owner } of this.chains) addRules(w, f, def, owner, mirror);
    this.chains = [];
    // The verdict maps' elements go last: they are the only way into the ServicePorts' chains.
    const which = last ? everySet : notVerdictMap;
    for (const name of sink.setNames(which)) if (!this.sets.has(name)) this.addSet(setDefFor(this.ctx, name));
    sink.writeTo(w, f, which);
    this.writer = new TxWriter();
    this.sets = new Set();
    return w;
  }

  private addSet(s: SetDef): void {
    this.writer.addSet(this.ctx.family, s);
    this.sets.add(s.name);
  }
}

const notVerdictMap = (set: SetDef): boolean => set.map !== 'verdict';
const everySet = (): boolean => true;

/**
 * The known sets `ours` picks out deleted when not wanted or of another type, then `sets` added
 * (and flushed, but affinity). Fixed sets go first, the endpoint maps once the compile has named them.
 */
function writeSets(w: TxWriter, input: FullFamilyInput, sets: readonly SetDef[], mirror: FamilyMirror, ours: (name: string) => boolean, flush: boolean): void {
  const f = input.ctx.family;
  const wantedSets = new Map(sets.map((s) => [s.name, s]));
  for (const [name, canKeep] of input.known.sets) {
    if (!ours(name)) continue;
    const want = wantedSets.get(name);
    if (!want || !canKeep(want)) w.deleteSet(f, name);
  }
  for (const s of sets) {
    w.addSet(f, s);
    if (flush && !s.keepElements) w.flushSet(f, s.name);
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
 * chain, took ~1 ms longer at 44k (docs/memory.md, round 3 under "How memory grows").
 */
function writeRulesAgain(w: TxWriter, ctx: FamilyContext, owner: string, source: ServiceSource, mirror: FamilyMirror): void {
  for (const def of compileService(source.sp, source.eps, ctx).chains) addRules(w, ctx.family, def, owner, mirror);
}

function addRules(w: TxWriter, f: NftFamily, def: ChainDef, owner: string, mirror: FamilyMirror): void {
  w.addRules(f, def, owner);
  mirror.chains.set(def.name, chainFingerprint(def));
}
