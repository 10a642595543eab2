// What the memory bench reads: live heap after a full collection, and the RSS high-water mark
// (VmHWM), which the bench resets before each phase so a phase's peak is its own.
import { readFileSync, writeFileSync } from 'node:fs';

const MiB = (b: number): number => b / 1024 / 1024;

export interface HeapReading {
  /** V8 heap in use after a full GC (live objects only), MiB. */
  heapUsed: number;
  /** Memory of ArrayBuffers and Buffers (outside the V8 heap), MiB. */
  arrayBuffers: number;
  rss: number;
}

export function gcAvailable(): boolean {
  return typeof (globalThis as { gc?: unknown }).gc === 'function';
}

/** Full collections until the heap stops shrinking (weak references and finalizers take two). */
export function collect(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the memory bench needs node --expose-gc');
  gc();
  gc();
}

export function reading(afterGc = true): HeapReading {
  if (afterGc) collect();
  const m = process.memoryUsage();
  return { heapUsed: MiB(m.heapUsed), arrayBuffers: MiB(m.arrayBuffers), rss: MiB(m.rss) };
}

function statusKiB(field: string): number {
  const line = readFileSync('/proc/self/status', 'utf8').split('\n').find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`/proc/self/status has no ${field}`);
  return Number(line.split(/\s+/)[1]);
}

/** The process's RSS high-water mark, MiB. */
export function rssPeak(): number {
  return statusKiB('VmHWM') / 1024;
}

/** Resets VmHWM to the current RSS (Linux >= 4.0: `echo 5 > /proc/self/clear_refs`). */
export function resetRssPeak(): void {
  writeFileSync('/proc/self/clear_refs', '5');
}
