// Start-up on a node an earlier version programmed: its ruleset (per-Service chains, spread over
// shard tables `kube-proxy-svc-NN`) is converted to ours in one transaction, so traffic never
// sees a moment without its Services; other tables are left alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns, type TestNetns } from '../../helpers/netns';
import { Nft } from '../../../src/native';
import { isOurTable } from '../../../src/proxier/nftables/layout';
import { ep, snapshot, sp } from './fixtures';
import { changed, freshFullSync, normalizedRuleset, proxierIn } from './kernel-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const services: [ServicePort, Endpoint[]][] = Array.from({ length: 6 }, (_, i) => [
  sp(`svc${i}`, { key: `ns1/svc${i}:p80/TCP`, clusterIP: `172.30.0.${10 + i}`, nodePort: i % 3 === 0 ? 30000 + i : 0 }),
  [ep(`10.180.${i}.1`), ep(`10.180.${i}.2`)],
]);

const ourTables = (ns: TestNetns, family = 'ip') =>
  ns.nftJson().filter((i) => i.table?.family === family && /^kube-proxy/.test(i.table.name)).map((i) => i.table.name as string).sort();

/** What an earlier version left: per-Service chains in shard tables, each with its nat hook. */
function earlierShardedRuleset(): string {
  const lines = ['add table ip kube-proxy', 'add chain ip kube-proxy filter-input { type filter hook input priority -110; }',
    'add map ip kube-proxy no-endpoint-services { type ipv4_addr . inet_proto . inet_service : verdict; }'];
  for (const shard of ['00', '01', '02']) {
    const t = `kube-proxy-svc-${shard}`;
    lines.push(`add table ip ${t}`, `add chain ip ${t} nat-prerouting { type nat hook prerouting priority -100; }`,
      `add chain ip ${t} services`, `add rule ip ${t} nat-prerouting jump services`,
      `add map ip ${t} service-ips { type ipv4_addr . inet_proto . inet_service : verdict; }`,
      `add rule ip ${t} services ip daddr . meta l4proto . th dport vmap @service-ips`,
      `add chain ip ${t} service-AAAAAAA${shard[1]}-ns1/svc${shard}/tcp/p80`,
      `add element ip ${t} service-ips { 172.30.1.${shard[1]} . tcp . 80 : goto service-AAAAAAA${shard[1]}-ns1/svc${shard}/tcp/p80 }`);
  }
  return lines.join('\n') + '\n';
}

test("start-up converts an earlier version's shard tables into our one table, in one transaction", async () => {
  const expected = await freshFullSync(services);
  await withNetns(async (ns) => {
    ns.exec('nft', ['-f', '-'], earlierShardedRuleset() + 'add table ip other\nadd chain ip other keep\n');
    assert.equal(ourTables(ns).length, 4);
    const { proxier, nft } = proxierIn(ns);
    const commits: number[] = [];
    const commit = nft.commit.bind(nft);
    nft.commit = (tx) => { commits.push(tx.opCount); return commit(tx); };
    try {
      assert.deepEqual(await proxier.sync(snapshot(services), changed(), false), { full: true, ok: true });
      assert.equal(commits.length, 1, 'one atomic transaction: no moment without the Services');
      assert.deepEqual(ourTables(ns), ['kube-proxy']);
      assert.deepEqual(normalizedRuleset(ns), expected);
      assert.match(ns.nft('list', 'table', 'ip', 'other'), /chain keep/);
    } finally { nft.close(); }
  });
});

test('without listTables on the handle, start-up dumps only kube-proxy', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    const dumped: string[] = [];
    const handle = {
      commit: nft.commit.bind(nft),
      dumpTable: (f: 'ip' | 'ip6', t: string, opts?: { elements?: boolean }) => {
        dumped.push(`${f} ${t} elements=${opts?.elements}`);
        return nft.dumpTable(f, t, opts);
      },
    };
    const { proxier, nft: unused } = proxierIn(ns, { nft: handle });
    unused.close();
    try {
      assert.deepEqual(await proxier.sync(snapshot(services), changed(), true), { full: true, ok: true });
      // Only names and kinds are needed: no element is listed (a 50k-Service table holds ~400k).
      assert.deepEqual(dumped, ['ip kube-proxy elements=false', 'ip6 kube-proxy elements=false']);
      assert.deepEqual(await proxier.sync(snapshot(services), changed(), true), { full: true, ok: true });
      assert.equal(dumped.length, 2, 'the start-up dump is done once');
    } finally { nft.close(); }
  });
});

test('tables of ours: kube-proxy and shard tables of earlier versions, nothing else', () => {
  for (const n of ['kube-proxy', 'kube-proxy-svc-00', 'kube-proxy-svc-127']) assert.ok(isOurTable(n), n);
  for (const n of ['kube-proxy-svc-1', 'kube-proxy-svc-x', 'kube-proxy-svcs', 'kube-proxy-svc-0000', 'other']) assert.ok(!isOurTable(n), n);
});
