// Exponential backoff with jitter, as client-go's reflector uses (800 ms doubling to 30 s, jitter 1.0).

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
  factor: number;
  /** Adds up to this fraction of the delay at random, so many proxies don't retry in lockstep. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 800, maxMs: 30_000, factor: 2, jitter: 1 };

/** Delay before retry number `attempt` (1-based). `random` is injectable for tests. */
export function backoffDelay(o: BackoffOptions, attempt: number, random: () => number = Math.random): number {
  const base = Math.min(o.maxMs, o.initialMs * Math.pow(o.factor, Math.max(0, attempt - 1)));
  return Math.min(o.maxMs * (1 + o.jitter), base * (1 + o.jitter * random()));
}
