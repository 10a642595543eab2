// ipsetDestroy (native/ipset): IPSET_CMD_DESTROY over NETLINK_NETFILTER, checked against the
// ipset tool in a fresh netns: the kernel's answer per set (0; ENOENT for a missing set, as
// `ipset destroy` without -exist; IPSET_ERR_BUSY while an iptables rule matches the set), and
// bad arguments refused before anything is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { destroyIpsets, IPSET_ERR_BUSY, loadAddon } from '../../src/native';
import { withNetns } from '../helpers/netns';

test('ipsetDestroy: destroyed, missing and in-use sets each get the kernel\'s answer, in order', async () => {
  await withNetns(async (ns) => {
    ns.exec('ipset', ['restore'], 'create a hash:ip family inet\ncreate b hash:ip,port family inet6\ncreate used hash:ip family inet\n');
    ns.exec('iptables-nft', ['-A', 'INPUT', '-m', 'set', '--match-set', 'used', 'src', '-j', 'ACCEPT']);
    const r = await destroyIpsets(['a', 'missing', 'used', 'b'], { netns: ns.path });
    assert.deepEqual(r.map((o) => [o.name, o.errno]), [['a', 0], ['missing', 2], ['used', IPSET_ERR_BUSY], ['b', 0]]);
    assert.equal(ns.exec('ipset', ['list', '-n']).trim(), 'used');
    assert.deepEqual(await destroyIpsets([], { netns: ns.path }), []);
  }, 'kpn-ipset');
});

test('ipsetDestroy: arguments checked before any netlink work', () => {
  const { ipsetDestroy } = loadAddon();
  assert.throws(() => ipsetDestroy(null, 'KUBE-CLUSTER-IP' as unknown as string[]), TypeError);
  assert.throws(() => ipsetDestroy(null, [7 as unknown as string]), /names\[0\] must be a string/);
  assert.throws(() => ipsetDestroy(null, ['']), RangeError);
  assert.throws(() => ipsetDestroy(null, ['x'.repeat(32)]), /names\[0\] must be 1\.\.31 bytes/);
  assert.throws(() => ipsetDestroy(null, ['a\0b']), RangeError);
  assert.throws(() => ipsetDestroy(null, new Array(1025).fill('a')), /at most 1024/);
  assert.throws(() => ipsetDestroy('' as string, ['a']), RangeError);
});

test('ipsetDestroy: a namespace that does not exist rejects with the open\'s errno', async () => {
  await assert.rejects(destroyIpsets(['a'], { netns: '/run/netns/kpn-no-such-netns' }), (e: { errno?: number }) => e.errno === 2);
});
