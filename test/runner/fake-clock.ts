// A Clock whose time moves only when a test says so. Timers fire in time order; after each one
// the microtask queue is drained so async work it started can settle before time moves again.
import type { Clock, TimerHandle } from '../../src/base/clock';

const FAKE_EPOCH = Date.parse('2026-01-01T00:00:00Z');

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

export class FakeClock implements Clock {
  private time = 0;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();

  now(): number {
    return this.time;
  }

  /** The wall clock moves with now(), from a fixed instant. */
  wall(): Date {
    return new Date(FAKE_EPOCH + this.time);
  }

  setTimer(fn: () => void, ms: number): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, { at: this.time + Math.max(0, ms), seq: id, fn });
    return id;
  }

  clearTimer(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  /** Number of timers waiting to fire. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Move time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const target = this.time + ms;
    await settle();
    for (;;) {
      const next = this.nextTimer();
      if (!next || next.at > target) break;
      this.timers.delete(next.seq);
      this.time = next.at;
      next.fn();
      await settle();
    }
    this.time = target;
    await settle();
  }

  private nextTimer(): Timer | undefined {
    let best: Timer | undefined;
    for (const t of this.timers.values()) {
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

/** Let pending promise callbacks run (a macrotask turn drains all microtasks). */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
