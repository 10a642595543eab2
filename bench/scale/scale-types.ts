// What one size of the scale bench produces: the process run (size-run.ts) and the in-process heap
// breakdown (breakdown.ts), as plain data written to the result file.
import type { ClusterMix } from './cluster-objects';
import type { MemSample } from './memory-sampler';
import type { HeapSummaryRow } from './heap-summary';
import type { KindsAtSize } from '../lib/partial-kinds';
import type { PhaseCpu } from './machine-cpu';

/** How long each phase lasts and how much it does (full and --quick presets in run-scale.ts). */
export interface Timing {
  /** Wait after the first sync (and after churn) before reading steady memory. */
  steadyWaitMs: number;
  samples: number;
  sampleGapMs: number;
  partialRepeats: number;
  churnMs: number;
  churnEndpointChanges: number;
  /** Each swap adds one Service (with its slice) and deletes another. */
  churnServiceSwaps: number;
  /** Churn phases, each followed by a steady reading (the first one's are `churn` and `afterChurn`). */
  churnRounds: number;
  startTimeoutMs: number;
  /** Issue 32's partial syncs by kind, last: syncs of each kind (0: none), one a second. */
  kindRepeats: number;
}

export interface MemoryReading {
  /** Medians of `samples` readings: VmRSS, and nodejs_heap_size_used/total_bytes, nodejs_external_memory_bytes. */
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  /** nodejs_heap_space_size_used_bytes per space, at the last reading. */
  heapSpacesUsedMiB: Record<string, number>;
  samples: number;
  /** VmHWM at the time: the peak RSS since the process started. */
  peakRssMiB: number;
}

export interface PartialResult {
  /** Each one-endpoint sync's own duration (the value observed into sync_proxy_rules_duration_seconds). */
  seconds: number[];
  p50Ms: number;
  p95Ms: number;
  /** How many of them were full syncs (expected 0). */
  full: number;
  /** From the change in the API server to the sync's log line (includes minSyncPeriod waits). */
  latencyMs: number[];
}

export interface ChurnResult {
  endpointChanges: number;
  servicesAdded: number;
  servicesDeleted: number;
  durationS: number;
  syncs: number;
  fullSyncs: number;
  syncP50Ms: number;
  syncP95Ms: number;
}

export interface SizeResult {
  n: number;
  seed: number;
  mix: ClusterMix;
  /** JSON of the initial Services and EndpointSlices as the API server stores them. */
  objectMB: number;
  /** Bytes the API server wrote to the proxy until its first sync (lists, HTTP framing included). */
  servedMB: number;
  startToSyncedS: number;
  firstSyncS: number;
  /** CPU seconds from spawn to the first sync: the proxy's, and the test API server's (sharing the CPUs). */
  proxyCpuToSyncS: number;
  apiServerCpuToSyncS: number;
  partial: PartialResult;
  steady: MemoryReading;
  churn: ChurnResult;
  afterChurn: MemoryReading;
  /** The steady readings after the second and later churn phases (--churn-rounds). */
  laterRounds: MemoryReading[];
  /** Issue 32's partial syncs by kind (phase e), after everything else. */
  kinds?: KindsAtSize;
  /** Who had the CPUs during the kinds phase (a real-process timing is only as good as the machine was quiet). */
  kindsCpu?: PhaseCpu;
  /** The proxy's forced GCs around full syncs (its "memory released" lines): when, and how long each took. */
  releases: { when: string; gcMs: number }[];
  /** Syncs the log showed vs sync_proxy_rules_duration_seconds_count at the end. */
  syncLines: number;
  metricSyncCount?: number;
  /** RSS once a second from spawn to the end. */
  timeline: MemSample[];
  loadavgEnd: number[];
  problems: string[];
  /** The proxy's warning log lines (not failures). */
  proxyWarnings: string[];
  /** --nft-monitor: what the `nft monitor` running through the size printed and used. */
  nftMonitor?: NftMonitorStats;
}

export interface NftMonitorStats {
  lines: number;
  /** Its "# ERROR: We lost some netlink events!" lines: each a receive buffer overflow, events lost. */
  lostReports: number;
  megabytes: number;
  /** Its CPU seconds (user + system), last read while it ran. */
  cpuS: number;
  /** It had ended by itself before the size was done (a netlink error: its stderr says). */
  exitedEarly: boolean;
  stderr: string;
}

export interface HeapReading {
  step: string;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  arrayBuffersMiB: number;
  rssMiB: number;
}

export interface BreakdownResult {
  n: number;
  steps: HeapReading[];
  /** v8.getHeapStatistics() at the end, in bytes. */
  heapStatistics: Record<string, number>;
  /**
   * Self size by constructor from heap snapshots taken after the API server was filled, after the
   * watcher listed, and after the first sync: what the caches added, and what the model and sync parts added.
   */
  snapshot: { caches: HeapSummaryRow[]; proxyParts: HeapSummaryRow[]; mib: number[]; skipped?: string };
  problems: string[];
}
