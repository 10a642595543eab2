// NftablesProxier on a real kernel for what only the kernel checks: IPv6 session affinity's keys
// must fit the kernel's register file. The proxier's edge cases run on the fake kernel in edge.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { ep, snapshot, sp } from './fixtures';
import { changed, listOurTables, proxierIn } from './kernel-helpers';

test('IPv6 session affinity fits the register file and commits', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      const s6 = sp('aff6', { key: 'ns1/aff6:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::46', affinityTimeoutSeconds: 10800 });
      assert.deepEqual(await proxier.sync(snapshot([[s6, [ep('fd00:10::1', 8080), ep('fd00:10::2', 8080)]]]), changed(), true), { full: true, ok: true });
      const text = listOurTables(ns, 'ip6');
      assert.match(text, /update @affinity \{ ip6 saddr \. fd00:30::46 \. 80 \. fd00:10::1 \. 8080 timeout 3h \}/);
      // Two lookups that refresh and DNAT, two picks that record and DNAT, two that only DNAT (a full set).
      assert.equal((text.match(/@affinity meta l4proto tcp update @affinity \{[^}]*\} dnat to \[fd00:10::[12]\]:8080/g) ?? []).length, 2);
      assert.equal((text.match(/update @affinity \{[^}]*\} dnat to/g) ?? []).length, 4);
      assert.equal((text.match(/dnat to \[fd00:10::[12]\]:8080/g) ?? []).length, 6);
    } finally { nft.close(); }
  });
});
