// The step a proxier runs right after a successful sync: delete the flows that sync made stale.
// It never throws: a failed cleanup must not fail the sync (upstream logs and carries on; the
// flows then age out on their own timeouts). The caller logs the error and feeds the metrics
// (kubeproxy_conntrack_reconciler_deleted_entries_total, ..._sync_duration_seconds).
import type { ChangeSet, ProxySnapshot } from '../core/types';
import type { ConntrackDeleteResult } from './conntrack-client';
import { staleFlowFilters } from './stale-flows';
import type { ConntrackFilter } from './filter';

export interface FlowDeleter {
  deleteFlows(filters: readonly ConntrackFilter[]): Promise<ConntrackDeleteResult>;
}

export interface StaleFlowCleanup {
  filters: number;
  durationSeconds: number;
  /** Absent when there was nothing to delete or the delete failed. */
  result?: ConntrackDeleteResult;
  error?: Error;
}

export async function cleanupStaleFlows(deleter: FlowDeleter, snapshot: Pick<ProxySnapshot, 'services'>, changes: ChangeSet): Promise<StaleFlowCleanup> {
  const filters = staleFlowFilters(snapshot, changes);
  if (filters.length === 0) return { filters: 0, durationSeconds: 0 };
  const start = process.hrtime.bigint();
  const elapsed = (): number => Number(process.hrtime.bigint() - start) / 1e9;
  try {
    const result = await deleter.deleteFlows(filters);
    return { filters: filters.length, durationSeconds: elapsed(), result };
  } catch (e) {
    return { filters: filters.length, durationSeconds: elapsed(), error: e instanceof Error ? e : new Error(String(e)) };
  }
}
