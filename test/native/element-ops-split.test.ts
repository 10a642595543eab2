// Element ops big enough to be split into several netlink messages, of every shape the addon
// encodes (verdict maps with long chain names and concatenated keys, concatenated and plain
// intervals whose ends travel as keyEnd, per-element timeouts, data maps), reach the kernel as
// they were sent: the netlink commit and `nft -f` of the same script list identically, adds and
// deletes alike. The addon keeps each op's elements as their wire bytes and reads them back one at
// a time while it splits them (native/txn/element_list.h); this is the check on that walk.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NetlinkError, Nft, Transaction, type Element, type SetSpec } from '../../src/native';
import { withNetns } from '../helpers/netns';
import { normalizeRuleset, objectsOf } from './ruleset-json';

const T = 'kpn-split';
const CHAINS = Array.from({ length: 40 }, (_, i) => `service-${String(i).padStart(8, 'X')}-namespace-${i}/name/tcp/p80`);
const SETS: Record<string, SetSpec> = {
  services: { name: 'service-ips', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' },
  firewall: { name: 'firewall-allow', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'ipv4_addr'], interval: true },
  cidrs: { name: 'cidr-map', key: ['ipv4_addr'], interval: true, map: 'verdict' },
  timed: { name: 'timed', key: ['ipv4_addr'], timeout: true },
  endpoints: { name: 'endpoints', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'],
    typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport' },
};

const ip = (i: number, a = 10) => `${a}.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const VERDICTS = ['goto', 'jump', 'drop', 'accept'] as const;

function verdictOf(i: number): Element['verdict'] {
  const kind = VERDICTS[i % VERDICTS.length];
  return kind === 'goto' || kind === 'jump' ? { kind, chain: CHAINS[i % CHAINS.length] } : { kind };
}

const ELEMENTS: Record<string, (i: number) => Element> = {
  services: (i) => ({ key: [ip(i), i % 3 === 0 ? 'udp' : 'tcp', 1 + (i % 60000)], verdict: verdictOf(i) }),
  firewall: (i) => ({ key: [ip(i, 172), 'tcp', 443, `${ip(i * 256, 11)}/24`] }),
  cidrs: (i) => ({ key: [`${ip(i * 256, 12)}/24`], verdict: verdictOf(i) }),
  timed: (i) => (i % 2 === 0 ? { key: [ip(i)], timeoutSeconds: 600 + i } : { key: [ip(i)] }),
  endpoints: (i) => ({ key: [ip(i >> 1), 'tcp', 80, i & 1], data: [ip(i, 192), 8080] }),
};
// Enough elements that every op takes several messages (each holds under 60,000 bytes of them).
const COUNT: Record<string, number> = { services: 3000, firewall: 1500, cidrs: 1500, timed: 6000, endpoints: 6000 };

function elementsOf(set: string, indexes: number[]): Element[] {
  return indexes.map((i) => ELEMENTS[set](i));
}

function fill(): Transaction {
  const tx = new Transaction().addTable('ip', T);
  for (const c of CHAINS) tx.addChain('ip', T, { name: c });
  for (const [k, s] of Object.entries(SETS)) {
    tx.addSet('ip', T, s);
    tx.addElements('ip', T, s.name, elementsOf(k, range(COUNT[k])));
  }
  return tx;
}

/** Deletes two elements in three and adds a third as many new ones, per set: split deletes and adds. */
function churn(): Transaction {
  const tx = new Transaction();
  for (const [k, s] of Object.entries(SETS)) {
    tx.declareSet('ip', T, s);
    tx.deleteElements('ip', T, s.name, elementsOf(k, range(COUNT[k]).filter((i) => i % 3 !== 0)));
    tx.addElements('ip', T, s.name, elementsOf(k, range(COUNT[k] / 3).map((i) => COUNT[k] + i)));
  }
  return tx;
}

test('split element ops of every shape: netlink commit and nft -f list identically, after adds and deletes', async () => {
  await withNetns(async (viaNetlink) => {
    await withNetns(async (viaNft) => {
      const nft = Nft.open({ netns: viaNetlink.path });
      try {
        for (const tx of [fill(), churn()]) {
          const stats = await nft.commit(tx);
          // One message per op and the batch's two markers, plus at least one more per set: split ops.
          const extra = stats.messages - 2 - tx.opCount;
          assert.ok(extra >= Object.keys(SETS).length, `element ops are split (${stats.messages} messages, ${tx.opCount} ops)`);
          viaNft.exec('nft', ['-f', '-'], tx.toNftScript());
          const a = normalizeRuleset(viaNetlink.nftJson());
          assert.deepEqual(a, normalizeRuleset(viaNft.nftJson()));
          const sets = objectsOf(a, 'map').concat(objectsOf(a, 'set'));
          assert.equal(sets.length, Object.keys(SETS).length);
          for (const s of sets) assert.ok((s.elem ?? []).length >= 1000, `${s.name} holds ${(s.elem ?? []).length} elements`);
        }
      } finally {
        nft.close();
      }
    });
  });
});

test('a refused element deep in a split op is named by its index in the op and its key', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      await nft.commit(fill());
      const before = ns.nft('-j', 'list', 'ruleset');
      // Element 2,500 of 3,000 (in the op's fifth message or later) jumps to a chain that does not exist.
      const bad = 2500;
      const elements = elementsOf('services', range(3000).map((i) => 100_000 + i));
      elements[bad] = { ...elements[bad], verdict: { kind: 'jump', chain: 'no-such-chain' } };
      const tx = new Transaction().declareSet('ip', T, SETS.services).addElements('ip', T, SETS.services.name, elements);
      await assert.rejects(nft.commit(tx), (e: unknown) => {
        assert.ok(e instanceof NetlinkError, String(e));
        assert.equal(e.opIndex, 0);
        assert.equal(e.code, 'ENOENT');
        // 10.1.144.100 . tcp . 42501 (ip(102500); 102500 % 3 is 2; 1 + 102500 % 60000), each part padded to 4 bytes
        assert.match(e.extack ?? '', /kernel refused element 2500 \(key 0a01906406000000a6050000\)$/);
        return true;
      });
      assert.equal(ns.nft('-j', 'list', 'ruleset'), before);
    } finally {
      nft.close();
    }
  });
});
