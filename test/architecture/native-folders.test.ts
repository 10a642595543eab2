// src/native's folder rules (native-folders.ts) on the real tree, and a synthetic tree proving the check can fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { listNativeSources, nativeFolderViolations, NATIVE_FOLDER_IMPORTS } from './native-folders';

// dist/test/architecture -> the repository root
const SRC_NATIVE = path.resolve(__dirname, '../../../src/native');

test('src/native respects its folders', () => {
  const files = listNativeSources(SRC_NATIVE);
  const folders = new Set(files.filter((f) => f.path.includes('/')).map((f) => f.path.split('/')[0]));
  assert.deepEqual([...folders].sort(), Object.keys(NATIVE_FOLDER_IMPORTS).sort());
  assert.ok(files.length > 50, `only ${files.length} files read`);
  assert.deepEqual(nativeFolderViolations(files), []);
});

test('the check finds each kind of violation', () => {
  const got = nativeFolderViolations([
    { path: 'index.ts', text: "export { Nft } from './nft/nft';\nexport { FakeNft } from './testing/fake-nft';\n" },
    { path: 'nft.ts', text: '' },
    { path: 'extra/thing.ts', text: '' },
    { path: 'txn/transaction.ts', text: "import { loadAddon } from '../addon/addon-loader';\nimport { ByteWriter } from '../wire/byte-writer';\nimport { Log } from '../../base/log';\n" },
    { path: 'addon/addon-types.ts', text: "import type { IpvsTimeouts } from '../ipvs/ipvs-types';\nimport { type DnatFlow } from '../conntrack/conntrack-types';\nimport { IpvsSocket } from '../ipvs/ipvs';\n" },
    { path: 'addon/addon-loader.ts', text: "const t = require('../conntrack/conntrack-types');\nexport { CallQueue } from './call-queue';\n" },
    { path: 'wire/addresses.ts', text: "import { Nft } from '..';\n" },
    { path: 'nft/nft.ts', text: "import type { FakeNft } from '../testing/fake-nft';\n" },
  ]);
  assert.deepEqual(got, [
    'nft.ts: not in a folder (only index.ts is)',
    'extra/thing.ts: extra/ is not in the folder table (NATIVE_FOLDER_IMPORTS)',
    'txn/transaction.ts: txn/ imports addon/ ("../addon/addon-loader")',
    'addon/addon-types.ts: addon/ imports values of ipvs/ ("../ipvs/ipvs"), types only allowed',
    'addon/addon-loader.ts: addon/ imports values of conntrack/ ("../conntrack/conntrack-types"), types only allowed',
    'wire/addresses.ts: imports src/native\'s index (".."): import the file',
    'nft/nft.ts: nft/ imports testing/ ("../testing/fake-nft")',
  ]);
});
