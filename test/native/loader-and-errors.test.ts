// The addon loader's path and error, and NetlinkError built from the addon's rejection shape.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { NetlinkError, Transaction } from '../../src/native';
import { addonPath, loadAddon, packageRoot } from '../../src/native/addon/addon-loader';
import { toNetlinkError } from '../../src/native/addon/netlink-error';

test('the package root is found from src/ and dist/ alike', () => {
  const root = packageRoot();
  assert.equal(packageRoot(join(root, 'dist', 'src', 'native')), root);
  assert.equal(packageRoot(join(root, 'src', 'native')), root);
  const saved = process.env.KUBE_PROXY_NATIVE_ADDON;
  delete process.env.KUBE_PROXY_NATIVE_ADDON;
  try {
    assert.equal(addonPath(), join(root, 'build', 'Release', 'kube_proxy_native.node'));
  } finally {
    if (saved !== undefined) process.env.KUBE_PROXY_NATIVE_ADDON = saved;
  }
});

test('a missing addon gives an error that says how to build it', () => {
  const saved = process.env.KUBE_PROXY_NATIVE_ADDON;
  process.env.KUBE_PROXY_NATIVE_ADDON = '/nonexistent/kube_proxy_native.node';
  try {
    assert.throws(() => loadAddon(), /native addon not found at \/nonexistent\/kube_proxy_native.node: run "npm run build"/);
  } finally {
    if (saved === undefined) delete process.env.KUBE_PROXY_NATIVE_ADDON;
    else process.env.KUBE_PROXY_NATIVE_ADDON = saved;
  }
});

test('the addon rejection becomes a NetlinkError naming the op', () => {
  const tx = new Transaction().addTable('ip', 't').addChain('ip', 't', { name: 'c' });
  const raw = Object.assign(new Error('kernel said no'), {
    errno: 17, opIndex: 1, messageSeq: 3, extack: 'Chain exists',
    errors: [{ errno: 17, opIndex: 1, extack: 'Chain exists' }, { errno: 2, opIndex: 0 }],
  });
  const e = toNetlinkError(raw, (i) => tx.describe(i));
  assert.ok(e instanceof NetlinkError);
  assert.equal(e.errno, 17);
  assert.equal(e.code, 'EEXIST');
  assert.equal(e.opIndex, 1);
  assert.equal(e.object, 'add chain ip t c');
  assert.equal(e.extack, 'Chain exists');
  assert.equal(e.message, 'EEXIST (17) from the kernel at op 1: add chain ip t c [Chain exists]');
  assert.deepEqual(e.errors.map((x) => x.code), ['EEXIST', 'ENOENT']);
});

test('errors without an errno pass through unchanged', () => {
  const r = new RangeError('offset 12: opcode: unknown opcode 99');
  assert.equal(toNetlinkError(r, () => ''), r);
  const odd = Object.assign(new Error('x'), { errno: 9999, opIndex: 42 });
  const e = toNetlinkError(odd, () => { throw new RangeError('out of range'); }) as NetlinkError;
  assert.equal(e.code, 'E9999');
  assert.equal(e.object, '');
});
