// Why a health endpoint fails, as short sentences for people (the `reasons` of the JSON body). Pure:
// every function takes the time it judges at.
import type { V1Node } from '@kubernetes/client-node';

export const TO_BE_DELETED_TAINT = 'ToBeDeletedByClusterAutoscaler';

/** A resource the API watchers hold no current view of, since `since` (wired to the watchers' state). */
export interface StaleResource {
  resource: string;
  since: Date;
}

/** "95s", or "1.5s" under ten seconds; rounded down. */
export function formatDuration(ms: number): string {
  if (ms >= 10_000) return `${Math.floor(ms / 1000)}s`;
  return `${Math.floor(Math.max(0, ms) / 100) / 10}s`;
}

/** Why this Node should get no traffic, or undefined when it may (upstream's nodeEligible). */
export function nodeIneligibility(node: V1Node | undefined): string | undefined {
  if (!node) return 'the Node object is gone';
  if (node.metadata?.deletionTimestamp) return 'the Node is being deleted';
  // A null entry passes the API objects' shape check: it must not throw (the Node event would be lost).
  if ((node.spec?.taints ?? []).some((t) => t?.key === TO_BE_DELETED_TAINT)) return `the Node is tainted ${TO_BE_DELETED_TAINT}`;
  return undefined;
}

/** Unhealthy once the first sync has not succeeded within the timeout of start-up. */
export function startupReason(startedAt: Date, lastUpdated: Date | undefined, now: Date, timeoutMs: number): string | undefined {
  if (lastUpdated) return undefined;
  const waited = now.getTime() - startedAt.getTime();
  if (waited < timeoutMs) return undefined;
  return `no sync has succeeded since start ${formatDuration(waited)} ago (limit ${formatDuration(timeoutMs)})`;
}

/** One reason per resource stale for at least the timeout; an entry with an unusable time is an error. */
export function staleReasons(stale: readonly StaleResource[], now: Date, timeoutMs: number): string[] {
  const out: string[] = [];
  for (const s of stale) {
    const since = s.since instanceof Date ? s.since.getTime() : NaN;
    if (Number.isNaN(since)) throw new Error(`staleResources: ${JSON.stringify(s.resource)} has no valid "since" time`);
    const waited = now.getTime() - since;
    if (waited >= timeoutMs) out.push(`${s.resource}: no current view from the API server for ${formatDuration(waited)} (limit ${formatDuration(timeoutMs)})`);
  }
  return out;
}

export function queuedUpdateReason(family: string, pendingSince: Date, now: Date, timeoutMs: number): string {
  return `${family}: changes queued ${formatDuration(now.getTime() - pendingSince.getTime())} ago are not applied yet (limit ${formatDuration(timeoutMs)})`;
}
