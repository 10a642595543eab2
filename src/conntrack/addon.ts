// Loads the addon's conntrack function. A local loader: src/native/addon-loader.ts did not exist
// when this was written; once it does, this file should just re-export from it.
import * as path from 'node:path';
import type { ConntrackFilter } from './filter';

export interface NativeConntrackResult {
  deleted: number;
  notFound: number;
  failed: number;
  received: number;
  matched: number;
  dumps: number;
  firstFailErrno?: number;
}

export interface ConntrackAddon {
  conntrackDelete(netnsPath: string | null, filters: ConntrackFilter[]): Promise<NativeConntrackResult>;
}

let cached: ConntrackAddon | undefined;

/** `KPN_NATIVE_ADDON` overrides the path (e.g. a debug build). */
export function addonPath(): string {
  return process.env.KPN_NATIVE_ADDON ?? path.resolve(__dirname, '../../..', 'build/Release/kube_proxy_native.node');
}

export function loadConntrackAddon(): ConntrackAddon {
  if (cached) return cached;
  const file = addonPath();
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const mod = require(file) as Partial<ConntrackAddon>;
  if (typeof mod.conntrackDelete !== 'function') {
    throw new Error(`native addon ${file} has no conntrackDelete (built without native/conntrack?)`);
  }
  cached = mod as ConntrackAddon;
  return cached;
}
