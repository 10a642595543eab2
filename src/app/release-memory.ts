// Memory back to the kernel around full syncs. A full sync leaves garbage V8 frees only on a major GC
// (the old state, and the transaction's buffers: external memory, ~110 MB at 44k Services), in a heap
// V8 grew to fit the sync; V8's memory reducer shrinks it only after ~8 s of low allocation, and the C
// library keeps freed pages until asked. Full syncs are rare (start-up, hourly, retries, topology
// changes), so forced GCs around each are cheap where it matters: at 44k ~0.2 s before and ~0.8 s
// after one, instead of the process sitting hundreds of MB above its live size.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Log } from '../base/log';
import { memoryPressureGc, releaseFreeMemory, type Transaction } from '../native';

type Gc = () => void;
let exposedGc: Gc | undefined;

/**
 * V8's own gc function. Node exposes it only under --expose-gc; turning the flag on at run time and
 * reading `gc` from a new context is the same route jest's leak detector takes, so the image needs
 * no node flags.
 */
function gcFunction(): Gc {
  if (exposedGc) return exposedGc;
  if (typeof globalThis.gc === 'function') return (exposedGc = globalThis.gc as Gc);
  setFlagsFromString('--expose-gc');
  exposedGc = runInNewContext('gc') as Gc;
  return exposedGc;
}

/** gcMs: the GCs' time, and the trims' (small beside them). */
export interface MemoryRelease { gcMs: number; trimmed: boolean }

/**
 * A full GC, then the C library's free pages back to the kernel. The GC is the one V8 runs under
 * memory pressure (memoryPressureGc), which also gives the free space inside the heap's pages back
 * to the kernel: after V8's plain gc() that space (~150 MiB after a 44k full sync) stayed resident,
 * under the commit that follows and under the compaction. `compact`: then a second GC that moves
 * every live object to fresh pages (V8's own full GCs move objects off only the most fragmented
 * pages, which leaves a heap that grew during a sync hundreds of MB above its live size). Compaction
 * holds both copies of what it moves while it runs, so it follows the first GC and the trim, which
 * have already given back what they could.
 */
export function releaseMemory(compact: boolean): MemoryRelease {
  const gc = gcFunction();
  const started = process.hrtime.bigint();
  memoryPressureGc();
  let trimmed = releaseFreeMemory();
  if (compact) {
    setFlagsFromString('--compact-on-every-full-gc');
    try {
      gc();
    } finally {
      setFlagsFromString('--no-compact-on-every-full-gc');
    }
    trimmed = releaseFreeMemory() || trimmed;
  }
  return { gcMs: Number(process.hrtime.bigint() - started) / 1e6, trimmed };
}

/** Heap used after the last releaseMemoryLogged (gcWhileStaging's floor). */
let heapAfterRelease = 0;

/** The moments the sync loop and the commit path release memory at. */
export type ReleaseMoment = 'before the first full sync' | 'before copying a large sync\'s elements' | 'before a large commit' | 'after a full sync'
  | 'while staging a cold start'
  | 'idle, after memory grew' | 'busy, after memory grew';

/**
 * releaseMemory, logged at debug level with what it cost. Only after a sync does it compact: before
 * one, or in the middle of one, compaction's second copy would add to the peak.
 */
export function releaseMemoryLogged(log: Pick<Log, 'debug'>, when: ReleaseMoment): void {
  const before = process.memoryUsage();
  const r = when === 'while staging a cold start' ? plainGc() : releaseMemory(when === 'after a full sync');
  const after = process.memoryUsage();
  heapAfterRelease = after.heapUsed;
  const mib = (b: number): number => Math.round(b / 1048576);
  log.debug({
    when, gcMs: Math.round(r.gcMs), heapUsedMiB: [mib(before.heapUsed), mib(after.heapUsed)],
    heapTotalMiB: [mib(before.heapTotal), mib(after.heapTotal)], externalMiB: [mib(before.external), mib(after.external)],
  }, 'memory released');
}

/**
 * A transaction this large (a full sync of ~20k Services or more) is committed after a GC: the
 * sync's own garbage (compiled rules, the element batches now copied into the transaction) goes
 * before the addon adds its copy of the commit, the process's peak (44k: 858 -> 798 MiB, for
 * ~0.2-0.4 s more per full sync; docs/memory.md).
 */
export const GC_BEFORE_COMMIT_BYTES = 16 * 1024 * 1024;

/** `commit`, preceded by `release` when the transaction is at least `minBytes` long. */
export function gcBeforeLargeCommits<R>(commit: (tx: Transaction) => Promise<R>, release: () => void, minBytes = GC_BEFORE_COMMIT_BYTES): (tx: Transaction) => Promise<R> {
  return (tx) => {
    if (tx.serialize().length >= minBytes) release();
    return commit(tx);
  };
}

/**
 * The proxier's beforeElementsCopied: `release` when a full sync's encoded elements are at least
 * `minBytes`. Then the compile's garbage is behind the sync, and the transaction is about to grow by
 * the elements while their batches still exist (docs/memory.md).
 */
export function gcBeforeLargeElementCopies(release: () => void, minBytes = GC_BEFORE_COMMIT_BYTES): (bytes: number) => void {
  return (bytes) => {
    if (bytes >= minBytes) release();
  };
}

/**
 * V8's plain full GC, nothing given back to the kernel: for the middle of a compile, where
 * memoryPressureGc, which also drops V8's compiled code, made the rest of a 44k compile ~2 s slower.
 */
function plainGc(): MemoryRelease {
  const gc = gcFunction();
  const started = process.hrtime.bigint();
  gc();
  return { gcMs: Number(process.hrtime.bigint() - started) / 1e6, trimmed: false };
}

/**
 * The proxier's whileStaging: `release` when the heap has grown by `minBytes` since the last release
 * (releaseMemoryLogged's, at any moment). A staged cold start compiles while the kernel works
 * (docs/nftables-ruleset.md, "Syncing") and has no GC of ours between its start and its end: at 44k
 * Services its garbage and queued staging transactions took the process ~65 MiB above the peak of
 * one transaction (docs/memory.md, "How memory grows"). This bounds it, for a few GCs that overlap the kernel's work.
 */
export function gcWhileStaging(release: () => void, heapUsed: () => number = () => process.memoryUsage().heapUsed,
  minBytes = STAGING_GC_GROWTH_BYTES): () => void {
  return () => {
    if (heapUsed() < heapAfterRelease + minBytes) return;
    release();
    heapAfterRelease = heapUsed();
  };
}

/** Heap growth between two GCs while a cold start is staged (a 44k start's compile grows ~100 MiB). */
export const STAGING_GC_GROWTH_BYTES = 64 * 1024 * 1024;
