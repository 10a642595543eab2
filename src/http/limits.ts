// How much a client may take from one of our HTTP servers. Upstream's Go servers set none of these
// (no read or idle timeout, no connection cap), so a slow or idle client holds a goroutine and a
// descriptor for ever; ours cut it off. The endpoints answer small GETs, so the limits are tight.

export interface HttpLimits {
  /** Whole request line and headers must arrive within this (slowloris). */
  headersTimeoutMs: number;
  /** The whole request, body included, must arrive within this. Not less than headersTimeoutMs. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A connection with no traffic either way (e.g. a client that stops reading) is destroyed after this. */
  idleTimeoutMs: number;
  /** How often the header and request timeouts are checked (Node's default, 30 s, is too coarse). */
  timeoutCheckIntervalMs: number;
  /** Concurrent connections; more are refused (closed at once) until some go away. */
  maxConnections: number;
  /** Request line plus headers (Node's limit; Go's default is 1 MiB). Beyond it: 431. */
  maxHeaderBytes: number;
  /**
   * Header fields (Host included). Beyond it: 431. Node 22.23.2/24.18.1 and later refuse in the parser
   * (server.maxHeadersCount, CVE-2026-58044); Node 20 hands the handler a truncated list, which we refuse.
   */
  maxHeaderFields: number;
  /** Request bodies are read and dropped up to this; a longer one gets 413 and the connection is closed. */
  maxBodyBytes: number;
  /** At most one log line per interval for bad requests, and one for handler failures. */
  logIntervalMs: number;
}

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 30_000,
  timeoutCheckIntervalMs: 1_000,
  maxConnections: 128,
  maxHeaderBytes: 16 * 1024,
  maxHeaderFields: 1000,
  maxBodyBytes: 4 * 1024,
  logIntervalMs: 60_000,
});

/** Defaults overlaid with `overrides`, checked: a bad limit is a clear error at start-up, not a hole. */
export function resolveLimits(overrides: Partial<HttpLimits> = {}): HttpLimits {
  const l: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...overrides };
  for (const [k, v] of Object.entries(l)) {
    if (!Number.isInteger(v) || v <= 0) throw new Error(`HTTP limit ${k}: must be a positive integer, got ${v}`);
  }
  if (l.requestTimeoutMs < l.headersTimeoutMs) {
    throw new Error(`HTTP limit requestTimeoutMs (${l.requestTimeoutMs}) must not be less than headersTimeoutMs (${l.headersTimeoutMs})`);
  }
  return l;
}
