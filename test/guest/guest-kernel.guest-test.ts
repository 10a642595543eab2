// The IPVS suite's own precondition, checked first so a broken guest fails with a plain reason
// instead of as every other guest test's error: the kernel under test has IPVS, the dummy link driver
// and nftables in a fresh namespace. Runs only in the guest (scripts/guest-tests.sh).
import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { withNetns } from '../helpers/netns';

test('the guest kernel has IPVS, dummy links and nftables inside a fresh namespace', async () => {
  await withNetns((ns) => {
    ns.exec('ip', ['link', 'add', 'kpn-dummy0', 'type', 'dummy']);
    assert.match(ns.exec('ip', ['-d', 'link', 'show', 'kpn-dummy0']), /dummy/);
    ns.exec('ipvsadm', ['-A', '-t', '10.96.0.1:80', '-s', 'rr']);
    assert.match(ns.exec('ipvsadm', ['-Ln']), /TCP\s+10\.96\.0\.1:80 rr/);
    ns.nft('add', 'table', 'inet', 'kpn-probe');
    assert.ok(ns.nftJson().some((o) => o.table?.name === 'kpn-probe'));
  }, 'kpnguest');
});
