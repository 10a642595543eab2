// Loads src/native lazily, so the bench's nft -f paths still run while the addon is not built, and
// says precisely what is missing when it is needed. Types come from src/native itself.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type NativeApi = typeof import('../../src/native');
export type { CommitStats, Transaction, Nft } from '../../src/native';

const ROOT = join(__dirname, '..', '..', '..');
const SRC_INDEX = join(ROOT, 'dist', 'src', 'native', 'index.js');
const ADDON = join(ROOT, 'build', 'Release', 'kube_proxy_native.node');

/** Why the addon path cannot run, or undefined when it can. */
export function nativeMissing(): string | undefined {
  const missing: string[] = [];
  if (!existsSync(SRC_INDEX)) missing.push(`${SRC_INDEX} (src/native/index.ts, compiled by npx tsc -p .)`);
  if (!existsSync(ADDON)) missing.push(`${ADDON} (build it with npx node-gyp rebuild)`);
  return missing.length ? `native addon not available: missing ${missing.join(' and ')}` : undefined;
}

export function loadNative(): NativeApi {
  const why = nativeMissing();
  if (why) throw new Error(why);
  return require(SRC_INDEX) as NativeApi;
}
