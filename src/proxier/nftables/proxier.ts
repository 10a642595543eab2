// NftablesProxier: keeps our table `kube-proxy` of the `ip`/`ip6` families equal to the model,
// one atomic transaction per sync (a cold start stages what no packet reaches before it: plan-full.ts
// Staging), never listing the kernel's ruleset during normal syncs.
import type { ChangeSet, Proxier, ProxySnapshot, ServicePort, SyncResult } from '../../core/types';
import { ServicePortError, compileService } from './compile-service';
import type { FamilyContext } from './context';
import { ContextCache, contextInputsOf, type KeyedContext } from './context-cache';
import type { NftFamily } from './desired';
import { ElementIndex } from './element-index';
import { DEFAULT_STAGE_BYTES, checkOptions, type NftablesProxierOptions } from './options';
import { TABLE } from './names';
import { StaleRecords, removedPairs } from './affinity-records';
import { SET_F } from '../../native/txn/nft-types';
import { applyPartial, planPartialFamily, type PartialChange, type PartialResult } from './plan-partial';
import {
  dumpedSetMatcher, mirrorSetMatcher, planFullFamily, planStagedFamily, type CompiledService, type FullFamilyInput, type KnownObjects,
  type Staging,
} from './plan-full';
import type { FamilyState } from './state';
import { BASE_OWNER, MIXED_OWNER, OwnedBuildError, TxWriter } from './tx-writer';

/** Failures after which the kernel may or may not have applied the batch. */
const UNKNOWN_OUTCOME = new Set(['ENOBUFS', 'EAGAIN', 'ETIMEDOUT', 'EPROTO', 'EINTR']);

/** Why a full sync re-reads and rewrites our tables (kubeproxy_native_ruleset_repairs_total{reason}). */
export type RepairReason = 'foreign_change' | 'events_lost' | 'drift' | 'unknown_outcome';

/** Each refused ServicePort costs one more attempt; past this the sync fails as a whole. */
const MAX_ATTEMPTS = 20;

const familyOf = (sp: ServicePort): NftFamily => (sp.family === 'IPv6' ? 'ip6' : 'ip');

interface NetlinkErrorLike { opIndex: number; errno?: number; code?: string; object?: string; message: string }

/** What a failed sync says about the kernel: refused cleanly, possibly applied, or not what the mirror says. */
function failureKind(e: unknown): RepairReason | null {
  const n = e as Partial<NetlinkErrorLike>;
  if (n?.code === undefined) return null;
  if (UNKNOWN_OUTCOME.has(n.code) && !(typeof n.opIndex === 'number' && n.opIndex >= 0)) return 'unknown_outcome';
  return n.code === 'ENOENT' ? 'drift' : null;
}
function failingOp(e: unknown): number | null {
  const n = e as NetlinkErrorLike;
  return e instanceof Error && typeof n.opIndex === 'number' && n.opIndex >= 0 ? n.opIndex : null;
}

interface Attempt {
  writer: TxWriter;
  commit(): void;
  /** A cold start's staging commits (plan-full.ts Staging), settled before the writer's own. */
  staged?: Promise<unknown>;
}

export class NftablesProxier implements Proxier {
  private readonly opts: NftablesProxierOptions;
  private readonly states = new Map<NftFamily, FamilyState>();
  /** Objects found by the one start-up dump, until the first full sync has replaced them. */
  private adoption: Map<NftFamily, KnownObjects> | null = null;
  /** Chains a failed transaction may have created (in case the failure came after the commit). */
  private readonly maybeChains = new Map<NftFamily, Set<string>>();
  /** Families whose table the last dump did not find: their next full sync is a cold start. */
  private readonly absent = new Set<NftFamily>();
  private needFull = true;
  /** The next full sync first lists what our tables hold: the mirror may be wrong. */
  private needRead = true;
  /** The next full sync re-creates the base chains: their hook, priority or policy may differ. */
  private needRecreateBaseChains = true;
  private readonly repairReasons = new Set<RepairReason>();
  /** Counts markDirty calls: one made while a sync runs must survive that sync's end. */
  private dirtyCalls = 0;
  private running: Promise<unknown> = Promise.resolve();
  private readonly refused = new Map<string, string>();
  private readonly contexts: ContextCache;
  /** The session-affinity records a commit made stale, deleted after it (affinity-records.ts). */
  private readonly staleRecords = new StaleRecords();

  constructor(opts: NftablesProxierOptions) {
    checkOptions(opts);
    this.opts = { ...opts, families: [...opts.families] };
    this.contexts = new ContextCache(contextInputsOf(opts), opts.families);
  }

  /** ServicePorts currently left out, with the reason. */
  refusedServicePorts(): ReadonlyMap<string, string> {
    return this.refused;
  }

  /**
   * Our tables may not hold what the mirror says (another process changed them, or events about
   * them were lost): the next sync is a full one that reads the kernel first and rewrites
   * everything, base chains included.
   */
  markDirty(reason: RepairReason): void {
    this.needFull = this.needRead = this.needRecreateBaseChains = true;
    this.repairReasons.add(reason);
    this.dirtyCalls++;
  }

  /** Syncs run one after another: each plans from the state the previous one left. */
  sync(snapshot: ProxySnapshot, changes: ChangeSet, full: boolean): Promise<SyncResult> {
    const run = this.running.then(() => this.syncNow(snapshot, changes, full));
    this.running = run.catch(() => undefined);
    return run;
  }

  private async syncNow(snapshot: ProxySnapshot, changes: ChangeSet, full: boolean): Promise<SyncResult> {
    const ctxs = this.contexts.get(snapshot);
    const doFull = full || this.needFull || ctxs.some((c) => this.states.get(c.ctx.family)?.ctxKey !== c.key);
    if (doFull) this.startRepair();
    const dirtyCallsAtStart = this.dirtyCalls;
    try {
      if (doFull && this.needRead) this.adoption = await this.dumpExisting();
      if (doFull) this.dropIndexes();
      await this.runAttempts(doFull, snapshot, changes, ctxs);
      await this.staleRecords.delete(this.states, this.opts.nft, this.opts.log);
      // markDirty while this sync ran (another process changed our tables during it): this sync
      // may have planned from, or read, the tables before that change, so the next one is still the
      // repair, and counts its reasons.
      const dirtiedMeanwhile = this.dirtyCalls !== dirtyCallsAtStart;
      if (!dirtiedMeanwhile) this.needFull = false;
      if (doFull) {
        this.adoption = null;
        this.absent.clear();
        this.maybeChains.clear();
        if (!dirtiedMeanwhile) this.needRead = this.needRecreateBaseChains = false;
      }
      return { full: doFull, ok: true };
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      const kind = failureKind(e);
      // Whatever failed, the next full sync lists our tables again rather than trust the mirror.
      this.needFull = this.needRead = true;
      this.adoption = null;
      if (kind) this.repairReasons.add(kind);
      this.opts.metrics?.syncFailures?.inc();
      const outcome = kind === 'unknown_outcome' ? 'the kernel may or may not have applied it; ' : '';
      this.opts.log.error({ err: error, full: doFull }, `nftables sync failed; ${outcome}the next sync re-reads our tables and rewrites them`);
      return { full: doFull, ok: false, error };
    }
  }

  /**
   * A full sync rewrites every element and builds a new index; the old one would only double the
   * sync's peak. Only partial syncs read an index, and none runs until a full sync has succeeded
   * (a failed one leaves needFull set), so the old states keep their mirror and sources (what a
   * retry needs) but not their index.
   */
  private dropIndexes(): void {
    for (const s of this.states.values()) s.index = new ElementIndex();
  }

  /** A full sync that follows a repair reason counts it once, and says why it runs. */
  private startRepair(): void {
    if (this.repairReasons.size === 0) return;
    const reasons = [...this.repairReasons].sort();
    this.repairReasons.clear();
    for (const reason of reasons) this.opts.metrics?.repairs?.inc({ reason });
    this.opts.log.info({ reasons }, 'Repairing our nftables tables with a full sync');
  }

  /**
   * The one listing we ever do: what an earlier run (ours or upstream's) left in our table, one
   * dump per family, without elements (a 50k-Service table holds ~400k).
   */
  private async dumpExisting(): Promise<Map<NftFamily, KnownObjects>> {
    const out = new Map<NftFamily, KnownObjects>();
    for (const f of this.opts.families) {
      const known: KnownObjects = { chains: [], sets: new Map() };
      try {
        const d = await this.opts.nft.dumpTable(f, TABLE, { elements: false });
        this.absent.delete(f);
        known.chains = d.chains.map((c) => c.name);
        // An anonymous set (upstream's `numgen ... vmap { ... }`) belongs to its rule and goes with it:
        // named in a delete it is already gone (ENOENT), which would fail every full sync.
        for (const s of d.sets) if ((s.flags & SET_F.anonymous) === 0) known.sets.set(s.name, dumpedSetMatcher(s));
      } catch (e) {
        if ((e as NetlinkErrorLike).code !== 'ENOENT') throw e;
        this.absent.add(f);
      }
      out.set(f, known);
    }
    return out;
  }

  private async runAttempts(full: boolean, snapshot: ProxySnapshot, changes: ChangeSet, ctxs: readonly KeyedContext[]): Promise<void> {
    const refusedNow = new Map<string, string>();
    /** Refused ServicePorts whose previous objects the kernel refused too: left out. */
    const noPrevious = new Set<string>();
    /** A full sync's elements go in one op per set until the kernel refuses such a mixed op. */
    let elementOpPerOwner = !full;
    for (let attempt = 1; ; attempt++) {
      let a: Attempt;
      try {
        a = full ? await this.planFull(snapshot, ctxs, refusedNow, noPrevious, elementOpPerOwner) : this.planPartial(snapshot, changes, refusedNow);
      } catch (e) {
        if (!(e instanceof OwnedBuildError) || attempt >= MAX_ATTEMPTS) throw e;
        refusedNow.set(e.owner, e.message);
        this.refuse(e.owner, e.message);
        continue;
      }
      if (a.staged && !(await this.stagedOk(a.staged))) continue;
      const ops = a.writer.tx.opCount;
      this.opts.log.debug({ full, ops, bytes: a.writer.tx.byteLength, attempt }, 'committing nftables transaction');
      try {
        if (ops > 0) await this.opts.nft.commit(a.writer.tx);
        a.commit();
        this.recordRefusals(full, changes, refusedNow);
        return;
      } catch (e) {
        this.rememberMaybeChains(a.writer);
        // What the staging commits left is known only to the kernel: the next attempt reads it.
        if (a.staged) this.adoption = await this.dumpExisting();
        const op = failingOp(e);
        const owner = op === null ? undefined : a.writer.owners[op];
        // ENOENT, or a failing flush/delete, means the kernel lacks what the mirror says it holds:
        // drift, not a bad Service; the full sync this failure triggers repairs it.
        const drift = (e as NetlinkErrorLike).code === 'ENOENT' || (op !== null && !a.writer.adds[op]);
        if (attempt >= MAX_ATTEMPTS || owner === undefined || owner === BASE_OWNER || drift) throw e;
        if (owner === MIXED_OWNER) { elementOpPerOwner = true; continue; }
        if (refusedNow.has(owner)) { noPrevious.add(owner); continue; }
        const why = `${(e as Error).message} (${a.writer.tx.describe(op!)})`;
        refusedNow.set(owner, why);
        this.refuse(owner, why);
      }
    }
  }

  /**
   * Whether a cold start's staging commits all went through. If one did not, the table holds part
   * of what they carried (nothing hooked, so no traffic saw it): it is read again, and the next
   * attempt writes everything in one transaction, whose own refusals name the ServicePort.
   */
  private async stagedOk(staged: Promise<unknown>): Promise<boolean> {
    try {
      await staged;
      return true;
    } catch (e) {
      this.opts.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Staging the first sync of an absent nftables table failed; writing it in one transaction');
      this.adoption = await this.dumpExisting();
      return false;
    }
  }

  private refuse(key: string, why: string): void {
    this.opts.metrics?.refusedServicePorts?.inc();
    const kept = this.hasPrevious(key);
    this.opts.log.warn({ servicePort: key, reason: why, keptPreviousRules: kept },
      kept ? 'ServicePort refused; keeping the rules it had and programming the others' : 'ServicePort refused; programming the others without it');
  }

  /** Whether the kernel holds a working version of the ServicePort (from an earlier sync). */
  private hasPrevious(key: string): boolean {
    return this.opts.families.some((f) => this.states.get(f)?.services.has(key));
  }

  /**
   * A refused ServicePort's objects as the kernel last accepted them, for a full sync to write
   * again: compiled anew from the model objects they came from.
   */
  private previous(key: string, ctx: FamilyContext, noPrevious: ReadonlySet<string>): CompiledService | null {
    const source = this.states.get(ctx.family)?.services.get(key);
    if (!source || noPrevious.has(key)) return null;
    try {
      return { obj: compileService(source.sp, source.eps, ctx), source };
    } catch {
      return null;
    }
  }

  private recordRefusals(full: boolean, changes: ChangeSet, refusedNow: Map<string, string>): void {
    if (full) this.refused.clear();
    else for (const k of changes.services) this.refused.delete(k);
    for (const [k, why] of refusedNow) this.refused.set(k, why);
  }

  private rememberMaybeChains(w: TxWriter): void {
    for (const { family, name } of w.addedChains) {
      let set = this.maybeChains.get(family);
      if (!set) this.maybeChains.set(family, set = new Set());
      set.add(name);
    }
  }

  /** Compiles one ServicePort for its family, or records why it cannot be programmed. */
  private compile(sp: ServicePort, snapshot: ProxySnapshot, ctx: FamilyContext, refusedNow: Map<string, string>): CompiledService | null {
    if (refusedNow.has(sp.key)) return null;
    try {
      const eps = snapshot.endpoints.get(sp.key);
      return { obj: compileService(sp, eps, ctx), source: { sp, eps } };
    } catch (e) {
      if (!(e instanceof ServicePortError)) throw e;
      refusedNow.set(sp.key, e.message);
      this.refuse(sp.key, e.message);
      return null;
    }
  }

  /** The family's ServicePorts compiled one at a time, in key order (a refused one as the kernel last accepted it). */
  private *compiled(keys: readonly string[], snapshot: ProxySnapshot, ctx: FamilyContext, refusedNow: Map<string, string>,
    noPrevious: ReadonlySet<string>): Generator<CompiledService> {
    for (const key of keys) {
      const sp = snapshot.services.get(key)!;
      if (familyOf(sp) !== ctx.family) continue;
      const c = this.compile(sp, snapshot, ctx, refusedNow) ?? this.previous(key, ctx, noPrevious);
      if (c) yield c;
    }
  }

  private async planFull(snapshot: ProxySnapshot, ctxs: readonly KeyedContext[], refusedNow: Map<string, string>,
    noPrevious: ReadonlySet<string>, elementOpPerOwner: boolean): Promise<Attempt> {
    const writer = new TxWriter();
    const keys = [...snapshot.services.keys()].sort();
    let staged: Promise<unknown> | undefined;
    const staging: Staging = {
      minBytes: this.stageBytes,
      commit: (w) => {
        const before = staged ?? Promise.resolve();
        this.opts.whileStaging?.();
        staged = before.then(() => this.opts.nft.commit(w.tx));
        // Collected by runAttempts once the compile is done; until then it must not count as unhandled.
        staged.catch(() => undefined);
        return before.then(() => undefined, () => undefined);
      },
    };
    const next: FamilyState[] = [];
    for (const { ctx, key: ctxKey } of ctxs) {
      const input: FullFamilyInput = {
        ctx, ctxKey, services: this.compiled(keys, snapshot, ctx, refusedNow, noPrevious),
        known: this.knownObjects(ctx.family), recreateBaseChains: this.needRecreateBaseChains,
        beforeElementsCopied: this.opts.beforeElementsCopied,
      };
      if (!this.coldStart(ctx.family)) next.push(planFullFamily(writer, input, elementOpPerOwner));
      else {
        // Whatever happens to the staging commits, the table is no longer known to be absent.
        this.absent.delete(ctx.family);
        next.push(await planStagedFamily(writer, input, elementOpPerOwner, staging));
      }
    }
    return { writer, staged, commit: () => {
      for (const s of next) {
        this.states.set(s.family, s);
        this.staleRecords.afterFullSync(s);
      }
    } };
  }

  private get stageBytes(): number {
    return this.opts.stageBytes ?? DEFAULT_STAGE_BYTES;
  }

  /** A full sync into a table the last dump did not find, with nothing of ours that may exist since. */
  private coldStart(f: NftFamily): boolean {
    return this.stageBytes > 0 && this.absent.has(f) && !this.states.has(f) && !this.maybeChains.get(f)?.size;
  }

  private knownObjects(f: NftFamily): KnownObjects {
    const prior = this.states.get(f);
    const adopted = this.adoption?.get(f);
    const chains = new Set<string>([...(prior?.mirror.chains.keys() ?? []), ...(adopted?.chains ?? []), ...(this.maybeChains.get(f) ?? [])]);
    const sets = new Map(adopted?.sets ?? []);
    // After a dump the kernel's list is the truth: a set the mirror remembers and the dump lacks is
    // gone (a commit applied though its reply was lost, someone deleted it), and a delete of it
    // would fail this full sync, and every one after it, with ENOENT. Chains need no such care:
    // they are added, then deleted.
    for (const [name, fp] of prior?.mirror.sets ?? []) if (!adopted || sets.has(name)) sets.set(name, mirrorSetMatcher(fp));
    return { chains, sets };
  }

  private planPartial(snapshot: ProxySnapshot, changes: ChangeSet, refusedNow: Map<string, string>): Attempt {
    const writer = new TxWriter({ small: true });
    const perFamily = new Map<NftFamily, PartialChange[]>(this.opts.families.map((f) => [f, []]));
    const keys = new Set([...changes.services, ...refusedNow.keys()]);
    for (const key of [...keys].sort()) {
      const sp = snapshot.services.get(key);
      const target = sp ? familyOf(sp) : undefined;
      const state = target && this.states.get(target);
      const next = sp && state ? this.compile(sp, snapshot, state.ctx, refusedNow) : null;
      // A refused change leaves the ServicePort as the kernel last accepted it, in every family.
      if (refusedNow.has(key) && this.hasPrevious(key)) continue;
      for (const f of this.opts.families) perFamily.get(f)!.push({ key, next: f === target ? next : null });
    }
    const results: PartialResult[] = this.opts.families.map((f) => planPartialFamily(writer, this.states.get(f)!, perFamily.get(f)!));
    return { writer, commit: () => {
      for (const r of results) {
        applyPartial(r);
        for (const [fam, c] of r.pairs) if (c.removed.length > 0) this.staleRecords.add(r.state.family, fam, removedPairs(c));
      }
    } };
  }
}
