// One sync, as the runner calls it: take the pending changes, let the proxy mode program them, then
// record the outcome (metrics, health, health-check node ports) and delete the conntrack flows the
// sync made stale. A failed sync puts its changes back and tells the runner to retry.
import { systemClock, type Clock } from '../base/clock';
import type { Log } from '../base/log';
import type { ProxyState, TakenChanges } from '../core';
import { changesOfFamily } from '../core/family-changes';
import type { IPFamily, Proxier, SyncResult } from '../core/types';
import type { StaleFlowCleanup } from '../conntrack';
import type { ConntrackDeleteResult } from '../native';
import type { StartupCleanupOptions, StartupFlowCleanup } from '../conntrack/startup-cleanup';
import type { StartupSnapshot } from '../conntrack/startup-stale';
import type { ProxyHealth } from '../health/proxy-health';
import type { ServiceHealthServer } from '../health/service-health';
import { observeNetworkProgramming, observeSync, type ProxyMetrics } from '../metrics/proxy-metrics';
import type { RunReason } from '../runner/bounded-frequency-runner';
import { LocalTrafficTracker } from './local-traffic-tracker';
import type { GrowthWatch } from './memory-growth';
import type { ReleaseMoment } from './release-memory';

/** Upstream's FullSyncPeriod: partial syncs otherwise, even on the periodic tick. */
export const FULL_SYNC_PERIOD_MS = 60 * 60 * 1000;

export type SyncLog = Pick<Log, 'debug' | 'info' | 'warn' | 'error'>;

/** The conntrack steps after syncs (src/conntrack ConntrackCleanup). */
export interface ConntrackSteps {
  afterSync(snapshot: TakenChanges['snapshot'], changes: TakenChanges['changes']): Promise<StaleFlowCleanup>;
  atStartup(snapshot: StartupSnapshot, opts?: StartupCleanupOptions): Promise<StartupFlowCleanup>;
}

export interface SyncLoopDeps {
  state: ProxyState;
  proxier: Proxier;
  families: IPFamily[];
  metrics: ProxyMetrics;
  health: ProxyHealth;
  serviceHealth?: ServiceHealthServer;
  conntrack?: ConntrackSteps;
  log: SyncLog;
  /**
   * Called after each successful full sync, once its work is done, and before the first one (after
   * the initial list): forced GCs and the native memory's freed buffers back to the kernel
   * (release-memory.ts), so RSS does not stay at the peak nor the sync start on the list's garbage.
   */
  releaseMemory?: (when: 'before the first full sync' | 'after a full sync') => void;
  /** Releases memory after partial syncs once the process has grown (memory-growth.ts). */
  growth?: Pick<GrowthWatch, 'syncStarting' | 'syncFinished' | 'released'>;
  /** Reports refused address claims (claim-reports.ts); called with every take's ownership changes. */
  claims?: (changes: TakenChanges['claims'], current: number) => void;
  /** The wall clock (metric timestamps, the full-sync period); the system's by default. */
  clock?: Pick<Clock, 'wall'>;
}

export class SyncLoop {
  private lastFullAt: number | undefined;
  /** The start-up conntrack pass runs once, after the first successful sync. */
  private startupPassDone = false;
  private readonly local = new LocalTrafficTracker();
  private readonly clock: Pick<Clock, 'wall'>;
  /** Resolves after each finished sync, for tests and the demo. */
  private waiters: Array<(r: SyncResult) => void> = [];

  constructor(private readonly d: SyncLoopDeps) {
    this.clock = d.clock ?? systemClock;
  }

  private nowMs(): number {
    return this.clock.wall().getTime();
  }

  /**
   * Called for every change that reached the model. As upstream's Runner.sync(family): a Service or
   * EndpointSlice change queues the families with pending changes (`model`); a topology or Service
   * CIDR change queues every family (`all`).
   */
  queued(scope: 'model' | 'all' = 'model'): void {
    const nowSec = this.nowMs() / 1000;
    const families = scope === 'all' ? this.d.families : this.d.families.filter((f) => {
      const p = this.d.state.pendingOf(f);
      return p.services + p.endpoints > 0;
    });
    for (const f of families) {
      this.d.health.queuedUpdate(f);
      this.d.metrics.syncProxyRulesLastQueuedTimestamp.set({ ip_family: f }, nowSec);
    }
    this.setPendingGauges();
  }

  /** Syncing starts: as upstream's Runner.Run, every family's last_queued is stamped, pending changes or not. */
  started(): void {
    const nowSec = this.nowMs() / 1000;
    for (const f of this.d.families) this.d.metrics.syncProxyRulesLastQueuedTimestamp.set({ ip_family: f }, nowSec);
  }

  nextSync(): Promise<SyncResult> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private wantsFull(reason: RunReason, taken: TakenChanges): boolean {
    if (this.lastFullAt === undefined || reason === 'retry' || taken.topologyChanged) return true;
    return reason === 'periodic' && this.nowMs() - this.lastFullAt >= FULL_SYNC_PERIOD_MS;
  }

  /** The runner's run function: false asks for a retry with backoff. */
  readonly run = async (reason: RunReason): Promise<boolean> => {
    this.d.growth?.syncStarting();
    const taken = this.d.state.takeChanges();
    if (taken.claims.refused.length + taken.claims.ended.length > 0) this.d.claims?.(taken.claims, this.d.state.refusedClaims().length);
    const full = this.wantsFull(reason, taken);
    // The first full sync follows the initial list, whose garbage would otherwise stay under the sync's peak.
    if (full && this.lastFullAt === undefined) this.d.releaseMemory?.('before the first full sync');
    for (const f of this.d.families) {
      this.d.metrics.serviceChangesTotal.inc({ ip_family: f }, taken.serviceChanges);
      this.d.metrics.endpointChangesTotal.inc({ ip_family: f }, taken.endpointChangesByFamily[f]);
    }
    const started = process.hrtime.bigint();
    let result: SyncResult;
    try {
      result = await this.d.proxier.sync(taken.snapshot, taken.changes, full);
    } catch (e) {
      result = { full, ok: false, error: e instanceof Error ? e : new Error(String(e)) };
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const end = new Date(this.nowMs());
    for (const f of this.d.families) observeSync(this.d.metrics, f, result.full, seconds, result.ok, end);
    if (result.ok) await this.afterSuccess(taken, result, end);
    else this.d.state.requeue(taken);
    this.setPendingGauges();
    this.d.log.debug({ reason, full: result.full, ok: result.ok, seconds, changed: taken.changes.services.size }, 'sync finished');
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(result);
    // Last, so the GC it runs delays none of the sync's own work (health, metrics, conntrack).
    if (result.ok && result.full) {
      this.d.releaseMemory?.('after a full sync');
      this.d.growth?.released();
    } else if (result.ok) this.d.growth?.syncFinished();
    return result.ok;
  };

  private async afterSuccess(taken: TakenChanges, result: SyncResult, end: Date): Promise<void> {
    if (result.full) this.lastFullAt = end.getTime();
    for (const f of this.d.families) this.d.health.updated(f);
    for (const f of this.d.families) {
      const times = taken.endpointTriggers.filter((t) => t.family === f).map((t) => t.at);
      observeNetworkProgramming(this.d.metrics, f, times, end);
    }
    this.local.update(taken.snapshot, taken.changes, result.full);
    const view = this.local.view();
    for (const f of this.d.families) {
      this.d.metrics.noLocalEndpointsTotal.set({ ip_family: f, traffic_policy: 'internal' }, view.noLocal[f].internal);
      this.d.metrics.noLocalEndpointsTotal.set({ ip_family: f, traffic_policy: 'external' }, view.noLocal[f].external);
    }
    if (this.d.serviceHealth) {
      await this.d.serviceHealth.syncServices(view.healthCheckPorts);
      this.d.serviceHealth.syncEndpoints(view.localEndpoints);
    }
    if (this.d.conntrack) await this.cleanConntrack(taken);
  }

  private async cleanConntrack(taken: TakenChanges): Promise<void> {
    const ct = this.d.conntrack!;
    if (!this.startupPassDone) {
      this.startupPassDone = true;
      await this.startupPass(ct, taken);
    }
    // One pass per family, as upstream's per-family reconcilers, so each family's figures are its own.
    for (const family of this.d.families) {
      const changes = this.d.families.length === 1 ? taken.changes : changesOfFamily(taken.changes, family);
      this.reconcile(family, await ct.afterSync(taken.snapshot, changes));
    }
  }

  private reconcile(family: IPFamily, c: StaleFlowCleanup): void {
    if (c.filters === 0) return;
    this.d.metrics.conntrackReconcilerSyncDuration.observe({ ip_family: family }, c.durationSeconds);
    this.d.metrics.conntrackReconcilerDeletedEntriesTotal.inc({ ip_family: family }, c.result?.deleted ?? 0);
    this.countByProtocol(c.result);
    if (c.error || c.pending) {
      this.d.log.warn({ family, err: c.error?.message, filters: c.filters, pending: c.pending, dropped: c.dropped },
        'Some stale conntrack entries could not be deleted; retrying after the next sync');
      return;
    }
    this.d.log.debug({ family, filters: c.filters, retried: c.retried, deleted: c.result?.deleted }, 'Deleted stale conntrack entries');
  }

  private countByProtocol(r: ConntrackDeleteResult | undefined): void {
    // Labelled as a Service port's protocol is spelled (UDP, TCP, SCTP).
    for (const [protocol, n] of Object.entries(r?.deletedByProtocol ?? {})) {
      if (n > 0) this.d.metrics.conntrackStaleFlowsDeletedTotal.inc({ protocol: protocol.toUpperCase() }, n);
    }
  }

  /** Flows DNATed to endpoints that went away while no proxy ran (a crash, an upgrade). */
  private async startupPass(ct: ConntrackSteps, taken: TakenChanges): Promise<void> {
    for (const family of this.d.families) await this.startupPassOf(ct, taken, family);
  }

  private async startupPassOf(ct: ConntrackSteps, taken: TakenChanges, family: IPFamily): Promise<void> {
    const s = await ct.atStartup(taken.snapshot, { families: [family] });
    const deleted = s.delete?.result?.deleted ?? 0;
    this.d.metrics.conntrackReconcilerDeletedEntriesTotal.inc({ ip_family: family }, deleted);
    this.countByProtocol(s.delete?.result);
    const failed = s.lists.filter((l) => l.error).map((l) => `IPv${l.family}/${l.protocol}: ${l.error!.message}`);
    const fields = { family, ...s.report, deleted, seconds: Number(s.durationSeconds.toFixed(3)), ...(failed.length ? { listFailures: failed } : {}) };
    if (failed.length > 0 || s.delete?.error) this.d.log.warn({ ...fields, err: s.delete?.error?.message }, 'Start-up conntrack pass incomplete; remaining stale flows age out');
    else this.d.log.info(fields, 'Start-up conntrack pass: removed flows to endpoints that went away while no proxy ran');
  }

  private setPendingGauges(): void {
    for (const f of this.d.families) {
      const p = this.d.state.pendingOf(f);
      this.d.metrics.serviceChangesPending.set({ ip_family: f }, p.services);
      this.d.metrics.endpointChangesPending.set({ ip_family: f }, p.endpoints);
    }
  }
}
