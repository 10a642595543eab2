// Tamper detection, wired: the addon's nftables monitor reports commits of other processes that
// touched our tables; the proxy mode says which of them change its rules; a repair limiter
// decides when the full sync that undoes them may run. Changes are logged (who, what) at most once
// a second, with a count of those not logged.
import type { Log } from '../base/log';
import { NftMonitor, type Family, type MonitorChange, type MonitorEvent, type Transaction } from '../native';
import type { Clock } from '../base/clock';

/** Why a repair runs: another process changed our rules, or the monitor may have missed that. */
export type GuardReason = 'foreign_change' | 'events_lost';

/** What the proxy mode tells the guard about its tables. */
export interface GuardedTables {
  /** The tables whose changes the monitor reports. */
  interest: { family: Family; table: string }[];
  /** The changes that alter the mode's rules (empty: nothing to repair). */
  tampering(changes: readonly MonitorChange[]): MonitorChange[];
  /** The changes as one line for the log. */
  describe(changes: readonly MonitorChange[]): string;
}
import { RepairLimiter } from '../runner/repair-limiter';

export type GuardLog = Pick<Log, 'info' | 'warn' | 'error'>;

export interface RulesetGuardOptions {
  netns?: string;
  tables: GuardedTables;
  /** Port ids of our own commit sockets (their commits are not tampering). */
  ownPortIds: () => number[];
  /** Make the next sync a repair for these reasons, and ask for it to run. */
  repair: (reasons: GuardReason[]) => void;
  /** Counted once per foreign commit that changed our rules. */
  foreignChange?: () => void;
  clock: Clock;
  log: GuardLog;
  /** Wait before reopening a monitor that failed. Default 10 s. */
  reopenMs?: number;
  /** For tests: the monitor to open (default NftMonitor.open). */
  openMonitor?: typeof NftMonitor.open;
}

const LOG_INTERVAL_MS = 1000;
/**
 * Commits larger than this are made with the monitor off the event group: while anyone listens, the
 * kernel allocates a notification per changed object, which made a 50,000-Service full sync about
 * four times slower (docs/benchmarks.md). A partial sync is a few hundred bytes.
 */
export const QUIET_COMMIT_BYTES = 64 * 1024;

/** The part of Nft a quiet committer needs. */
export interface GenerationNft {
  commit(tx: Transaction): Promise<unknown>;
  generation(): Promise<number>;
}

export class RulesetGuard {
  private monitor?: NftMonitor;
  private readonly limiter: RepairLimiter;
  private readonly pending = new Set<GuardReason>();
  private reopenTimer: unknown;
  private stopped = false;
  private lastLogAt = -Infinity;
  private unlogged = 0;

  constructor(private readonly o: RulesetGuardOptions) {
    this.limiter = new RepairLimiter({ clock: o.clock, repair: () => this.runRepair() });
  }

  start(): void {
    if (this.stopped || this.monitor) return;
    const open = this.o.openMonitor ?? NftMonitor.open;
    try {
      this.monitor = open({ netns: this.o.netns, interest: this.o.tables.interest, ownPortIds: this.o.ownPortIds() }, (e) => this.onEvent(e));
    } catch (e) {
      this.o.log.error({ err: String(e) }, 'Cannot watch for changes to our nftables rules; retrying (changes by others are repaired by the periodic full sync meanwhile)');
      this.reopenLater();
    }
  }

  stop(): void {
    this.stopped = true;
    this.limiter.stop();
    if (this.reopenTimer !== undefined) this.o.clock.clearTimer(this.reopenTimer);
    this.monitor?.close();
    this.monitor = undefined;
  }

  /**
   * Commits through `nft`, large ones with the monitor off the event group. The ruleset generation
   * before and after tells whether another process committed while we were not listening; if so,
   * its changes are unknown and a repair is requested, as for lost events.
   */
  async commitQuietly(nft: GenerationNft, tx: Transaction): Promise<unknown> {
    const monitor = this.monitor;
    if (!monitor || tx.serialize().length <= QUIET_COMMIT_BYTES) return nft.commit(tx);
    let before: number;
    try {
      before = await nft.generation();
    } catch {
      return nft.commit(tx);
    }
    let applied: boolean | undefined;
    monitor.setSubscribed(false);
    try {
      const stats = await nft.commit(tx);
      applied = true;
      return stats;
    } catch (e) {
      // Refused by the kernel (an op named): nothing applied. Otherwise the outcome is unknown.
      applied = typeof (e as { opIndex?: unknown }).opIndex === 'number' && (e as { opIndex: number }).opIndex >= 0 ? false : undefined;
      throw e;
    } finally {
      await this.afterQuiet(monitor, nft, before, applied);
    }
  }

  private async afterQuiet(monitor: NftMonitor, nft: GenerationNft, before: number, applied: boolean | undefined): Promise<void> {
    try {
      monitor.setSubscribed(true);
    } catch (e) {
      this.onEvent({ type: 'error', error: { errno: 0, code: 'EUNKNOWN', message: String(e) } });
      return;
    }
    let after: number;
    try {
      after = await nft.generation();
    } catch {
      this.request('events_lost');
      return;
    }
    const commits = (after - before) >>> 0;
    const ours = applied === true ? 1 : applied === false ? 0 : Math.min(1, commits);
    if (commits - ours <= 0) return;
    this.o.log.info({ commits: commits - ours }, 'Other processes committed nftables changes while a large commit of ours was not listening; repairing our rules in case they were touched');
    this.request('events_lost');
  }

  /** Milliseconds before a repair requested now may run (0 = at once). */
  repairWaitMs(): number {
    return this.limiter.currentWaitMs();
  }

  private onEvent(e: MonitorEvent): void {
    if (this.stopped) return;
    if (e.type === 'overflow') {
      this.o.log.warn({}, 'The nftables change monitor lost events; repairing our rules in case they were changed');
      this.request('events_lost');
    } else if (e.type === 'error') {
      this.o.log.error({ err: e.error.message, code: e.error.code }, 'The nftables change monitor failed; reopening it, and repairing our rules in case they were changed meanwhile');
      this.monitor = undefined;
      this.reopenLater();
      this.request('events_lost');
    } else {
      if (this.o.ownPortIds().includes(e.portId)) return;
      const changes = this.o.tables.tampering(e.changes);
      if (changes.length === 0) return;
      this.o.foreignChange?.();
      this.logChange(e.pid, e.comm, changes);
      this.request('foreign_change');
    }
  }

  private logChange(pid: number | undefined, comm: string | undefined, changes: MonitorChange[]): void {
    const now = this.o.clock.now();
    if (now - this.lastLogAt < LOG_INTERVAL_MS) {
      this.unlogged++;
      return;
    }
    this.lastLogAt = now;
    const notLogged = this.unlogged;
    this.unlogged = 0;
    this.o.log.warn({ pid, comm, changes: this.o.tables.describe(changes), repairInMs: this.limiter.currentWaitMs(), ...(notLogged ? { notLogged } : {}) },
      'Another process changed our nftables rules; repairing them');
  }

  private request(reason: GuardReason): void {
    this.pending.add(reason);
    this.limiter.request();
  }

  private runRepair(): void {
    const reasons = [...this.pending];
    this.pending.clear();
    if (reasons.length > 0) this.o.repair(reasons);
  }

  private reopenLater(): void {
    if (this.stopped || this.reopenTimer !== undefined) return;
    this.reopenTimer = this.o.clock.setTimer(() => {
      this.reopenTimer = undefined;
      this.start();
    }, this.o.reopenMs ?? 10_000);
  }
}
