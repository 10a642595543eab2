// A cold start's staging on a real kernel (plan-full.ts Staging): the table it ends with is the one a
// single transaction writes, and the kernel takes the staging commits in the order they were made
// (a set before its elements, a chain before the verdict-map elements that jump to it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { changed, freshFullSync, normalizedRuleset, proxierIn } from './kernel-helpers';
import { manyServices, snapshot } from './fixtures';

test('a cold start staged in small commits programs the same tables as one transaction', async () => {
  const entries = manyServices();
  const staged = await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns, { stageBytes: 256 });
    try {
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
      return normalizedRuleset(ns);
    } finally { nft.close(); }
  });
  assert.deepEqual(staged, await freshFullSync(entries));
});
