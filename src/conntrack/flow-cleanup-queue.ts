// Conntrack deletes that failed are tried again on the next call instead of being forgotten: a
// failed delete (socket error, the kernel refusing a dump, some DELETEs answered with an error)
// otherwise leaves the stale flows to age out, and a DNS client keeps sending to a dead pod for
// minutes. The filters of a failed call (only the failing ones when the addon says which) are kept
// and merged into the next call. Kept filters are bounded: beyond maxPending the oldest are
// dropped and counted, so a kernel that refuses forever cannot grow memory.
import type { ConntrackDeleteResult, ConntrackFilter, ConntrackProtocol } from '../native';
import { filterKey } from './filter';
import { dropCovered } from './stale-flows';

export interface FlowDeleter {
  deleteFlows(filters: readonly ConntrackFilter[]): Promise<ConntrackDeleteResult>;
}

export interface FlowCleanupQueueOptions {
  /** Filters kept for retry at most (default 10000); beyond it the oldest are dropped. */
  maxPending?: number;
  /** Filters per delete call (default 8192; the addon takes up to 65536); more go in several calls. */
  maxFiltersPerCall?: number;
}

export interface FlowDeleteOutcome {
  /** Filters sent: the new ones plus `retried`, after merging duplicates. */
  filters: number;
  /** Of those, filters kept from earlier failed calls. */
  retried: number;
  /** Counts summed over the calls that resolved; absent when none did. */
  result?: ConntrackDeleteResult;
  /** The first call that rejected, if any. */
  error?: Error;
  /** Filters kept for the next call after this one. */
  pending: number;
  /** Filters this call dropped from the kept ones to stay within maxPending. */
  dropped: number;
}

export const DEFAULT_MAX_PENDING_FILTERS = 10_000;
export const DEFAULT_MAX_FILTERS_PER_CALL = 8192;

const EMPTY: ConntrackDeleteResult = { deleted: 0, notFound: 0, failed: 0, received: 0, matched: 0, dumps: 0, tableEntries: -1 };

function sum(a: ConntrackDeleteResult | undefined, b: ConntrackDeleteResult): ConntrackDeleteResult {
  const base = a ?? EMPTY;
  const out: ConntrackDeleteResult = {
    deleted: base.deleted + b.deleted, notFound: base.notFound + b.notFound, failed: base.failed + b.failed,
    received: base.received + b.received, matched: base.matched + b.matched, dumps: base.dumps + b.dumps,
    tableEntries: Math.max(base.tableEntries, b.tableEntries),
  };
  if (base.deletedByProtocol || b.deletedByProtocol) {
    const p = (r: ConntrackDeleteResult, k: ConntrackProtocol): number => r.deletedByProtocol?.[k] ?? 0;
    out.deletedByProtocol = { udp: p(base, 'udp') + p(b, 'udp'), tcp: p(base, 'tcp') + p(b, 'tcp'), sctp: p(base, 'sctp') + p(b, 'sctp') };
  }
  const errno = base.firstFailErrno ?? b.firstFailErrno;
  return errno === undefined ? out : { ...out, firstFailErrno: errno };
}

/** The filters of `sent` to keep after a call that resolved with `r`. */
function failedOf(sent: readonly ConntrackFilter[], r: ConntrackDeleteResult): ConntrackFilter[] {
  if (!(r.failed > 0)) return [];
  const idx = r.failedFilters;
  // Without a usable index list, every filter of the call may have failed.
  if (!Array.isArray(idx) || idx.length === 0 || !idx.every((i) => Number.isInteger(i) && i >= 0 && i < sent.length)) return [...sent];
  return [...new Set(idx)].map((i) => sent[i]);
}

export class FlowCleanupQueue {
  private readonly kept = new Map<string, ConntrackFilter>();  // insertion order = age
  private readonly maxPending: number;
  private readonly perCall: number;
  private tail: Promise<unknown> = Promise.resolve();
  private droppedSoFar = 0;

  constructor(private readonly deleter: FlowDeleter, opts: FlowCleanupQueueOptions = {}) {
    this.maxPending = Math.max(0, opts.maxPending ?? DEFAULT_MAX_PENDING_FILTERS);
    this.perCall = Math.max(1, opts.maxFiltersPerCall ?? DEFAULT_MAX_FILTERS_PER_CALL);
  }

  /** Filters kept from failed calls, waiting for the next one. */
  get pending(): number {
    return this.kept.size;
  }

  /** Filters dropped since construction because more than maxPending failed. */
  get droppedTotal(): number {
    return this.droppedSoFar;
  }

  /**
   * Deletes the flows matching `filters` and every kept filter; keeps the ones that fail. Never
   * throws. Calls run one after the other, in call order.
   */
  delete(filters: readonly ConntrackFilter[]): Promise<FlowDeleteOutcome> {
    const run = this.tail.then(() => this.run(filters));
    this.tail = run.catch(() => undefined);  // one broken call must not block the later ones
    return run;
  }

  private async run(filters: readonly ConntrackFilter[]): Promise<FlowDeleteOutcome> {
    const merged = new Map(this.kept);
    for (const f of filters) merged.set(filterKey(f), f);
    const batch = dropCovered([...merged.values()]);
    const retried = batch.filter((f) => this.kept.has(filterKey(f))).length;
    this.kept.clear();
    if (batch.length === 0) return { filters: 0, retried: 0, pending: 0, dropped: 0 };
    let result: ConntrackDeleteResult | undefined;
    let error: Error | undefined;
    const failed: ConntrackFilter[] = [];
    for (let i = 0; i < batch.length; i += this.perCall) {
      const chunk = batch.slice(i, i + this.perCall);
      try {
        const r = await this.deleter.deleteFlows(chunk);
        result = sum(result, r);
        failed.push(...failedOf(chunk, r));
      } catch (e) {
        error ??= e instanceof Error ? e : new Error(String(e));
        failed.push(...chunk);
      }
    }
    const dropped = this.keep(failed);
    return { filters: batch.length, retried, ...(result ? { result } : {}), ...(error ? { error } : {}), pending: this.kept.size, dropped };
  }

  /** Keeps `failed` (oldest first) within maxPending; returns how many were dropped. */
  private keep(failed: readonly ConntrackFilter[]): number {
    for (const f of failed) this.kept.set(filterKey(f), f);
    let dropped = 0;
    for (const key of this.kept.keys()) {
      if (this.kept.size <= this.maxPending) break;
      this.kept.delete(key);
      dropped++;
    }
    this.droppedSoFar += dropped;
    return dropped;
  }
}
