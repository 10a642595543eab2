// Finds and loads the compiled addon. It lives in build/Release under the package root, which is
// three levels above src/native/addon/ and four above dist/src/native/addon/, so walk up to package.json.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AddonModule } from './addon-types';

const ADDON_FILE = join('build', 'Release', 'kube_proxy_native.node');

export function packageRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`cannot find the package root (package.json) above ${from}`);
    dir = up;
  }
}

export function addonPath(): string {
  return process.env.KUBE_PROXY_NATIVE_ADDON || join(packageRoot(), ADDON_FILE);
}

let cached: AddonModule | undefined;

export function loadAddon(): AddonModule {
  if (cached) return cached;
  const path = addonPath();
  if (!existsSync(path)) {
    throw new Error(`native addon not found at ${path}: run "npm run build" (needs node-gyp and a C++ compiler)`);
  }
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  cached = require(path) as AddonModule;
  return cached;
}
