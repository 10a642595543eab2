// NftablesProxier: keeps our table `kube-proxy` of the `ip`/`ip6` families equal to the model,
// one atomic transaction per sync, never listing the kernel's ruleset during normal syncs.
import type { ChangeSet, Proxier, ProxySnapshot, ServicePort, SyncResult } from '../../core/types';
import type { Transaction } from '../../native/transaction';
import { compileBase, setNamesOf } from './compile-base';
import { ServicePortError, compileService } from './compile-service';
import { buildContext, contextKey, type ContextInputs } from './context';
import type { ServiceObjects } from './desired';
import { checkOptions, type NftablesProxierOptions } from './options';
import { isOurTable, qual } from './layout';
import { TABLE } from './names';
import { applyPartial, planPartialFamily, type PartialChange, type PartialResult } from './plan-partial';
import { dumpedSetMatcher, mirrorSetMatcher, planFullFamily, type FullFamilyInput, type KnownObjects } from './plan-full';
import type { IpFamily } from './rule-steps';
import type { FamilyState } from './state';
import { BASE_OWNER, MIXED_OWNER, OwnedBuildError, TxWriter } from './tx-writer';

/** Each refused ServicePort costs one more attempt; past this the sync fails as a whole. */
const MAX_ATTEMPTS = 20;
/** A full sync's few ops carry every element (15 MB at 50k Services): keep only small transactions. */
const KEEP_TRANSACTION_OPS = 10_000;
const KEEP_TRANSACTION_BYTES = 1 << 20;

const familyOf = (sp: ServicePort): IpFamily => (sp.family === 'IPv6' ? 'ip6' : 'ip');

interface NetlinkErrorLike { opIndex: number; errno?: number; code?: string; object?: string; message: string }
function failingOp(e: unknown): number | null {
  const n = e as NetlinkErrorLike;
  return e instanceof Error && typeof n.opIndex === 'number' && n.opIndex >= 0 ? n.opIndex : null;
}

interface Attempt {
  writer: TxWriter;
  commit(): void;
}

export class NftablesProxier implements Proxier {
  private readonly opts: NftablesProxierOptions;
  private readonly states = new Map<IpFamily, FamilyState>();
  /** Objects found by the one start-up dump, until the first full sync has replaced them. */
  private adoption: Map<IpFamily, KnownObjects> | null = null;
  /** Chains a failed transaction may have created (in case the failure came after the commit). */
  private readonly maybeChains = new Map<IpFamily, Set<string>>();
  private needFull = true;
  private running: Promise<unknown> = Promise.resolve();
  private baseChainsReset = false;
  private readonly refused = new Map<string, string>();
  /** Totals since start, for tests and metrics. */
  readonly counters = { syncs: 0, fullSyncs: 0, failures: 0, refusals: 0 };
  /**
   * The last transaction committed or attempted, for tests and debugging (its op count and
   * describe()); kept only when small, so a full sync's large batch can be freed.
   */
  lastTransaction: Transaction | undefined;
  lastOpCount = 0;

  constructor(opts: NftablesProxierOptions) {
    checkOptions(opts);
    this.opts = { ...opts, families: [...opts.families] };
  }

  /** ServicePorts currently left out, with the reason. */
  refusedServicePorts(): ReadonlyMap<string, string> {
    return this.refused;
  }

  /** Syncs run one after another: each plans from the state the previous one left. */
  sync(snapshot: ProxySnapshot, changes: ChangeSet, full: boolean): Promise<SyncResult> {
    const run = this.running.then(() => this.syncNow(snapshot, changes, full));
    this.running = run.catch(() => undefined);
    return run;
  }

  private async syncNow(snapshot: ProxySnapshot, changes: ChangeSet, full: boolean): Promise<SyncResult> {
    this.counters.syncs++;
    const serviceCIDRs = [...new Set([...(this.opts.serviceCIDRs ?? []), ...(snapshot.serviceCIDRs ?? [])])].sort();
    const inputs: ContextInputs = { ...this.opts, serviceCIDRs };
    const ctxs = this.opts.families.map((f) => buildContext(inputs, f, snapshot.node));
    const doFull = full || this.needFull || ctxs.some((c) => this.states.get(c.family)?.ctxKey !== contextKey(c));
    try {
      if (doFull && !this.adoption && !this.baseChainsReset) this.adoption = await this.dumpExisting();
      await this.runAttempts(doFull, snapshot, changes, ctxs);
      this.needFull = false;
      if (doFull) { this.counters.fullSyncs++; this.adoption = null; this.maybeChains.clear(); this.baseChainsReset = true; }
      return { full: doFull, ok: true };
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      this.needFull = true;
      // The next full sync lists the tables again: what failed may have been a table that vanished.
      if (doFull && !this.baseChainsReset) this.adoption = null;
      this.counters.failures++;
      this.opts.metrics?.syncFailures?.inc();
      this.opts.log.error({ err: error, full: doFull }, 'nftables sync failed; the next sync will be a full one');
      return { full: doFull, ok: false, error };
    }
  }

  /**
   * The one listing we ever do: what an earlier run (ours, an earlier version's shard tables, or
   * upstream's) left in our tables. One listTables(), then one dump per table of ours.
   */
  private async dumpExisting(): Promise<Map<IpFamily, KnownObjects>> {
    const out = new Map<IpFamily, KnownObjects>();
    const candidates = await this.ourTables();
    for (const f of this.opts.families) {
      const known: KnownObjects = { tables: [], chains: [], sets: new Map() };
      for (const t of candidates.filter((c) => c.family === f).map((c) => c.name)) {
        try {
          const d = await this.opts.nft.dumpTable(f, t, { elements: false });
          (known.tables as string[]).push(t);
          for (const c of d.chains) (known.chains as string[]).push(qual(t, c.name));
          for (const s of d.sets) known.sets.set(qual(t, s.name), dumpedSetMatcher(s));
        } catch (e) {
          if ((e as NetlinkErrorLike).code !== 'ENOENT') throw e;
        }
      }
      out.set(f, known);
    }
    return out;
  }

  /** Our tables that may exist: listed when the handle can, else just `kube-proxy`. */
  private async ourTables(): Promise<{ family: IpFamily; name: string }[]> {
    const fams = new Set<string>(this.opts.families);
    if (typeof this.opts.nft.listTables === 'function') {
      const all = await this.opts.nft.listTables();
      return all.filter((t) => fams.has(t.family) && isOurTable(t.name)) as { family: IpFamily; name: string }[];
    }
    return this.opts.families.map((family) => ({ family, name: TABLE }));
  }

  private async runAttempts(full: boolean, snapshot: ProxySnapshot, changes: ChangeSet, ctxs: ReturnType<typeof buildContext>[]): Promise<void> {
    const refusedNow = new Map<string, string>();
    let fine = !full;
    for (let attempt = 1; ; attempt++) {
      let a: Attempt;
      try {
        a = full ? this.planFull(snapshot, ctxs, refusedNow, fine) : this.planPartial(snapshot, changes, refusedNow);
      } catch (e) {
        if (!(e instanceof OwnedBuildError) || attempt >= MAX_ATTEMPTS) throw e;
        refusedNow.set(e.owner, e.message);
        this.refuse(e.owner, e.message);
        continue;
      }
      this.lastOpCount = a.writer.tx.opCount;
      const small = this.lastOpCount <= KEEP_TRANSACTION_OPS && a.writer.tx.serialize().length <= KEEP_TRANSACTION_BYTES;
      this.lastTransaction = small ? a.writer.tx : undefined;
      try {
        if (a.writer.tx.opCount > 0) await this.opts.nft.commit(a.writer.tx);
        a.commit();
        this.recordRefusals(full, changes, refusedNow);
        return;
      } catch (e) {
        this.rememberMaybeChains(a.writer);
        const op = failingOp(e);
        const owner = op === null ? undefined : a.writer.owners[op];
        // ENOENT, or a failing flush/delete, means the kernel lacks what the mirror says it holds:
        // drift, not a bad Service; the full sync this failure triggers repairs it.
        const drift = (e as NetlinkErrorLike).code === 'ENOENT' || (op !== null && !a.writer.adds[op]);
        if (attempt >= MAX_ATTEMPTS || owner === undefined || owner === BASE_OWNER || drift) throw e;
        if (owner === MIXED_OWNER) { fine = true; continue; }
        const why = `${(e as Error).message} (${a.writer.tx.describe(op!)})`;
        refusedNow.set(owner, why);
        this.refuse(owner, why);
      }
    }
  }

  private refuse(key: string, why: string): void {
    this.counters.refusals++;
    this.opts.metrics?.refusedServicePorts?.inc();
    this.opts.log.warn({ servicePort: key, reason: why }, 'ServicePort refused; programming the others without it');
  }

  private recordRefusals(full: boolean, changes: ChangeSet, refusedNow: Map<string, string>): void {
    if (full) this.refused.clear();
    else for (const k of changes.services) this.refused.delete(k);
    for (const [k, why] of refusedNow) this.refused.set(k, why);
  }

  private rememberMaybeChains(w: TxWriter): void {
    for (const { family, table, name } of w.addedChains) {
      let set = this.maybeChains.get(family);
      if (!set) this.maybeChains.set(family, set = new Set());
      set.add(qual(table, name));
    }
  }

  /** Compiles one ServicePort for its family, or records why it cannot be programmed. */
  private compile(sp: ServicePort, snapshot: ProxySnapshot, ctx: ReturnType<typeof buildContext>, refusedNow: Map<string, string>): ServiceObjects | null {
    if (refusedNow.has(sp.key)) return null;
    try {
      return compileService(sp, snapshot.endpoints.get(sp.key), ctx);
    } catch (e) {
      if (!(e instanceof ServicePortError)) throw e;
      refusedNow.set(sp.key, e.message);
      this.refuse(sp.key, e.message);
      return null;
    }
  }

  private planFull(snapshot: ProxySnapshot, ctxs: ReturnType<typeof buildContext>[], refusedNow: Map<string, string>, fine: boolean): Attempt {
    const writer = new TxWriter();
    const byFamily = new Map<IpFamily, ServiceObjects[]>(ctxs.map((c) => [c.family, []]));
    const ctxOf = new Map(ctxs.map((c) => [c.family, c]));
    for (const key of [...snapshot.services.keys()].sort()) {
      const sp = snapshot.services.get(key)!;
      const ctx = ctxOf.get(familyOf(sp));
      if (!ctx) continue;
      const obj = this.compile(sp, snapshot, ctx, refusedNow);
      if (obj) byFamily.get(ctx.family)!.push(obj);
    }
    const next: FamilyState[] = ctxs.map((ctx) => {
      const input: FullFamilyInput = {
        ctx, ctxKey: contextKey(ctx), base: compileBase(ctx, setNamesOf(byFamily.get(ctx.family)!)), services: byFamily.get(ctx.family)!,
        known: this.knownObjects(ctx.family), resetBaseChains: !this.baseChainsReset,
      };
      return planFullFamily(writer, input, fine);
    });
    return { writer, commit: () => { for (const s of next) this.states.set(s.family, s); } };
  }

  private knownObjects(f: IpFamily): KnownObjects {
    const prior = this.states.get(f);
    const adopted = this.adoption?.get(f);
    const chains = new Set<string>([...(prior?.mirror.chains.keys() ?? []), ...(adopted?.chains ?? []), ...(this.maybeChains.get(f) ?? [])]);
    const sets = new Map(adopted?.sets ?? []);
    for (const [q, fp] of prior?.mirror.sets ?? []) sets.set(q, mirrorSetMatcher(fp));
    return { tables: adopted?.tables ?? [], chains, sets };
  }

  private planPartial(snapshot: ProxySnapshot, changes: ChangeSet, refusedNow: Map<string, string>): Attempt {
    const writer = new TxWriter();
    const perFamily = new Map<IpFamily, PartialChange[]>(this.opts.families.map((f) => [f, []]));
    const keys = new Set([...changes.services, ...refusedNow.keys()]);
    for (const key of [...keys].sort()) {
      const sp = snapshot.services.get(key);
      for (const f of this.opts.families) {
        const state = this.states.get(f)!;
        const next = sp && familyOf(sp) === f ? this.compile(sp, snapshot, state.ctx, refusedNow) : null;
        perFamily.get(f)!.push({ key, next });
      }
    }
    const results: PartialResult[] = this.opts.families.map((f) => planPartialFamily(writer, this.states.get(f)!, perFamily.get(f)!));
    return { writer, commit: () => { for (const r of results) applyPartial(r); } };
  }
}
