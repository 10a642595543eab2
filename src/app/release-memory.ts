// Memory back to the kernel after a full sync. A full sync leaves garbage V8 frees only on a major GC
// (the old state, and the transaction's buffers: external memory, ~110 MB at 44k Services), in a heap
// V8 grew to fit the sync; V8's memory reducer shrinks it only after ~8 s of low allocation, and the C
// library keeps freed pages until asked. Full syncs are rare (start-up, hourly, retries, topology
// changes), so one forced compacting GC each is cheap where it matters: at 44k it takes a few hundred
// ms, once, instead of the process sitting hundreds of MB above its live size.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Log } from '../base/log';
import { releaseFreeMemory } from '../native';

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

export interface MemoryRelease { gcMs: number; trimmed: boolean }

/**
 * A full GC that compacts every page (V8's own full GCs move objects off only the most fragmented
 * pages, which leaves a heap that grew during a sync hundreds of MB above its live size), then the C
 * library's free pages back to the kernel.
 */
export function releaseMemory(): MemoryRelease {
  const gc = gcFunction();
  const started = process.hrtime.bigint();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    gc();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
  const gcMs = Number(process.hrtime.bigint() - started) / 1e6;
  return { gcMs, trimmed: releaseFreeMemory() };
}

/** releaseMemory, logged at debug level with what it cost; `when` says which sync it follows or precedes. */
export function releaseMemoryLogged(log: Pick<Log, 'debug'>, when: string): void {
  const before = process.memoryUsage();
  const r = releaseMemory();
  const after = process.memoryUsage();
  const mib = (b: number): number => Math.round(b / 1048576);
  log.debug({
    when, gcMs: Math.round(r.gcMs), heapUsedMiB: [mib(before.heapUsed), mib(after.heapUsed)],
    heapTotalMiB: [mib(before.heapTotal), mib(after.heapTotal)], externalMiB: [mib(before.external), mib(after.external)],
  }, 'memory released');
}
