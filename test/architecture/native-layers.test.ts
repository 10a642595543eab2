// native/'s layer rules (native-layers.ts) on the real tree, and a synthetic tree proving the check can fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { layerViolations, listNativeFiles } from './native-layers';

// dist/test/architecture -> the repository root
const NATIVE = path.resolve(__dirname, '../../../native');

test('native/ respects its layers', () => {
  const files = listNativeFiles(NATIVE);
  const layers = new Set(files.map((f) => f.path.split('/')[0]));
  assert.deepEqual([...layers].sort(), ['conntrack', 'ipset', 'ipvs', 'monitor', 'napi', 'netlink', 'nft', 'rtnl', 'txn']);
  assert.ok(files.length > 80, `only ${files.length} files read`);
  assert.deepEqual(layerViolations(files), []);
});

test('the check finds each kind of violation', () => {
  const got = layerViolations([
    { path: 'addon.cc', text: '' },
    { path: 'netlink/socket.cc', text: '#include "netlink/socket.h"\n#include "nft/batch.h"\n' },
    { path: 'conntrack/ct_list.cc', text: '#include <napi.h>\n#include "ct_list.h"\n#include <vector>\n' },
    { path: 'napi/addon.cc', text: '#include <napi.h>\n#include "conntrack/ct_list.h"\n#include "nft/batch.h"\n' },
  ]);
  assert.deepEqual(got, [
    'addon.cc: not in a layer folder',
    'netlink/socket.cc: netlink/ includes nft/ ("nft/batch.h")',
    'conntrack/ct_list.cc: includes <napi.h> outside napi/',
    'conntrack/ct_list.cc: includes "ct_list.h" (write it from native/: "<layer>/file.h")',
  ]);
});
