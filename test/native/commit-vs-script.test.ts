// The netlink commit and `nft -f` of toNftScript() must give the kernel the same ruleset.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Nft } from '../../src/native';
import { withNetns } from '../helpers/netns';
import { everyKind } from './fixtures';
import { normalizeRuleset } from './ruleset-json';

test('every kind of object: netlink commit and nft -f of the script list identically', async () => {
  const tx = everyKind();
  await withNetns(async (viaNetlink) => {
    await withNetns(async (viaNft) => {
      const nft = Nft.open({ netns: viaNetlink.path });
      try {
        const stats = await nft.commit(tx);
        assert.ok(stats.messages >= tx.opCount);
      } finally {
        nft.close();
      }
      viaNft.exec('nft', ['-f', '-'], tx.toNftScript());
      const a = normalizeRuleset(viaNetlink.nftJson());
      const b = normalizeRuleset(viaNft.nftJson());
      assert.ok(a.length > 40);
      assert.deepEqual(a, b);
    });
  });
});
