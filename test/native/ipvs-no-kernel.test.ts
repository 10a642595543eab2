// This host's kernel has no IPVS (CONFIG_IP_VS off, no modules): opening an IpvsSocket must say so
// clearly instead of failing later, in a fresh namespace as in the default one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IpvsSocket, loadAddon } from '../../src/native';
import { withNetns } from '../helpers/netns';

const hasIpvs = () => { try { require('node:fs').accessSync('/proc/net/ip_vs'); return true; } catch { return false; } };

test('IpvsSocket.open rejects with ENOENT and says the kernel has no IPVS', async () => {
  assert.equal(hasIpvs(), false, 'this test asserts the host kernel has no IPVS; run it on such a host');
  await withNetns(async (ns) => {
    await assert.rejects(IpvsSocket.open({ netns: ns.path }), (e: Error & { errno?: number; code?: string }) => {
      assert.equal(e.errno, 2);
      assert.equal(e.code, 'ENOENT');
      assert.match(e.message, /the kernel has no IPVS \(ip_vs module\)/);
      return true;
    });
  });
});

test('an unresolved socket refuses work, and open() refuses a bad netns', async () => {
  const raw = new (loadAddon().IpvsSocket)(null);
  assert.throws(() => raw.dump(), /the IPVS family is not resolved/);
  raw.close();
  assert.throws(() => raw.dump(), /socket is closed/);
  await assert.rejects(IpvsSocket.open({ netns: '/run/netns/kpn-does-not-exist' }), (e: Error & { code?: string }) => e.code === 'ENOENT' && /open netns/.test(e.message));
});

test('close() while an operation runs is deferred: the operation still settles, later calls are refused', async () => {
  const raw = new (loadAddon().IpvsSocket)(null);
  const pending = raw.resolveFamily();
  assert.throws(() => raw.resolveFamily(), /another operation is in progress/);
  raw.close();
  await assert.rejects(pending, (e: Error & { code?: string }) => e.code === 'ENOENT');
  assert.throws(() => raw.resolveFamily(), /socket is closed/);
});
