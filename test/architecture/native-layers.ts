// The layers of native/ (native/README.md, "Layers"), checked on the #include lines of its files:
// each layer includes only the layers its row allows, and only napi/ touches Node-API, so the
// layers below it stay plain C++ that the fuzz targets link without Node.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';

export const LAYER_INCLUDES: Record<string, readonly string[]> = {
  napi: ['napi', 'txn', 'nft', 'conntrack', 'monitor', 'netlink', 'rtnl', 'ipvs', 'ipset'],
  txn: ['txn'],
  nft: ['nft', 'txn', 'netlink'],
  conntrack: ['conntrack', 'netlink'],
  monitor: ['monitor', 'nft', 'netlink'],
  netlink: ['netlink'],
  rtnl: ['rtnl', 'netlink'],
  ipvs: ['ipvs', 'txn', 'netlink'],  // txn/: its checking WireReader and DecodeError
  ipset: ['ipset', 'netlink'],
};

export interface NativeFile { path: string; text: string }  // path relative to native/

export function listNativeFiles(nativeDir: string): NativeFile[] {
  const out: NativeFile[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) { if (name !== 'fuzz') walk(p); continue; }
      if (/\.(cc|h)$/.test(name)) out.push({ path: path.relative(nativeDir, p).split(path.sep).join('/'), text: readFileSync(p, 'utf8') });
    }
  };
  walk(nativeDir);
  return out;
}

/** One line per broken rule: a file outside the layers, an include across layers, Node-API below napi/. */
export function layerViolations(files: readonly NativeFile[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    const layer = f.path.split('/')[0];
    const allowed = LAYER_INCLUDES[layer];
    if (!allowed || !f.path.includes('/')) { out.push(`${f.path}: not in a layer folder`); continue; }
    for (const m of f.text.matchAll(/^#include ([<"])([^>"]+)[>"]/gm)) {
      const [, kind, target] = m;
      if (kind === '<') {
        if (/^(napi|node_api|js_native_api|uv)\.h$/.test(target) && layer !== 'napi') out.push(`${f.path}: includes <${target}> outside napi/`);
        continue;
      }
      const to = target.split('/')[0];
      if (!target.includes('/')) out.push(`${f.path}: includes "${target}" (write it from native/: "<layer>/file.h")`);
      else if (!allowed.includes(to)) out.push(`${f.path}: ${layer}/ includes ${to}/ ("${target}")`);
    }
  }
  return out;
}
