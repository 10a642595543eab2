// The addon is built once (npm run build, against the system Node's headers) and runs under every Node
// line the suite runs: the system Node (20) and the image's LTS (scripts/node-lts.sh, given by
// scripts/test.sh as KPN_NODE_LTS). Node-API is ABI-stable from the version binding.gyp declares
// (NAPI_VERSION) on; the one V8 call (memoryPressureGc) is not Node-API, so it is called here under
// each runtime, and addon.cc, which holds it, is compiled against the LTS's own headers, as the image's
// build stage compiles it (docs/native-api.md#node-api-version-and-nodejs-lines).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { withNetns } from '../helpers/netns';
import { REPO_ROOT } from '../helpers/topology';

/** binding.gyp without its comments: JSON. */
const gyp = JSON.parse(readFileSync(path.join(REPO_ROOT, 'binding.gyp'), 'utf8').replace(/^\s*#.*$/gm, '')).targets[0] as {
  defines: string[]; cflags_cc: string[];
};
const NAPI_VERSION = Number(/^NAPI_VERSION=(\d+)$/.exec(gyp.defines.find((d) => d.startsWith('NAPI_VERSION=')) ?? '')?.[1]);
const LTS = process.env.KPN_NODE_LTS || undefined;

function systemNode(): string | undefined {
  try {
    return execFileSync('bash', ['-c', 'command -v node'], { encoding: 'utf8', env: { ...process.env, PATH: process.env.PATH?.split(':').filter((d) => !LTS || d !== path.dirname(LTS)).join(':') } }).trim();
  } catch {
    return undefined;
  }
}

/** This test's runtime, the system Node and the LTS, each once (by the binary they resolve to). */
const runtimes = [...new Map([process.execPath, systemNode(), LTS].filter((n): n is string => !!n && existsSync(n))
  .map((n) => [execFileSync('readlink', ['-f', n], { encoding: 'utf8' }).trim(), n])).values()];

/** Loaded in a child of `node`: the addon's synchronous calls, the V8 one, and a commit into `netnsPath`. */
const CHILD = `
const root = process.argv[1], netnsPath = process.argv[2];
const { Transaction } = require(root + '/dist/src/native');
const addon = require(root + '/dist/src/native/addon/addon-loader').loadAddon();
(async () => {
  const tx = new Transaction().addTable('ip', 'kpn-runtime').addChain('ip', 'kpn-runtime', { name: 'c' });
  const ops = addon.validateTransaction(tx.serialize());
  addon.memoryPressureGc();
  const nft = new addon.NftSocket(netnsPath);
  await nft.commit(tx.serialize());
  const tables = (await nft.listTables()).map((t) => t.name);
  nft.close();
  console.log(JSON.stringify({ version: process.version, napi: Number(process.versions.napi), ops, errno: addon.errnoName(17), trimmed: typeof addon.releaseFreeMemory(), tables }));
})().catch((e) => { console.error(e); process.exit(1); });
`;

test('binding.gyp declares the Node-API version the addon is built for', () => {
  assert.equal(NAPI_VERSION, 5);
});

test('the built addon loads and works under every Node line the suite runs (the system one and the LTS)', async (t) => {
  if (!LTS) t.diagnostic('KPN_NODE_LTS is not set (scripts/test.sh sets it): the LTS is not among the runtimes');
  for (const node of runtimes) {
    await withNetns((ns) => {
      const r = spawnSync(node, ['-e', CHILD, REPO_ROOT, ns.path], { encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 0, `${node}: ${r.stderr}`);
      const out = JSON.parse(r.stdout);
      t.diagnostic(`${out.version} (Node-API ${out.napi}): loaded, validated, committed`);
      assert.ok(out.napi >= NAPI_VERSION, `${out.version} has Node-API ${out.napi}, the addon needs ${NAPI_VERSION}`);
      assert.deepEqual({ ops: out.ops, errno: out.errno, trimmed: out.trimmed, tables: out.tables },
        { ops: 2, errno: 'EEXIST', trimmed: 'boolean', tables: ['kpn-runtime'] });
    });
  }
  if (LTS) assert.ok(runtimes.length >= 2, `runtimes: ${runtimes.join(', ')}`);
});

test('addon.cc (Node-API and the V8 call) compiles against the LTS\'s headers with binding.gyp\'s flags, as the image builds it', (t) => {
  const include = LTS && path.join(path.dirname(path.dirname(LTS)), 'include', 'node');
  if (!include || !existsSync(path.join(include, 'v8.h'))) return t.skip('no LTS headers (KPN_NODE_LTS unset)');
  const addonApi = path.join(REPO_ROOT, 'node_modules', 'node-addon-api');
  const flags = [...gyp.cflags_cc.filter((f) => f.startsWith('-std=')), ...gyp.defines.map((d) => `-D${d}`)];
  const r = spawnSync('g++', [...flags, '-fsyntax-only', `-I${include}`, `-I${addonApi}`, `-I${path.join(REPO_ROOT, 'native')}`,
    path.join(REPO_ROOT, 'native', 'napi', 'addon.cc')], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
});
