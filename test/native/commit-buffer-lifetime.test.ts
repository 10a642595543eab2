// The addon reads a commit's buffer again on its worker thread, after commit() has returned: the
// decoded transaction keeps only where each op starts (native/txn/types.h, Transaction), and the
// worker holds a reference to the Buffer until the commit settles. Here nothing else holds it:
// the buffer is handed to the raw socket and dropped, garbage is collected while the worker
// encodes and the kernel works, and every rule and element must still arrive. Without the
// worker's reference the collector frees the bytes under it (a crash, or a refused commit).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Nft, Transaction, rule } from '../../src/native';
import { loadAddon } from '../../src/native/addon/addon-loader';
import { withNetns } from '../helpers/netns';
import { gcFunction } from '../helpers/gc';

const T = 'kpn-lifetime';
const ELEMENTS = 60_000;
const RULES = 2_000;

const ip = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** A copy of the transaction's buffer, so that once this returns only the addon can hold it. */
function transactionBytes(): Buffer {
  const tx = new Transaction().addTable('ip', T).addChain('ip', T, { name: 'c' });
  tx.addSet('ip', T, { name: 'big', key: ['ipv4_addr', 'inet_service'] });
  tx.addElements('ip', T, 'big', Array.from({ length: ELEMENTS }, (_, i) => ({ key: [ip(i), 1 + (i % 60000)] })));
  for (let i = 0; i < RULES; i++) tx.addRule('ip', T, 'c', rule('ip').daddr(ip(i)).l4proto('tcp').dport(80).counter().verdict({ kind: 'accept' }).build());
  return Buffer.from(tx.serialize());
}

test('a commit whose Buffer only the addon still holds commits all of it, garbage collected meanwhile', async () => {
  const gc = gcFunction();
  await withNetns(async (ns) => {
    const sock = new (loadAddon().NftSocket)(ns.path);
    try {
      let settled = false;
      const commit = sock.commit(transactionBytes()).finally(() => { settled = true; });
      let collections = 0;
      do {
        gc();
        collections++;
        await new Promise((resolve) => setImmediate(resolve));
      } while (!settled);
      const stats = await commit;
      assert.ok(collections >= 1);
      // The batch's markers, table, chain, set, the rules, and the elements in several messages.
      assert.ok(stats.messages >= 2 + 3 + RULES + 2, `${stats.messages} messages`);
    } finally {
      sock.close();
    }
    const nft = Nft.open({ netns: ns.path });
    try {
      const dump = await nft.dumpTable('ip', T);
      assert.equal(dump.rules.length, RULES);
      assert.equal(dump.sets.find((s) => s.name === 'big')?.elements.length, ELEMENTS);
    } finally {
      nft.close();
    }
  });
});
