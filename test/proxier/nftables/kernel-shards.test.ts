// The sharded layout on a real kernel: Services spread over shard tables, a partial sync touching
// one shard (plus element changes in the main table), conversion to and from the single-table
// layout and between shard counts in one transaction at start-up, and K = 1 as upstream's layout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns, type TestNetns } from '../../helpers/netns';
import { Nft } from '../../../src/native';
import { serviceChainNames } from '../../../src/proxier/nftables/names';
import { shardTableName } from '../../../src/proxier/nftables/layout';
import { ep, snapshot, sp } from './fixtures';
import { changed, chainNames, elementsOf, normalizedRuleset, proxierIn, tableOf } from './kernel-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const services: [ServicePort, Endpoint[]][] = Array.from({ length: 12 }, (_, i) => [
  sp(`svc${i}`, { key: `ns1/svc${i}:p80/TCP`, clusterIP: `172.30.0.${10 + i}`, nodePort: i % 3 === 0 ? 30000 + i : 0 }),
  [ep(`10.180.${i}.1`), ep(`10.180.${i}.2`)],
]);

const ourTables = (ns: TestNetns, family = 'ip') =>
  ns.nftJson().filter((i) => i.table?.family === family && /^kube-proxy/.test(i.table.name)).map((i) => i.table.name as string).sort();

/** The ruleset a fresh process with this shard count programs for `entries`. */
async function fresh(entries: [ServicePort, Endpoint[]][], shards: number) {
  return withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns, { serviceShards: shards });
    try {
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), true), { full: true, ok: true });
      return normalizedRuleset(ns);
    } finally { nft.close(); }
  });
}

function opsOf(tx: { opCount: number; describe(i: number): string }): string[] {
  return Array.from({ length: tx.opCount }, (_, i) => tx.describe(i));
}

test('Services are spread over the shard tables; each shard dispatches only its own Services', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns, { serviceShards: 4 });
    try {
      assert.deepEqual(await proxier.sync(snapshot(services), changed(), true), { full: true, ok: true });
      assert.deepEqual(ourTables(ns), ['kube-proxy', ...[0, 1, 2, 3].map(shardTableName)]);
      const used = new Set(services.map(([s]) => tableOf(s, 4)));
      assert.ok(used.size > 1, 'twelve Services land in more than one shard');
      for (const [s] of services) {
        const t = tableOf(s, 4);
        const text = ns.nft('list', 'table', 'ip', t);
        assert.match(text, new RegExp(`${s.clusterIP.replaceAll('.', '\\.')} \\. tcp \\. 80 : goto ${serviceChainNames(s).cluster}`));
        assert.ok(text.includes(`chain ${serviceChainNames(s).cluster} {`));
      }
      const shard = ns.nft('list', 'table', 'ip', shardTableName(0));
      assert.match(shard, /type nat hook prerouting priority dstnat; policy accept;/);
      assert.match(shard, /meta l4proto \. th dport @service-nodeports ip daddr != 127\.0\.0\.0\/8 fib daddr type local meta l4proto \. th dport vmap @service-nodeports/);
      assert.match(shard, /chain mark-for-masquerade/);
      const main = ns.nft('list', 'table', 'ip', 'kube-proxy');
      assert.doesNotMatch(main, /chain (services|nat-prerouting|nat-output|service-[A-Z2-7]{8}-)/);
      assert.match(main, /chain masquerading/);
      assert.equal(elementsOf(ns, 'cluster-ips').length, 12);
      assert.equal(elementsOf(ns, 'service-ips').length, 12);
    } finally { nft.close(); }
  });
});

test("a partial sync touches one shard table, and only the main table's elements", async () => {
  const none = services.map(([s, e]): [ServicePort, Endpoint[]] => (s.name === 'svc3' ? [s, []] : [s, e]));
  const expected = await fresh(none, 4);
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns, { serviceShards: 4 });
    try {
      await proxier.sync(snapshot(services), changed(), true);
      const svc3 = services[3][0];
      // svc3 loses its endpoints: its chains go, its service-ips/service-nodeports elements move
      // to the main table's no-endpoint maps.
      assert.deepEqual(await proxier.sync(snapshot(none), changed(svc3.key), false), { full: false, ok: true });
      const ops = opsOf(proxier.lastTransaction!);
      const shard = tableOf(svc3, 4);
      const tables = new Set(ops.map((o) => o.split(' ')[3]));
      assert.deepEqual([...tables].sort(), ['kube-proxy', shard].sort(), ops.join('\n'));
      for (const o of ops.filter((o) => o.split(' ')[3] === 'kube-proxy')) assert.match(o, /^(add|delete) element /, o);
      assert.ok(ops.some((o) => o.startsWith('add element ip kube-proxy no-endpoint-services')), ops.join('\n'));
      assert.deepEqual(normalizedRuleset(ns), expected);
    } finally { nft.close(); }
  });
});

test('start-up converts the single-table layout into shards in one transaction', async () => {
  const expected = await fresh(services, 4);
  await withNetns(async (ns) => {
    const old = proxierIn(ns, { serviceShards: 1 });
    try {
      assert.equal((await old.proxier.sync(snapshot(services), changed(), true)).ok, true);
    } finally { old.nft.close(); }
    assert.deepEqual(ourTables(ns), ['kube-proxy']);
    assert.ok(chainNames(ns).includes(serviceChainNames(services[0][0]).cluster));
    const { proxier, nft } = proxierIn(ns, { serviceShards: 4 });
    const commits: number[] = [];
    const commit = nft.commit.bind(nft);
    nft.commit = (tx) => { commits.push(tx.opCount); return commit(tx); };
    try {
      assert.deepEqual(await proxier.sync(snapshot(services), changed(), false), { full: true, ok: true });
      assert.equal(commits.length, 1, 'one atomic transaction: no moment without the Services');
      assert.deepEqual(normalizedRuleset(ns), expected);
    } finally { nft.close(); }
  });
});

test('start-up converts between shard counts and back to the single table', async () => {
  const [expected2, expected1] = [await fresh(services, 2), await fresh(services, 1)];
  await withNetns(async (ns) => {
    const run = async (shards: number) => {
      const { proxier, nft } = proxierIn(ns, { serviceShards: shards });
      try { assert.deepEqual(await proxier.sync(snapshot(services), changed(), true), { full: true, ok: true }); } finally { nft.close(); }
    };
    await run(6);
    assert.equal(ourTables(ns).length, 7);
    await run(2);
    assert.deepEqual(ourTables(ns), ['kube-proxy', shardTableName(0), shardTableName(1)]);
    assert.deepEqual(normalizedRuleset(ns), expected2);
    await run(1);
    assert.deepEqual(ourTables(ns), ['kube-proxy']);
    assert.deepEqual(normalizedRuleset(ns), expected1);
    assert.deepEqual(ourTables(ns, 'ip6'), ['kube-proxy']);
  });
});

test("serviceShards 1 is upstream's layout: one table, seven sets, nat chains in it", async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns, { serviceShards: 1 });
    try {
      await proxier.sync(snapshot(services), changed(), true);
      assert.deepEqual(ourTables(ns), ['kube-proxy']);
      const sets = ns.nftJson().filter((i) => (i.set ?? i.map)?.table === 'kube-proxy' && (i.set ?? i.map).family === 'ip').length;
      assert.equal(sets, 7);
      const main = ns.nft('list', 'table', 'ip', 'kube-proxy');
      assert.match(main, /chain nat-prerouting \{\n\s+type nat hook prerouting priority dstnat; policy accept;\n\s+jump services/);
      assert.match(main, /\n\s+ip daddr != 127\.0\.0\.0\/8 fib daddr type local meta l4proto \. th dport vmap @service-nodeports/);
    } finally { nft.close(); }
  });
});

test('without listTables on the handle, start-up dumps every table name of its layout', async () => {
  await withNetns(async (ns) => {
    const old = proxierIn(ns, { serviceShards: 1 });
    try { await old.proxier.sync(snapshot(services), changed(), true); } finally { old.nft.close(); }
    const nft = Nft.open({ netns: ns.path });
    const dumped: string[] = [];
    const handle = {
      commit: nft.commit.bind(nft),
      dumpTable: (f: 'ip' | 'ip6', t: string) => { dumped.push(`${f} ${t}`); return nft.dumpTable(f, t); },
    };
    const { proxier, nft: unused } = proxierIn(ns, { serviceShards: 3, nft: handle });
    unused.close();
    try {
      assert.deepEqual(await proxier.sync(snapshot(services), changed(), true), { full: true, ok: true });
      assert.deepEqual(dumped.filter((d) => d.startsWith('ip ')), ['ip kube-proxy', ...[0, 1, 2].map((i) => `ip ${shardTableName(i)}`)]);
      assert.doesNotMatch(ns.nft('list', 'table', 'ip', 'kube-proxy'), /chain service-[A-Z2-7]{8}-/);
      assert.equal(ourTables(ns).length, 4);
    } finally { nft.close(); }
  });
});
