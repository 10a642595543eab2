// How long an API request may keep us waiting, phase by phase. A connection that hangs (a dead peer
// without a FIN, a load balancer that lost its backend, a wedged API server) shows no error, only
// silence: each deadline turns one kind of silence into an error, so the Reflector retries instead of
// waiting forever. docs/watching.md explains each default.

export interface RequestDeadlines {
  /** From the start of a request (authentication, connect, TLS included) to its response headers. */
  headersMs: number;
  /** Longest silence while a list's body is arriving. */
  listIdleMs: number;
  /** Longest a list page may take from its headers to its last byte (bounds a trickle). */
  listBodyMs: number;
  /**
   * Longest silence on a watch once the server has sent a bookmark on it: from then on the API server
   * sends one every minute (its watch cache's bookmark frequency), so a longer silence is a dead stream.
   */
  watchBookmarkIdleMs: number;
  /**
   * Added to the watch's `timeoutSeconds`: the longest silence on a watch that has sent no bookmark.
   * The server ends every watch at its timeout, so silence well past it means the stream is gone.
   */
  watchTimeoutMarginMs: number;
}

export const DEFAULT_DEADLINES: RequestDeadlines = {
  headersMs: 30_000,
  listIdleMs: 30_000,
  listBodyMs: 120_000,
  watchBookmarkIdleMs: 90_000,
  watchTimeoutMarginMs: 30_000,
};

/** Fills in defaults and rejects values that are not positive finite numbers. */
export function resolveDeadlines(given: Partial<RequestDeadlines> = {}): RequestDeadlines {
  const d = { ...DEFAULT_DEADLINES, ...given };
  for (const [name, v] of Object.entries(d)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) throw new Error(`request deadline ${name}: must be a positive number of milliseconds, got ${JSON.stringify(v)}`);
  }
  return d;
}

/**
 * The silence a watch may show before it is given up. Before its first bookmark, a watch may be quiet
 * until the server ends it: the watch cache sends no bookmark until the resource's version has moved
 * past the one the watch started from, which for a quiet resource (ServiceCIDRs) takes until the next
 * change or etcd progress notification. After one, bookmarks come every minute.
 */
export function watchSilenceLimitMs(d: RequestDeadlines, timeoutSeconds: number, bookmarkSeen: boolean): number {
  return bookmarkSeen ? d.watchBookmarkIdleMs : timeoutSeconds * 1000 + d.watchTimeoutMarginMs;
}
