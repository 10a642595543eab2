// Freed native memory back to the kernel. A full sync's transaction buffer and the addon's netlink
// batch are large (tens to hundreds of MB at 44k Services) and short-lived; the C library keeps the
// freed pages for reuse, so without this the process's RSS stays at the full sync's peak.
import { loadAddon } from './addon-loader';

/** True when the C library returned memory to the kernel. */
export function releaseFreeMemory(): boolean {
  return loadAddon().releaseFreeMemory();
}
