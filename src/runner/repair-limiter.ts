// Decides when a repair (a full sync after someone else changed our rules) may run. The first
// repair runs at once; while another process keeps changing our rules, each further repair waits
// twice as long as the one before (up to maxGapMs), so a fight costs a bounded share of CPU. A
// quiet spell resets the wait. One repair answers every change seen before it starts.
import type { Clock, TimerHandle } from '../base/clock';

export interface RepairLimiterOptions {
  clock: Clock;
  /** Called when a repair should run now. */
  repair: () => void;
  /** The wait after the first repair of a fight. Default 1000. */
  firstGapMs?: number;
  /** The longest wait between repairs. Default 60000. */
  maxGapMs?: number;
  /** This long without a request ends a fight: the next repair runs at once. Default 30000. */
  quietMs?: number;
}

export class RepairLimiter {
  private readonly firstGap: number;
  private readonly maxGap: number;
  private readonly quiet: number;
  private gap = 0;
  private lastRepair: number | undefined;
  private lastRequest: number | undefined;
  private timer: TimerHandle | undefined;
  private stopped = false;

  constructor(private readonly o: RepairLimiterOptions) {
    this.firstGap = o.firstGapMs ?? 1000;
    this.maxGap = o.maxGapMs ?? 60_000;
    this.quiet = o.quietMs ?? 30_000;
    if (!(this.firstGap > 0) || !(this.maxGap >= this.firstGap) || !(this.quiet > 0)) {
      throw new RangeError(`RepairLimiter: need 0 < firstGapMs <= maxGapMs and quietMs > 0 (got ${this.firstGap}, ${this.maxGap}, ${this.quiet})`);
    }
  }

  /** Something changed our rules: repair now, or when the wait allows. */
  request(): void {
    if (this.stopped) return;
    const now = this.o.clock.now();
    if (this.lastRequest !== undefined && now - this.lastRequest >= this.quiet) this.gap = 0;
    this.lastRequest = now;
    if (this.timer !== undefined) return;
    const due = this.lastRepair === undefined ? now : this.lastRepair + this.gap;
    if (due <= now) this.fire();
    else this.timer = this.o.clock.setTimer(() => this.fire(), due - now);
  }

  /** Milliseconds a request made now would wait (0: it would run at once). */
  currentWaitMs(): number {
    const now = this.o.clock.now();
    if (this.lastRepair === undefined || (this.lastRequest !== undefined && now - this.lastRequest >= this.quiet)) return 0;
    return Math.max(0, this.lastRepair + this.gap - now);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.o.clock.clearTimer(this.timer);
    this.timer = undefined;
  }

  private fire(): void {
    this.timer = undefined;
    this.lastRepair = this.o.clock.now();
    this.gap = this.gap === 0 ? this.firstGap : Math.min(this.maxGap, this.gap * 2);
    this.o.repair();
  }
}
