// Memory back to the kernel after partial syncs. The forced GCs run around full syncs only (start-up,
// hourly), but partial syncs grow V8's heap and the C library's arenas too: one churn phase of the
// scale bench (3,000 endpoint changes, 200 Service swaps) left RSS +47 MiB at 10k and +55 at 44k with
// the heap used nearly unchanged. This watches RSS after each sync and runs the same release once it
// has grown well past where the last release left it: when the loop goes idle, or after a bounded
// wait if it never does.

/** The policy's thresholds (constants below; tests pass their own). */
export interface GrowthPolicy {
  /** RSS growth over the lowest level since the last release that makes a release worth its pause. */
  minGrowthBytes: number;
  /** Releases at most this often, so their pauses are a bounded share of the time. */
  minIntervalMs: number;
  /** A loop that never goes idle still gets its release this long after one first became due. */
  maxDeferMs: number;
}

/**
 * 16 MiB: below it a release (a memory-pressure GC: ~0.1 s at 10k, ~0.3 s at 44k) returns too little
 * to matter; a churn phase grows RSS by ~50 MiB at both sizes. 30 s between releases keeps their
 * pauses under ~1% of the time at 44k. 60 s of deferral: a cluster busy enough to sync every second
 * for a minute still gets its memory back within a minute or two.
 */
export const GROWTH_POLICY: GrowthPolicy = { minGrowthBytes: 16 * 1024 * 1024, minIntervalMs: 30_000, maxDeferMs: 60_000 };

/** A sync counts as the last of a burst when no other starts this long after it ends (minSyncPeriod is 1 s by default). */
export const IDLE_AFTER_SYNC_MS = 2_000;

/**
 * What the watcher knows: the lowest level read since the last release (RSS read right after a
 * release can be well above where it settles: V8 unmaps the pages a compaction emptied as its
 * sweeper gets to them), when the release ran, when a release first became due.
 */
export interface GrowthState { baselineBytes: number; releasedAtMs: number; grownSinceMs?: number }

/** 'not grown': nothing is due (a deferral ends); 'too soon': due, but the last release was too recent. */
export type GrowthDecision = 'not grown' | 'too soon' | 'when idle' | 'now';

/** After a sync: release now (deferred long enough), once the loop is idle, or not at all. */
export function growthDecision(p: GrowthPolicy, s: GrowthState, bytes: number, nowMs: number): GrowthDecision {
  if (bytes - s.baselineBytes < p.minGrowthBytes) return 'not grown';
  if (nowMs - s.releasedAtMs < p.minIntervalMs) return 'too soon';
  if (s.grownSinceMs !== undefined && nowMs - s.grownSinceMs >= p.maxDeferMs) return 'now';
  return 'when idle';
}

/** Runs `fn` after `ms` unless cancelled (a timer that does not keep the process alive, by default). */
export type IdleTimer = (fn: () => void, ms: number) => () => void;

export interface GrowthWatchDeps {
  /** The process's memory now (RSS by default: it counts V8's heap and the C library's arenas). */
  readBytes: () => number;
  nowMs: () => number;
  /** The release itself (releaseMemoryLogged); `idle`: whether the loop was idle when it ran. */
  release: (idle: boolean) => void;
  whenIdle?: IdleTimer;
  policy?: GrowthPolicy;
}

const unrefTimer: IdleTimer = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return () => clearTimeout(t);
};

/** The sync loop tells it when a sync starts and ends; it decides and runs the releases. */
export class GrowthWatch {
  private state: GrowthState | undefined;
  private cancelIdle: (() => void) | undefined;
  private readonly policy: GrowthPolicy;
  private readonly whenIdle: IdleTimer;

  constructor(private readonly d: GrowthWatchDeps) {
    this.policy = d.policy ?? GROWTH_POLICY;
    this.whenIdle = d.whenIdle ?? unrefTimer;
  }

  /** A sync starts: the loop is not idle, so a release waiting for idleness waits for the next. */
  syncStarting(): void {
    this.cancelIdle?.();
    this.cancelIdle = undefined;
  }

  /** After a release that ran anyway (a full sync's): the level it left starts the new baseline. */
  released(): void {
    this.state = { baselineBytes: this.d.readBytes(), releasedAtMs: this.d.nowMs() };
  }

  /** After a successful partial sync (or before any release: then only the baseline is taken). */
  syncFinished(): void {
    if (!this.state) return this.released();
    const bytes = this.d.readBytes();
    const now = this.d.nowMs();
    this.state.baselineBytes = Math.min(this.state.baselineBytes, bytes);
    const decision = growthDecision(this.policy, this.state, bytes, now);
    if (decision === 'not grown') this.state.grownSinceMs = undefined;
    if (decision === 'not grown' || decision === 'too soon') return;
    this.state.grownSinceMs ??= now;
    if (decision === 'now') return this.run(false);
    this.cancelIdle?.();
    this.cancelIdle = this.whenIdle(() => {
      this.cancelIdle = undefined;
      this.run(true);
    }, IDLE_AFTER_SYNC_MS);
  }

  private run(idle: boolean): void {
    this.d.release(idle);
    this.released();
  }
}
