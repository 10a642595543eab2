// NftablesProxier on the fake kernel (no root): full sync, partial sync equal to a fresh full one,
// removal, start-up adoption, a Service the kernel refuses, drift repaired by a full sync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rule, Transaction } from '../../../src/native';
import { serviceChainNames } from '../../../src/proxier/nftables/names';
import { changed, ep, fourServices, snapshot, sp } from './fixtures';
import {
  chainNames, countingMetric, elementsOf, freshFullSync, lastCommit, opsOf, proxierOnFake, ruleset, rulesOf, setNames,
} from './fake-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

const T = 'kube-proxy';
const { svc1, svc2, svc3, svc6, entries: base } = fourServices();

test('full sync programs both families: shared chains, maps and elements; chains only for affinity and firewalls', async () => {
  const { proxier, nft, kernel } = proxierOnFake();
  assert.deepEqual(await proxier.sync(snapshot(base), changed(), true), { full: true, ok: true });
  const chains = chainNames(kernel);
  for (const c of [serviceChainNames(svc3).cluster, serviceChainNames(svc2).firewall,
    'services', 'nat-prerouting', 'masquerading', 'cluster-ip-traffic', 'select-endpoint']) {
    assert.ok(chains.includes(c), `chain ${c} missing`);
  }
  assert.ok(!chains.some((c) => c.includes('/svc1/')), 'a Service without affinity has no chain');
  assert.match(elementsOf(kernel, 'service-ips').join(), /172\.30\.0\.43 . tcp . 80 : goto service-.*ns1\/svc3\/tcp\/p80/);
  assert.match(elementsOf(kernel, 'cluster-ip-ports').join(), /172\.30\.0\.41/);
  assert.equal(elementsOf(kernel, 'endpoints-2').length, 2);
  assert.match(elementsOf(kernel, 'endpoints-2').join(), /10\.180\.0\.2/);
  assert.match(elementsOf(kernel, 'external-ports').join(), /5\.6\.7\.8/);
  assert.match(elementsOf(kernel, 'nodeports').join(), /30080/);
  assert.equal(elementsOf(kernel, 'nodeport-endpoints-2').length, 2);
  assert.match(elementsOf(kernel, 'firewall-ips').join(), /5\.6\.7\.8/);
  assert.equal(elementsOf(kernel, 'cluster-ips').length, 3);
  assert.match(elementsOf(kernel, 'endpoints-1', 'ip6').join(), /fd00:30::41/);
  assert.match(elementsOf(kernel, 'hairpin', 'ip6').join(), /fd00:10::1/);
  assert.deepEqual(await nft.listTables(), [{ family: 'ip', name: T }, { family: 'ip6', name: T }]);
  const maps = [...setNames(kernel).map((n) => `ip ${n}`), ...setNames(kernel, 'ip6').map((n) => `ip6 ${n}`)].filter((n) => /endpoints-/.test(n));
  assert.deepEqual(maps, ['ip endpoints-1', 'ip endpoints-2', 'ip nodeport-endpoints-2', 'ip6 endpoints-1']);
  assert.equal(setNames(kernel).length + setNames(kernel, 'ip6').length - maps.length, 2 * 17, 'fixed sets per family, none per Service');
  assert.equal(nft.commits.length, 1, 'one transaction');
});

test("partial sync after one Service's endpoints change writes only that Service's elements, and equals a fresh full sync", async () => {
  const after: [ServicePort, Endpoint[]][] = base.map(([s, e]) => (s === svc1 ? [s, [ep('10.180.0.2'), ep('10.180.0.3')]] : [s, e]));
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot(base), changed(), true);
  assert.deepEqual(await proxier.sync(snapshot(after), changed(svc1.key), false), { full: false, ok: true });
  const ops = opsOf(lastCommit(nft));
  // endpoints-2 and nodeport-endpoints-2: both slots change (delete + add); hairpin: one out, one in.
  assert.ok(ops.length <= 10, `too many ops:\n${ops.join('\n')}`);
  for (const o of ops) assert.match(o, /^(add|delete) element ip kube-proxy (endpoints-2|nodeport-endpoints-2|hairpin) /, o);
  assert.equal(ruleset(kernel), await freshFullSync(after));
});

test('a change of endpoint count moves the Service to another endpoint map; an unused map and its rule go', async () => {
  const after: [ServicePort, Endpoint[]][] = base.map(([s, e]) => (s === svc2 ? [s, [ep('10.180.1.1', 8080), ep('10.180.1.2', 8080), ep('10.180.1.3', 8080)]] : [s, e]));
  const { proxier, kernel } = proxierOnFake();
  await proxier.sync(snapshot(base), changed(), true);
  assert.equal((await proxier.sync(snapshot(after), changed(svc2.key), false)).ok, true);
  assert.equal(elementsOf(kernel, 'endpoints-3').length, 6, 'ClusterIP and LB IP, three slots each');
  assert.match(rulesOf(kernel, 'select-endpoint').join('\n'), /mod 3 map @endpoints-3/);
  assert.doesNotMatch(rulesOf(kernel, 'select-endpoint').join('\n'), /@endpoints-1/);
  assert.ok(!setNames(kernel).includes('endpoints-1'), 'endpoints-1 is unused and deleted');
  assert.equal(ruleset(kernel), await freshFullSync(after));
  assert.equal((await proxier.sync(snapshot(base), changed(svc2.key), false)).ok, true);
  assert.equal(ruleset(kernel), await freshFullSync(base));
});

test('an unchanged Service costs no commit; a Service change touches its elements only', async () => {
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot(base), changed(), true);
  await proxier.sync(snapshot(base), changed(svc2.key), false);
  assert.equal(nft.commits.length, 1, 'nothing to commit');
  const moved = base.map(([s, e]) => (s === svc2 ? [{ ...s, nodePort: 30099 }, e] : [s, e])) as [ServicePort, Endpoint[]][];
  assert.equal((await proxier.sync(snapshot(moved), changed(svc2.key), false)).ok, true);
  const ops = opsOf(lastCommit(nft));
  assert.ok(ops.every((o) => /30099|nodeport-endpoints-1|select-nodeport-endpoint/.test(o)), ops.join('\n'));
  assert.match(elementsOf(kernel, 'nodeports').join(), /30099/);
  assert.equal(ruleset(kernel), await freshFullSync(moved));
});

test('Service removal deletes its chains and elements', async () => {
  const { proxier, kernel } = proxierOnFake();
  await proxier.sync(snapshot(base), changed(), true);
  const rest = base.filter(([s]) => s !== svc2 && s !== svc6);
  assert.deepEqual(await proxier.sync(snapshot(rest), changed(svc2.key, svc6.key), false), { full: false, ok: true });
  assert.ok(!chainNames(kernel).some((c) => c.includes('/svc2/')));
  assert.ok(!chainNames(kernel, 'ip6').some((c) => c.includes('/svc6/')));
  assert.doesNotMatch(elementsOf(kernel, 'cluster-ip-ports').join() + elementsOf(kernel, 'external-ports').join(), /5\.6\.7\.8|172\.30\.0\.42/);
  assert.deepEqual(elementsOf(kernel, 'firewall-ips'), []);
  assert.equal(elementsOf(kernel, 'cluster-ips').length, 2);
  assert.equal(ruleset(kernel), await freshFullSync(rest));
});

/** What an earlier run may have left: stale chains and sets, a set of another type, a map with other data. */
function leftovers(): Transaction {
  const old = 'service-AAAAAAAA-ns9/old/tcp/p80';
  const oldEp = 'endpoint-BBBBBBBB-ns9/old/tcp/p80__10.9.9.9/80';
  const dispatch = { name: 'service-ips', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' } as const;
  return new Transaction().addTable('ip', T)
    .addChain('ip', T, { name: 'nat-prerouting', base: { type: 'nat', hook: 'prerouting', priority: -90 } })
    .addChain('ip', T, { name: old }).addChain('ip', T, { name: oldEp })
    .addRule('ip', T, old, rule('ip').verdict({ kind: 'goto', chain: oldEp }).build())
    .addSet('ip', T, { name: 'affinity-CCCCCCCC-ns9-old', key: ['ipv4_addr'], timeout: true, dynamic: true, defaultTimeoutSeconds: 10800 })
    .addSet('ip', T, { ...dispatch, key: [...dispatch.key] })
    .addElements('ip', T, 'service-ips', [{ key: ['172.30.9.9', 'tcp', 80], verdict: { kind: 'goto', chain: old } }])
    .addSet('ip', T, { name: 'cluster-ips', key: ['ipv6_addr'] })
    // Same name and key as a map we want, other data: it must be replaced, not written into.
    .addSet('ip', T, { name: 'endpoints-2', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: 'ipv4_addr',
      typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr' })
    .addTable('ip', 'other').addChain('ip', 'other', { name: 'keep' });
}

test('start-up adopts a pre-existing table: stale chains and sets go, no cleanup of other tables, one transaction', async () => {
  const { proxier, nft, kernel } = proxierOnFake();
  await kernel.open().commit(leftovers());
  assert.deepEqual(await proxier.sync(snapshot(base), changed(), false), { full: true, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync(base));
  assert.equal(kernel.listRuleset({ table: 'other' }), 'add table ip other\nadd chain ip other keep\n');
  assert.equal(nft.commits.length, 1);
  assert.deepEqual(nft.dumps, [{ family: 'ip', name: T, elements: false }, { family: 'ip6', name: T, elements: false }],
    'one dump of our table per family, without elements');
});

test('a Service the kernel refuses is left out and reported; the others are programmed', async () => {
  const refusals = countingMetric();
  const { proxier, kernel } = proxierOnFake({ metrics: { refusedServicePorts: refusals } });
  await proxier.sync(snapshot(base), changed(), true);
  const bad = sp('bad', { clusterIP: '172.30.0.50', affinityTimeoutSeconds: 60 });
  const good = sp('good', { clusterIP: '172.30.0.51' });
  // Someone made a base chain with the name our service chain needs: the kernel refuses a goto to it.
  const clash = serviceChainNames(bad).cluster;
  await kernel.open().commit(new Transaction().addChain('ip', T, { name: clash, base: { type: 'filter', hook: 'input', priority: 0 } }));
  const next: [ServicePort, Endpoint[]][] = [...base, [bad, [ep('10.180.9.1')]], [good, [ep('10.180.9.2')]]];
  assert.deepEqual(await proxier.sync(snapshot(next), changed(bad.key, good.key), false), { full: false, ok: true });
  assert.deepEqual([...proxier.refusedServicePorts().keys()], [bad.key]);
  assert.match(proxier.refusedServicePorts().get(bad.key)!, /EOPNOTSUPP/);
  assert.equal(refusals.count, 1);
  assert.match(elementsOf(kernel, 'cluster-ip-ports').join(), /172\.30\.0\.51/);
  assert.doesNotMatch(elementsOf(kernel, 'service-ips').join(), /172\.30\.0\.50/);
  // A full sync retries it, refuses it again, and still programs everything else.
  assert.deepEqual(await proxier.sync(snapshot(next), changed(), true), { full: true, ok: true });
  assert.equal(refusals.count, 2);
  assert.match(elementsOf(kernel, 'cluster-ip-ports').join(), /172\.30\.0\.51/);
});

test('a failed sync is followed by a full sync that repairs the table', async () => {
  const refusals = countingMetric();
  const failures = countingMetric();
  const { proxier, kernel } = proxierOnFake({ metrics: { refusedServicePorts: refusals, syncFailures: failures } });
  await proxier.sync(snapshot(base), changed(), true);
  // Someone deletes one of svc1's endpoint map elements behind our back.
  await kernel.open().commit(new Transaction()
    .declareSet('ip', T, { name: 'endpoints-2', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'] })
    .deleteElements('ip', T, 'endpoints-2', [{ key: ['172.30.0.41', 'tcp', 80, 0] }]));
  const after: [ServicePort, Endpoint[]][] = base.map(([s, e]) => (s === svc1 ? [s, [ep('10.180.0.2')]] : [s, e]));
  const failed = await proxier.sync(snapshot(after), changed(svc1.key), false);
  assert.equal(failed.ok, false);
  assert.match(String(failed.error), /ENOENT/);
  assert.equal(failures.count, 1);
  assert.equal(refusals.count, 0, 'drift is not blamed on the Service');
  assert.deepEqual(await proxier.sync(snapshot(after), changed(), false), { full: true, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync(after));
});

test('a full sync calls beforeElementsCopied once per family with its encoded elements\' size; a partial sync does not', async () => {
  const calls: number[] = [];
  const { proxier, nft } = proxierOnFake({ beforeElementsCopied: (bytes) => calls.push(bytes) });
  assert.deepEqual(await proxier.sync(snapshot(base), changed(), true), { full: true, ok: true });
  assert.equal(calls.length, 2, 'ip, then ip6');
  assert.ok(calls.every((b) => b > 0), `bytes ${calls.join(', ')}`);
  assert.ok(calls[0] + calls[1] < lastCommit(nft).tx.serialize().length, 'the elements are part of the transaction');
  await proxier.sync(snapshot(base.filter(([s]) => s !== svc1)), changed(svc1.key), false);
  assert.equal(nft.commits.length, 2);
  assert.equal(calls.length, 2);
});
