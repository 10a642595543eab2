// One transaction of 250,000 objects commits atomically and the kernel holds all of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Nft, rule, Transaction } from '../../src/native';
import { withNetns } from '../helpers/netns';

const CHAINS = 50_000;
const RULES_PER_CHAIN = 3;
const ELEMENTS = 50_000;

function ipOf(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

test(`${CHAINS} chains + ${CHAINS * RULES_PER_CHAIN} rules + ${ELEMENTS} map elements in one transaction`, async () => {
  const tx = new Transaction();
  tx.addTable('ip', 'scale');
  tx.addSet('ip', 'scale', { name: 'svc', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' });
  for (let c = 0; c < CHAINS; c++) {
    const name = `svc-${c}`;
    tx.addChain('ip', 'scale', { name });
    tx.addRule('ip', 'scale', name, rule('ip').saddr(ipOf(c)).counter().verdict({ kind: 'accept' }).build());
    tx.addRule('ip', 'scale', name, rule('ip').numgenMod(2, 0).verdict({ kind: 'drop' }).build());
    tx.addRule('ip', 'scale', name, rule('ip').l4proto('tcp').dnat(ipOf(c), 8080).build());
  }
  const elements = Array.from({ length: ELEMENTS }, (_, i) => ({
    key: [ipOf(i), 'tcp', 80], verdict: { kind: 'goto' as const, chain: `svc-${i % CHAINS}` },
  }));
  tx.addElements('ip', 'scale', 'svc', elements);
  assert.equal(tx.opCount, 3 + CHAINS * (1 + RULES_PER_CHAIN));

  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      const stats = await nft.commit(tx);
      assert.ok(stats.messages >= tx.opCount, `messages ${stats.messages}`);
      const dump = await nft.dumpTable('ip', 'scale');
      assert.equal(dump.chains.length, CHAINS);
      assert.equal(dump.rules.length, CHAINS * RULES_PER_CHAIN);
      assert.equal(dump.sets[0].elements.length, ELEMENTS);
    } finally {
      nft.close();
    }
    const text = ns.nft('list', 'table', 'ip', 'scale');
    assert.equal(text.match(/^\tchain /gm)?.length, CHAINS);
    assert.equal(text.match(/ accept$/gm)?.length, CHAINS);
    assert.equal(text.match(/dnat to /gm)?.length, CHAINS);
    assert.equal(text.match(/ : goto svc-/g)?.length, ELEMENTS);
  });
});
