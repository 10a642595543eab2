// The conntrack steps around syncs: after each successful sync, delete the flows that sync made
// stale (and retry the deletes that failed before); once at start-up, delete the flows left stale
// while the proxy was down. None of them throws: a failed cleanup must not fail the sync (the
// caller logs it and feeds the metrics kubeproxy_conntrack_reconciler_deleted_entries_total and
// ..._sync_duration_seconds).
import type { ChangeSet, ProxySnapshot } from '../core/types';
import type { ConntrackDeleteResult } from '../native';
import { FlowCleanupQueue, type FlowCleanupQueueOptions, type FlowDeleter } from './flow-cleanup-queue';
import { cleanupStaleFlowsAtStartup, type FlowLister, type StartupCleanupOptions, type StartupFlowCleanup } from './startup-cleanup';
import type { StartupSnapshot } from './startup-stale';
import { staleFlowFilters } from './stale-flows';

export type { FlowDeleter } from './flow-cleanup-queue';

export interface StaleFlowCleanup {
  /** Filters sent (with ConntrackCleanup: this sync's plus the retried ones). */
  filters: number;
  durationSeconds: number;
  /** Absent when there was nothing to delete or every delete call failed. */
  result?: ConntrackDeleteResult;
  error?: Error;
  /** ConntrackCleanup only: filters of earlier failed deletes sent again. */
  retried?: number;
  /** ConntrackCleanup only: filters kept for the next sync because their delete failed now. */
  pending?: number;
  /** ConntrackCleanup only: kept filters dropped now to stay within maxPending. */
  dropped?: number;
}

function elapsedSince(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** One delete of this sync's stale flows, nothing kept on failure (see ConntrackCleanup for retries). */
export async function cleanupStaleFlows(deleter: FlowDeleter, snapshot: Pick<ProxySnapshot, 'services'>, changes: ChangeSet): Promise<StaleFlowCleanup> {
  const filters = staleFlowFilters(snapshot, changes);
  if (filters.length === 0) return { filters: 0, durationSeconds: 0 };
  const start = process.hrtime.bigint();
  try {
    const result = await deleter.deleteFlows(filters);
    return { filters: filters.length, durationSeconds: elapsedSince(start), result };
  } catch (e) {
    return { filters: filters.length, durationSeconds: elapsedSince(start), error: e instanceof Error ? e : new Error(String(e)) };
  }
}

/** The conntrack cleanup a sync loop owns: one retry queue shared by the per-sync and start-up passes. */
export class ConntrackCleanup {
  readonly queue: FlowCleanupQueue;

  constructor(private readonly client: FlowDeleter & FlowLister, opts: FlowCleanupQueueOptions = {}) {
    this.queue = new FlowCleanupQueue(client, opts);
  }

  /** After each successful sync: its stale flows plus the filters whose delete failed before. */
  async afterSync(snapshot: Pick<ProxySnapshot, 'services'>, changes: ChangeSet): Promise<StaleFlowCleanup> {
    const filters = staleFlowFilters(snapshot, changes);
    if (filters.length === 0 && this.queue.pending === 0) return { filters: 0, durationSeconds: 0, retried: 0, pending: 0, dropped: 0 };
    const start = process.hrtime.bigint();
    const out = await this.queue.delete(filters);
    return {
      filters: out.filters, durationSeconds: elapsedSince(start), ...(out.result ? { result: out.result } : {}), ...(out.error ? { error: out.error } : {}),
      retried: out.retried, pending: out.pending, dropped: out.dropped,
    };
  }

  /** Once, after the first successful sync: flows DNATed to endpoints that went away while we were down. */
  atStartup(snapshot: StartupSnapshot, opts?: StartupCleanupOptions): Promise<StartupFlowCleanup> {
    return cleanupStaleFlowsAtStartup(this.client, this.queue, snapshot, opts);
  }
}
