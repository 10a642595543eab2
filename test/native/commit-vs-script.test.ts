// The netlink commit and `nft -f` of toNftScript() must give the kernel the same ruleset.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Nft, rule, Transaction } from '../../src/native';
import { withNetns } from '../helpers/netns';
import { DATA_SETS, DATA_SETS6, dataMapKinds, everyKind, FIREWALL6, SETS, T4, T6, TD } from './fixtures';
import { normalizeRuleset } from './ruleset-json';

/** Applies each transaction both ways, in order, and compares the listings after each. */
async function bothWays(txs: Transaction[], minObjects: number[]): Promise<void> {
  await withNetns(async (viaNetlink) => {
    await withNetns(async (viaNft) => {
      const nft = Nft.open({ netns: viaNetlink.path });
      try {
        for (const [i, tx] of txs.entries()) {
          const stats = await nft.commit(tx);
          assert.ok(stats.messages >= tx.opCount);
          viaNft.exec('nft', ['-f', '-'], tx.toNftScript());
          const a = normalizeRuleset(viaNetlink.nftJson());
          const b = normalizeRuleset(viaNft.nftJson());
          assert.ok(a.length >= minObjects[i], `only ${a.length} objects after transaction ${i}`);
          assert.deepEqual(a, b);
        }
      } finally {
        nft.close();
      }
    });
  });
}

test('every kind of object: netlink commit and nft -f of the script list identically', async () => {
  await bothWays([everyKind()], [60]);
});

test('follow-up changes (element add/delete, flushes, deletes) agree too', async () => {
  const tx = new Transaction();
  for (const s of Object.values(SETS)) tx.declareSet('ip', T4, s);
  tx.addElements('ip', T4, SETS.services.name, [{ key: ['172.30.0.50', 'tcp', 443], verdict: { kind: 'accept' } }]);
  tx.deleteElements('ip', T4, SETS.services.name, [{ key: ['172.30.0.43', 'sctp', 9], verdict: { kind: 'drop' } }]);
  tx.addElements('ip', T4, SETS.cidrs.name, [{ key: ['11.0.0.0/8'] }, { key: ['9.255.255.255'] }]);
  tx.deleteElements('ip', T4, SETS.cidrs.name, [{ key: ['172.16.0.0/12'] }]);
  tx.deleteElements('ip', T4, SETS.firewall.name, [{ key: ['5.6.7.8', 'udp', 53, '0.0.0.0/0'] }]);
  tx.flushSet('ip', T4, SETS.timed.name);
  tx.flushChain('ip', T4, 'filter-input');
  tx.deleteSet('ip', T4, SETS.cidrMap.name);
  tx.flushSet('ip', T4, SETS.noEndpoints.name);
  tx.addRule('ip', T4, 'filter-input', rule('ip').daddrInSet(SETS.cidrs.name).verdict({ kind: 'accept' }).build());
  tx.flushChain('ip', T4, 'nat-postrouting');
  tx.deleteChain('ip', T4, 'nat-postrouting');
  tx.flushTable('ip6', T6);
  const cleanup = new Transaction().deleteTable('ip6', T6).addTable('ip6', 'again').deleteTable('ip6', 'again');
  await bothWays([everyKind(), tx, cleanup], [60, 50, 40]);
});

test('data maps, numgen keys and dnat to a map: both ways list identically, follow-ups too', async () => {
  const tx = new Transaction();
  for (const s of Object.values(DATA_SETS)) tx.declareSet('ip', TD, s);
  for (const s of Object.values(DATA_SETS6)) tx.declareSet('ip6', TD, s);
  // A data map's delete needs only the key; data given with it is checked and not sent.
  tx.deleteElements('ip', TD, DATA_SETS.endpoints.name, [{ key: ['10.0.0.1', 'tcp', 80, 1] }]);
  tx.deleteElements('ip', TD, DATA_SETS.ports.name, [{ key: ['10.0.0.3', 'udp', 53], data: ['10.1.0.4', 5353] }]);
  tx.deleteElements('ip', TD, DATA_SETS.ranges.name, [{ key: ['10.0.0.0/8'] }]);
  tx.deleteElements('ip6', TD, DATA_SETS6.endpoints.name, [{ key: ['fd00::1', 'udp', 80, 2], data: ['fd00:1::2', 8081] }]);
  tx.addElements('ip', TD, DATA_SETS.endpoints.name, [{ key: ['10.0.0.9', 'sctp', 9, 1], data: ['10.1.0.9', 0] }]);
  tx.addElements('ip', TD, DATA_SETS.ranges.name, [{ key: ['11.0.0.0/8'], data: ['192.168.0.3'] }]);
  tx.addElements('ip6', TD, DATA_SETS6.addrOnly.name, [{ key: ['fd00::9'], data: ['::1'] }]);
  tx.deleteElements('ip', TD, DATA_SETS.picked.name, [{ key: ['10.2.0.2', 0xffffffff] }]);
  tx.flushSet('ip', TD, DATA_SETS.marks.name);
  tx.flushChain('ip6', TD, 'pre');
  tx.deleteSet('ip6', TD, DATA_SETS6.addrOnly.name);
  await bothWays([dataMapKinds(), tx], [30, 25]);
});

/** A set as the kernel holds it: its attributes and its elements' bytes (key, key end, flags), sorted. */
async function heldSet(nft: Nft, family: 'ip' | 'ip6', table: string, name: string) {
  const s = (await nft.dumpTable(family, table, { elements: true })).sets.find((x) => x.name === name)!;
  const hex = (b?: Buffer) => (b ? b.toString('hex') : '');
  return {
    flags: s.flags, keyType: s.keyType, keyLen: s.keyLen, concat: s.concat,
    elements: s.elements.map((e) => `${hex(e.key)}-${hex(e.keyEnd)}/${e.flags}`).sort(),
  };
}

test('concatenated interval sets (firewall source ranges, IPv4 and IPv6): the kernel holds the same field lengths and range bytes from our commit as from nft -f', async () => {
  const tx = everyKind();
  await withNetns(async (viaNetlink) => {
    await withNetns(async (viaNft) => {
      const ours = Nft.open({ netns: viaNetlink.path });
      const theirs = Nft.open({ netns: viaNft.path });
      try {
        await ours.commit(tx);
        viaNft.exec('nft', ['-f', '-'], tx.toNftScript());
        for (const [family, table, name, concat, count] of [
          ['ip', T4, SETS.firewall.name, [4, 1, 2, 4], 2], ['ip6', T6, FIREWALL6.name, [16, 1, 2, 16], 6],
        ] as const) {
          const a = await heldSet(ours, family, table, name);
          assert.deepEqual(a, await heldSet(theirs, family, table, name), `${family} ${name}`);
          assert.deepEqual(a.concat, concat, 'NFTA_SET_DESC_CONCAT: each field unpadded');
          assert.equal(a.elements.length, count, 'one element per range, with its end');
          assert.ok(a.elements.every((e) => /^[0-9a-f]+-[0-9a-f]+\/0$/.test(e)), a.elements.join('\n'));
        }
      } finally {
        ours.close();
        theirs.close();
      }
    });
  });
});
