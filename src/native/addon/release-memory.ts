// Freed native memory back to the kernel. A full sync's transaction buffer and the addon's netlink
// batch are large (tens to hundreds of MB at 44k Services) and short-lived; the C library keeps the
// freed pages for reuse, so without this the process's RSS stays at the full sync's peak.
import { loadAddon } from './addon-loader';

/** True when the C library returned memory to the kernel. */
export function releaseFreeMemory(): boolean {
  return loadAddon().releaseFreeMemory();
}

/**
 * A full garbage collection as V8 runs it under critical memory pressure: besides the garbage, it
 * gives the free space inside the heap's pages back to the kernel, which V8's gc() leaves resident
 * (44k Services: ~150 MiB after a full sync). Synchronous, about as long as gc(); it also drops V8's
 * compilation cache. The pressure level is set back at once.
 */
export function memoryPressureGc(): void {
  loadAddon().memoryPressureGc();
}
