// The addon's conntrack function, loaded through src/native/addon-loader (the addon's
// AddonModule type does not declare it, so it is checked and typed here).
import { loadAddon } from '../native/addon-loader';
import type { ConntrackFilter } from './filter';

export interface NativeConntrackResult {
  /** DELETEs the kernel acknowledged. */
  deleted: number;
  /** DELETEs answered ENOENT: the entry expired or was replaced between the dump and the delete. */
  notFound: number;
  /** DELETEs answered with another error (firstFailErrno says which). */
  failed: number;
  /** Entries the kernel's filtered dumps returned (duplicates across filters included). */
  received: number;
  /** Distinct entries of those that match a filter, i.e. DELETEs sent. */
  matched: number;
  /** Filtered dumps sent: one per filter. */
  dumps: number;
  firstFailErrno?: number;
}

export interface ConntrackAddon {
  conntrackDelete(netnsPath: string | null, filters: ConntrackFilter[]): Promise<NativeConntrackResult>;
}

let cached: ConntrackAddon | undefined;

export function loadConntrackAddon(): ConntrackAddon {
  if (cached) return cached;
  const mod = loadAddon() as unknown as Partial<ConntrackAddon>;
  if (typeof mod.conntrackDelete !== 'function') {
    throw new Error('the native addon has no conntrackDelete (built without native/conntrack?)');
  }
  cached = { conntrackDelete: mod.conntrackDelete.bind(mod) };
  return cached;
}
