// Runs one async function no more often than minInterval, at least every maxInterval, never
// twice at once, and again with exponential backoff after it fails. Same contract as upstream's
// BoundedFrequencyRunner (pkg/util/async), with the backoff added and the clock injected.
import type { Clock, TimerHandle } from '../base/clock';

/** Why a run happens; callers treat 'periodic' and 'retry' as full syncs. */
export type RunReason = 'periodic' | 'requested' | 'retry';

/** Resolve `false` or reject to report failure (both retry with backoff). */
export type RunFunction = (reason: RunReason) => Promise<void | boolean>;

export interface BoundedFrequencyRunnerOptions {
  clock: Clock;
  run: RunFunction;
  /** At most one run started per this many ms (bursts coalesce). 0 = no limit. */
  minIntervalMs: number;
  /** A run at least this often, even without requests. 0 = never periodic. */
  maxIntervalMs: number;
  /** First retry delay after a failure; doubled per consecutive failure. Default 1000. */
  retryInitialMs?: number;
  /** Upper bound of the retry delay. Default maxIntervalMs, or 60000 when that is 0. */
  retryMaxMs?: number;
  /** Told about each failure (the runner itself does no logging). */
  onError?: (error: unknown, consecutiveFailures: number, retryInMs: number) => void;
}

export class BoundedFrequencyRunner {
  private readonly clock: Clock;
  private readonly minInterval: number;
  private readonly maxInterval: number;
  private readonly retryInitial: number;
  private readonly retryMax: number;
  private started = false;
  private stopped = false;
  private requested = false;
  private busy = false;
  private inFlight: Promise<void> | undefined;
  private lastStart: number | undefined;
  private periodicBase = 0;
  private retryAt: number | undefined;
  private retryAtAfterRun: number | undefined;
  private failures = 0;
  private timer: TimerHandle | undefined;

  constructor(private readonly opts: BoundedFrequencyRunnerOptions) {
    this.clock = opts.clock;
    this.minInterval = nonNegative('minIntervalMs', opts.minIntervalMs);
    this.maxInterval = nonNegative('maxIntervalMs', opts.maxIntervalMs);
    if (this.maxInterval > 0 && this.maxInterval < this.minInterval) {
      throw new Error(`BoundedFrequencyRunner: maxIntervalMs (${this.maxInterval}) must be 0 or >= minIntervalMs (${this.minInterval})`);
    }
    this.retryInitial = positive('retryInitialMs', opts.retryInitialMs ?? 1000);
    this.retryMax = positive('retryMaxMs', opts.retryMaxMs ?? (this.maxInterval || 60000));
    if (this.retryMax < this.retryInitial) {
      throw new Error(`BoundedFrequencyRunner: retryMaxMs (${this.retryMax}) must be >= retryInitialMs (${this.retryInitial})`);
    }
  }

  /** Begin scheduling (requests made before this wait for it); the periodic clock starts now. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.periodicBase = this.clock.now();
    this.schedule();
  }

  /** Ask for a run: as soon as minInterval allows, coalesced with other requests. */
  run(): void {
    this.requested = true;
    this.schedule();
  }

  /** Ask for a 'retry' run after `ms` (sooner of this and any retry already planned). */
  retryAfter(ms: number): void {
    const at = this.clock.now() + nonNegative('retryAfter(ms)', ms);
    if (this.busy) this.retryAtAfterRun = earlier(this.retryAtAfterRun, at);
    else this.retryAt = earlier(this.retryAt, at);
    this.schedule();
  }

  /** Stop scheduling; resolves when a run in progress has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelTimer();
    await this.inFlight;
  }

  get running(): boolean {
    return this.busy;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  private schedule(): void {
    if (!this.started || this.stopped || this.busy) return;
    this.cancelTimer();
    const now = this.clock.now();
    const due = this.nextDue(now);
    if (due === undefined) return;
    this.timer = this.clock.setTimer(() => this.onTimer(), Math.max(0, due - now));
  }

  /** When the next run may start: a pending retry holds back requests and the periodic run. */
  // `now` is read once by the caller: a clock that moves between two reads must not make a due
  // request look "not yet due" forever.
  private nextDue(now: number): number | undefined {
    const earliest = this.lastStart === undefined ? -Infinity : this.lastStart + this.minInterval;
    if (this.retryAt !== undefined) return Math.max(this.retryAt, earliest);
    let due: number | undefined;
    if (this.requested) due = Math.max(earliest, now);
    if (this.maxInterval > 0) due = earlier(due, Math.max(this.periodicBase + this.maxInterval, earliest));
    return due;
  }

  private onTimer(): void {
    this.timer = undefined;
    if (this.stopped || this.busy) return;
    const now = this.clock.now();
    const due = this.nextDue(now);
    if (due === undefined) return;
    if (now < due) {
      this.schedule();
      return;
    }
    // busy is set before the run function is entered, so calls it makes synchronously see it.
    this.busy = true;
    this.inFlight = this.execute(this.reasonAt(now));
  }

  private reasonAt(now: number): RunReason {
    if (this.retryAt !== undefined) return 'retry';
    if (this.maxInterval > 0 && now >= this.periodicBase + this.maxInterval) return 'periodic';
    return 'requested';
  }

  private async execute(reason: RunReason): Promise<void> {
    this.lastStart = this.clock.now();
    this.periodicBase = this.lastStart;
    this.requested = false;
    this.retryAt = undefined;
    let failure: { error: unknown } | undefined;
    try {
      if ((await this.opts.run(reason)) === false) failure = { error: new Error(`run (${reason}) reported failure`) };
    } catch (error) {
      failure = { error };
    }
    this.finish(failure);
    this.busy = false;
    this.inFlight = undefined;
    this.schedule();
  }

  private finish(failure: { error: unknown } | undefined): void {
    const asked = this.retryAtAfterRun;
    this.retryAtAfterRun = undefined;
    if (!failure) {
      this.failures = 0;
      this.retryAt = asked;
      return;
    }
    this.failures++;
    const delay = Math.min(this.retryInitial * 2 ** Math.min(this.failures - 1, 52), this.retryMax);
    this.retryAt = earlier(asked, this.clock.now() + delay);
    try {
      this.opts.onError?.(failure.error, this.failures, delay);
    } catch {
      // A broken error hook must not stop the sync loop.
    }
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    this.clock.clearTimer(this.timer);
    this.timer = undefined;
  }
}

function earlier(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.min(a, b);
}

function nonNegative(name: string, v: number): number {
  if (!Number.isFinite(v) || v < 0) throw new Error(`BoundedFrequencyRunner: ${name} must be a finite number >= 0, got ${v}`);
  return v;
}

function positive(name: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0) throw new Error(`BoundedFrequencyRunner: ${name} must be a finite number > 0, got ${v}`);
  return v;
}
