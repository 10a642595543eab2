// At most one log line per interval for events an outsider can cause at will (bad requests, dropped
// connections, handler failures): a flood must not flood the log. The first event after a quiet
// interval is reported at once with its details; the ones that follow within the interval are counted
// by kind and reported together, with the first one's details, when the interval ends.

export interface LimitedLine {
  /** Events this line stands for. */
  count: number;
  /** How many of each kind. */
  kinds: Record<string, number>;
  /** The details of the first of them. */
  first: Record<string, unknown>;
}

export type Scheduler = (fn: () => void, ms: number) => { cancel(): void };

/** A timer that never keeps the process alive. */
export const unrefTimer: Scheduler = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return { cancel: () => clearTimeout(t) };
};

/** Distinct kinds kept per line; the rest are counted as "other" so the line stays small. */
const MAX_KINDS = 16;

interface Pending {
  count: number;
  kinds: Map<string, number>;
  first: Record<string, unknown>;
}

export class LogLimiter {
  private pending: Pending | undefined;
  private nextAt = -Infinity;
  private timer: { cancel(): void } | undefined;

  constructor(
    private readonly emit: (line: LimitedLine) => void,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
    private readonly schedule: Scheduler = unrefTimer,
  ) {
    if (!(intervalMs > 0)) throw new Error(`log interval: must be > 0 ms, got ${intervalMs}`);
  }

  note(kind: string, details: Record<string, unknown>): void {
    const t = this.now();
    if (!this.pending && t >= this.nextAt) {
      this.nextAt = t + this.intervalMs;
      this.emit({ count: 1, kinds: { [kind]: 1 }, first: details });
      return;
    }
    const p = (this.pending ??= { count: 0, kinds: new Map(), first: details });
    p.count++;
    const k = p.kinds.has(kind) || p.kinds.size < MAX_KINDS ? kind : 'other';
    p.kinds.set(k, (p.kinds.get(k) ?? 0) + 1);
    this.timer ??= this.schedule(() => this.flush(), Math.max(0, this.nextAt - t));
  }

  /** Reports what is pending now (at the interval's end, or when the server closes). */
  flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    this.nextAt = this.now() + this.intervalMs;
    this.emit({ count: p.count, kinds: Object.fromEntries(p.kinds), first: p.first });
  }
}
