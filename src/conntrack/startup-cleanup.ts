// The start-up pass: list the DNATed UDP and SCTP flows of each family, find the stale ones
// (startup-stale.ts) and delete them through the retry queue, so that a failed delete is tried
// again after the next sync. Bounded: flows listed in all (maxEntries) and filters (maxFilters).
import type { IPFamily } from '../core/types';
import type { ConntrackListQuery, DnatFlowList } from '../native';
import type { FlowCleanupQueue, FlowDeleteOutcome } from './flow-cleanup-queue';
import {
  DEFAULT_STARTUP_MAX_ENTRIES, planStartupStaleFlows, type FlowProtocol, type ListedFlows, type StartupSnapshot, type StartupStaleReport,
} from './startup-stale';

export interface FlowLister {
  listDnatFlows(query: ConntrackListQuery): Promise<DnatFlowList>;
}

export interface StartupCleanupOptions {
  /** Families to look at (default both). */
  families?: readonly IPFamily[];
  /** Flows listed and examined at most, over all families and protocols (default 100000). */
  maxEntries?: number;
  /** Delete filters produced at most (default 10000). */
  maxFilters?: number;
}

export interface StartupListOutcome {
  family: 4 | 6;
  protocol: FlowProtocol;
  flows: number;
  /** More flows existed than were listed (the listing hit the remaining maxEntries). */
  truncated: boolean;
  /** Not listed at all: maxEntries was used up by the lists before. */
  notListed?: true;
  error?: Error;
}

export interface StartupFlowCleanup {
  lists: StartupListOutcome[];
  report: StartupStaleReport;
  /** The delete of the stale flows; absent when none were found. */
  delete?: FlowDeleteOutcome;
  durationSeconds: number;
}

/** conntrackList's own bound on one listing. */
const MAX_PER_LIST = 1 << 20;
const PROTOCOLS: readonly FlowProtocol[] = ['udp', 'sctp'];

async function listAll(lister: FlowLister, families: readonly (4 | 6)[], maxEntries: number): Promise<{ lists: ListedFlows[]; outcomes: StartupListOutcome[] }> {
  const lists: ListedFlows[] = [];
  const outcomes: StartupListOutcome[] = [];
  let left = maxEntries;
  for (const family of families) {
    for (const protocol of PROTOCOLS) {
      if (left <= 0) {
        outcomes.push({ family, protocol, flows: 0, truncated: true, notListed: true });
        continue;
      }
      try {
        const r = await lister.listDnatFlows({ family, protocol, max: Math.min(left, MAX_PER_LIST) });
        left -= r.flows.length;
        lists.push({ family, protocol, flows: r.flows, truncated: r.truncated });
        outcomes.push({ family, protocol, flows: r.flows.length, truncated: r.truncated });
      } catch (e) {
        outcomes.push({ family, protocol, flows: 0, truncated: false, error: e instanceof Error ? e : new Error(String(e)) });
      }
    }
  }
  return { lists, outcomes };
}

/**
 * Run once, after the first successful sync (so the rules for the current endpoints are in place
 * and a deleted flow is recreated through them). Never throws: listing errors are reported per
 * list, a failed delete in `delete` (and its filters stay queued).
 */
export async function cleanupStaleFlowsAtStartup(
  lister: FlowLister, queue: FlowCleanupQueue, snapshot: StartupSnapshot, opts: StartupCleanupOptions = {},
): Promise<StartupFlowCleanup> {
  const start = process.hrtime.bigint();
  const maxEntries = opts.maxEntries ?? DEFAULT_STARTUP_MAX_ENTRIES;
  const families = [...new Set((opts.families ?? ['IPv4', 'IPv6']).map((f): 4 | 6 => (f === 'IPv6' ? 6 : 4)))];
  const { lists, outcomes } = await listAll(lister, families, maxEntries);
  const plan = planStartupStaleFlows(snapshot, lists, { maxEntries, maxFilters: opts.maxFilters });
  const deleted = plan.filters.length > 0 ? await queue.delete(plan.filters) : undefined;
  const durationSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { lists: outcomes, report: plan.report, ...(deleted ? { delete: deleted } : {}), durationSeconds };
}
