// Start-up adoption reads the kernel once: one dump of `kube-proxy` per family, without elements;
// it takes over an older layout of our table and our own table of an earlier run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { Nft } from '../../../src/native';
import { ep, snapshot, sp } from './fixtures';
import { changed, freshFullSync, listOurTables, normalizedRuleset, proxierIn } from './kernel-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const services: [ServicePort, Endpoint[]][] = Array.from({ length: 6 }, (_, i) => [
  sp(`svc${i}`, { key: `ns1/svc${i}:p80/TCP`, clusterIP: `172.30.0.${10 + i}`, nodePort: i % 3 === 0 ? 30000 + i : 0 }),
  [ep(`10.180.${i}.1`), ep(`10.180.${i}.2`)],
]);

test('start-up dumps each family\'s kube-proxy table once, without elements', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    const dumped: string[] = [];
    const handle = {
      commit: nft.commit.bind(nft),
      dumpTable: (f: 'ip' | 'ip6', t: string, opts?: { elements?: boolean }) => {
        dumped.push(`${f} ${t} elements=${opts?.elements}`);
        return nft.dumpTable(f, t, opts);
      },
      dumpSet: nft.dumpSet.bind(nft),
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

const large: [ServicePort, Endpoint[]][] = [
  [sp('big', { key: 'ns1/big:p80/TCP', clusterIP: '172.30.0.20', nodePort: 30020 }), Array.from({ length: 9 }, (_, i) => ep(`10.181.0.${i + 1}`))],
  [sp('mid', { key: 'ns1/mid:p80/TCP', clusterIP: '172.30.0.21' }), Array.from({ length: 6 }, (_, i) => ep(`10.181.1.${i + 1}`))],
  ...services,
];

test('an older table of ours, from before the counts\' chains (one select rule per count), is adopted', async () => {
  const expected = await freshFullSync(large);
  await withNetns(async (ns) => {
    // What the previous version programmed for a Service of 6 endpoints: its rule in select-endpoint.
    const slots = Array.from({ length: 6 }, (_, i) => `172.30.0.21 . tcp . 80 . ${i} : 10.181.1.${i + 1} . 80`).join(', ');
    ns.exec('nft', ['-f', '-'], [
      'add table ip kube-proxy',
      'add chain ip kube-proxy nat-output { type nat hook output priority -100; }',
      'add chain ip kube-proxy services',
      'add chain ip kube-proxy cluster-ip-traffic',
      'add chain ip kube-proxy select-endpoint',
      'add set ip kube-proxy cluster-ip-ports { type ipv4_addr . inet_proto . inet_service; }',
      'add map ip kube-proxy endpoints-6 { typeof ip daddr . meta l4proto . th dport . numgen random mod 6 : ip daddr . th dport; }',
      'add map ip kube-proxy endpoints-7 { typeof ip daddr . meta l4proto . th dport . numgen random mod 7 : ip daddr . th dport; }',
      'add rule ip kube-proxy nat-output jump services',
      'add rule ip kube-proxy services ip daddr . meta l4proto . th dport @cluster-ip-ports goto cluster-ip-traffic',
      'add rule ip kube-proxy cluster-ip-traffic goto select-endpoint',
      'add rule ip kube-proxy select-endpoint dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 6 map @endpoints-6',
      'add rule ip kube-proxy select-endpoint dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 7 map @endpoints-7',
      'add element ip kube-proxy cluster-ip-ports { 172.30.0.21 . tcp . 80 }',
      `add element ip kube-proxy endpoints-6 { ${slots} }`,
    ].join('\n') + '\n');
    const { proxier, nft } = proxierIn(ns);
    try {
      assert.deepEqual(await proxier.sync(snapshot(large), changed(), false), { full: true, ok: true });
      assert.deepEqual(normalizedRuleset(ns), expected);
    } finally { nft.close(); }
  });
});

test('the previous release\'s table (checks in filter input and after DNAT) is adopted: its extra base chains go', async () => {
  const expected = await freshFullSync(services);
  await withNetns(async (ns) => {
    // What the previous release hooked in where this one has nothing: the checks after DNAT.
    ns.exec('nft', ['-f', '-'], [
      'add table ip kube-proxy',
      'add chain ip kube-proxy service-endpoints-check',
      'add chain ip kube-proxy nodeport-endpoints-check',
      'add chain ip kube-proxy cluster-ips-check',
      'add set ip kube-proxy no-endpoint-services { type ipv4_addr . inet_proto . inet_service; }',
      'add set ip kube-proxy cluster-ips { type ipv4_addr; }',
      'add chain ip kube-proxy filter-input { type filter hook input priority -110; }',
      'add chain ip kube-proxy filter-output-post-dnat { type filter hook output priority -90; }',
      'add rule ip kube-proxy filter-input ct state new jump nodeport-endpoints-check',
      'add rule ip kube-proxy filter-input ct state new jump service-endpoints-check',
      'add rule ip kube-proxy filter-output-post-dnat ct state new jump cluster-ips-check',
      'add rule ip kube-proxy service-endpoints-check ip daddr . meta l4proto . th dport @no-endpoint-services drop',
      'add rule ip kube-proxy cluster-ips-check ip daddr @cluster-ips reject',
      'add element ip kube-proxy no-endpoint-services { 172.30.0.10 . tcp . 80 }',
    ].join('\n') + '\n');
    const { proxier, nft } = proxierIn(ns);
    try {
      assert.deepEqual(await proxier.sync(snapshot(services), changed(), false), { full: true, ok: true });
      assert.deepEqual(normalizedRuleset(ns), expected);
      const listed = ns.nft('list', 'table', 'ip', 'kube-proxy');
      assert.doesNotMatch(listed, /filter-input|filter-output-post-dnat|hook input/);
    } finally { nft.close(); }
  });
});

test('a restart adopts our own table with counts\' chains the new snapshot no longer has', async () => {
  const smaller = large.map(([s, e]): [ServicePort, Endpoint[]] => [s, e.slice(0, 5)]);
  const expected = await freshFullSync(smaller);
  await withNetns(async (ns) => {
    const first = proxierIn(ns);
    try {
      assert.deepEqual(await first.proxier.sync(snapshot(large), changed(), true), { full: true, ok: true });
      assert.match(listOurTables(ns), /chain select-nodeport-endpoint-9 /);
    } finally { first.nft.close(); }
    const { proxier, nft } = proxierIn(ns);
    try {
      assert.deepEqual(await proxier.sync(snapshot(smaller), changed(), false), { full: true, ok: true });
      assert.deepEqual(normalizedRuleset(ns), expected);
      assert.doesNotMatch(listOurTables(ns), /select-(nodeport-)?endpoint-(6|9)/);
    } finally { nft.close(); }
  });
});
