// Where objects live when Services are sharded over several tables (pure, no kernel).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileBase } from '../../../src/proxier/nftables/compile-base';
import { compileService } from '../../../src/proxier/nftables/compile-service';
import { isOurTable, shardOf, shardTable, shardTableName, tablesOf } from '../../../src/proxier/nftables/layout';
import { renderDesiredScript } from '../../../src/proxier/nftables/render-script';
import { ctx, ep, selected, sp } from './fixtures';

test('shard assignment is a pure function of namespace/name: stable across processes and versions', () => {
  // Pinned: changing the hash would move every Service at the next upgrade (a full resync, no gap,
  // but affinity records of moved Services are lost).
  assert.equal(shardOf({ shards: 64 }, 'ns1', 'svc1'), 18);
  assert.equal(shardOf({ shards: 64 }, 'kube-system', 'kube-dns'), 58);
  assert.equal(shardOf({ shards: 7 }, 'default', 'kubernetes'), 6);
  assert.equal(shardOf({ shards: 1 }, 'ns1', 'svc1'), 0);
  const counts = new Array(16).fill(0);
  for (let i = 0; i < 1600; i++) counts[shardOf({ shards: 16 }, `ns${i % 7}`, `svc${i}`)]++;
  assert.ok(Math.min(...counts) > 50 && Math.max(...counts) < 150, `uneven: ${counts}`);
});

test('table names: the main table, then kube-proxy-svc-NN; only those are ours', () => {
  assert.deepEqual(tablesOf({ shards: 1 }), ['kube-proxy']);
  assert.deepEqual(tablesOf({ shards: 3 }), ['kube-proxy', 'kube-proxy-svc-00', 'kube-proxy-svc-01', 'kube-proxy-svc-02']);
  assert.equal(shardTableName(255), 'kube-proxy-svc-255');
  assert.equal(shardTable({ shards: 1 }, 0), 'kube-proxy');
  for (const n of ['kube-proxy', 'kube-proxy-svc-00', 'kube-proxy-svc-127']) assert.ok(isOurTable(n), n);
  for (const n of ['kube-proxy-svc-1', 'kube-proxy-svc-x', 'kube-proxy-svcs', 'kube-proxy-svc-0000', 'other']) assert.ok(!isOurTable(n), n);
});

test('sharded base: filter side, no-endpoint and firewall maps in the main table; nat dispatch per shard', () => {
  const c = ctx({ nodePortAddresses: ['192.168.0.0/24'] });
  const base = compileBase(c, { shards: 2 });
  const where = (name: string) => base.chains.filter((ch) => ch.name === name).map((ch) => ch.table);
  for (const name of ['filter-prerouting', 'filter-input', 'filter-forward', 'filter-output', 'filter-output-post-dnat',
    'nat-postrouting', 'masquerading', 'reject-chain', 'cluster-ips-check', 'firewall-check', 'service-endpoints-check']) {
    assert.deepEqual(where(name), ['kube-proxy'], name);
  }
  for (const name of ['nat-prerouting', 'nat-output', 'services', 'mark-for-masquerade']) {
    assert.deepEqual(where(name), ['kube-proxy-svc-00', 'kube-proxy-svc-01'], name);
  }
  const sets = (t: string) => base.sets.filter((s) => s.table === t).map((s) => s.name).sort();
  assert.deepEqual(sets('kube-proxy'), ['cluster-ips', 'firewall-ips', 'no-endpoint-nodeports', 'no-endpoint-services', 'nodeport-ips']);
  assert.deepEqual(sets('kube-proxy-svc-01'), ['affinity', 'nodeport-ips', 'service-ips', 'service-nodeports']);
  assert.deepEqual(base.elements.map((e) => `${e.table} ${e.set} ${e.key}`).sort(),
    ['kube-proxy nodeport-ips 192.168.0.0/24', 'kube-proxy-svc-00 nodeport-ips 192.168.0.0/24', 'kube-proxy-svc-01 nodeport-ips 192.168.0.0/24']);
  // Same priority as upstream on every shard: dispatch order between shards cannot matter.
  assert.deepEqual(base.chains.filter((ch) => ch.name === 'nat-prerouting').map((ch) => ch.base?.priority), [-100, -100]);
});

test("a Service's chains go to its shard, its firewall chain and non-dispatch elements to the main table", () => {
  const c = ctx();
  const s = sp('svc1', { nodePort: 30080, loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24'] });
  const obj = compileService(s, selected([ep('10.180.0.1')]), c, 'kube-proxy-svc-05');
  for (const ch of obj.chains) assert.equal(ch.table, ch.name.startsWith('firewall-') ? 'kube-proxy' : 'kube-proxy-svc-05', ch.name);
  assert.ok(obj.chains.some((ch) => ch.name.startsWith('firewall-')));
  const els = obj.elements.map((e) => `${e.table} ${e.set}`).sort();
  assert.deepEqual(els, ['kube-proxy cluster-ips', 'kube-proxy firewall-ips',
    'kube-proxy-svc-05 service-ips', 'kube-proxy-svc-05 service-ips', 'kube-proxy-svc-05 service-nodeports']);
  const script = renderDesiredScript(compileBase(c, { shards: 8 }), [obj]);
  assert.ok(script.includes('add element ip kube-proxy-svc-05 service-nodeports { tcp . 30080 : goto external-'), script);
  assert.ok(script.includes('add rule ip kube-proxy-svc-05 services meta l4proto . th dport @service-nodeports ip daddr != 127.0.0.0/8 fib daddr type local meta l4proto . th dport vmap @service-nodeports'));
});

test("one shard (the default argument) is upstream's single table", () => {
  const c = ctx();
  const base = compileBase(c);
  assert.deepEqual(base.tables, ['kube-proxy']);
  assert.ok(base.chains.every((ch) => ch.table === 'kube-proxy'));
  assert.equal(base.sets.length, 7);
  const services = base.chains.find((ch) => ch.name === 'services')!;
  assert.ok(services.rules.every((r) => r[0].op !== 'keyInMap'), 'no port guard: exactly the old rule');
});
