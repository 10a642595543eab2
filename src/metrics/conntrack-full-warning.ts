// The warning that the node's conntrack table is nearly full (new connections are dropped once it
// is): logged when entries exceed a share of the limit, at most once per interval so a table that
// stays full does not flood the log. Pure apart from the log and the injected clock.
import type { Log } from '../base/log';

export interface ConntrackFullWarningOptions {
  log: Log;
  /** Milliseconds since the epoch; Date.now by default (tests pass a fake). */
  now?: () => number;
  /** Warn when entries > ratio x max. Default 0.8. */
  ratio?: number;
  /** At most one warning per this many milliseconds. Default 10 minutes. */
  intervalMs?: number;
}

export const CONNTRACK_FULL_RATIO = 0.8;
export const CONNTRACK_FULL_WARN_INTERVAL_MS = 10 * 60 * 1000;

export class ConntrackFullWarning {
  private readonly log: Log;
  private readonly now: () => number;
  private readonly ratio: number;
  private readonly intervalMs: number;
  private lastWarnedAt: number | undefined;
  private suppressed = 0;

  constructor(o: ConntrackFullWarningOptions) {
    this.log = o.log;
    this.now = o.now ?? Date.now;
    this.ratio = o.ratio ?? CONNTRACK_FULL_RATIO;
    this.intervalMs = o.intervalMs ?? CONNTRACK_FULL_WARN_INTERVAL_MS;
  }

  /** Looks at one reading; returns true when it logged the warning. */
  check(entries: number, maxEntries: number): boolean {
    if (!(maxEntries > 0) || entries <= this.ratio * maxEntries) return false;
    const t = this.now();
    if (this.lastWarnedAt !== undefined && t - this.lastWarnedAt < this.intervalMs) {
      this.suppressed++;
      return false;
    }
    this.log.warn({
      entries, maxEntries, percentFull: Math.round((entries / maxEntries) * 1000) / 10,
      thresholdPercent: this.ratio * 100, readingsOverSinceLastWarning: this.suppressed,
    }, 'The conntrack table is nearly full: when it is full the kernel drops new connections (raise nf_conntrack_max, conntrack.maxPerCore, or find what opens so many flows)');
    this.lastWarnedAt = t;
    this.suppressed = 0;
    return true;
  }
}
