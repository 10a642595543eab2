// Edge cases of NftablesProxier on the fake kernel (no root): a refused element in a batched full
// sync, a ServicePort that fails validation, context changes that force a full sync, dual-stack
// moves, periodic full syncs, concurrent syncs, an injected refusal of one ServicePort's op.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../../src/native';
import { serviceChainNames } from '../../../src/proxier/nftables/names';
import { changed, ep, node, snapshot, sp } from './fixtures';
import { chainNames, elementsOf, proxierOnFake, ruleset, rulesOf } from './fake-helpers';

const T = 'kube-proxy';

test('full sync: a refused element inside a batched op is traced to its ServicePort and left out', async () => {
  // IPv6 session affinity: chains of its own (affinity-chains.ts).
  const bad = sp('bad', { key: 'ns1/bad:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::50', affinityTimeoutSeconds: 60 });
  const { proxier, kernel } = proxierOnFake();
  // A base chain where bad's service chain should be: the kernel refuses `goto` to a base chain,
  // and only bad's service-ips element points there.
  await kernel.open().commit(new Transaction().addTable('ip6', T)
    .addChain('ip6', T, { name: serviceChainNames(bad).cluster, base: { type: 'filter', hook: 'input', priority: 0 } }));
  const snap = snapshot([[sp('svc1'), [ep('10.180.0.1')]], [bad, [ep('fd00:10::9:1')]], [sp('svc3', { clusterIP: '172.30.0.43' }), [ep('10.180.2.1')]]]);
  assert.deepEqual(await proxier.sync(snap, changed(), true), { full: true, ok: true });
  assert.deepEqual([...proxier.refusedServicePorts().keys()], [bad.key]);
  const ips = elementsOf(kernel, 'cluster-ip-ports').join();
  assert.match(ips, /172\.30\.0\.41/);
  assert.match(ips, /172\.30\.0\.43/);
  assert.doesNotMatch(elementsOf(kernel, 'service-ips', 'ip6').join() + elementsOf(kernel, 'cluster-ips', 'ip6').join(), /fd00:30::50/);
  // The clashing chain was in the start-up dump and is not wanted: it is gone.
  assert.ok(!chainNames(kernel, 'ip6').includes(serviceChainNames(bad).cluster));
});

test('a ServicePort that fails validation is reported with the field and does not block others', async () => {
  const warnings: string[] = [];
  const log = { debug() {}, info() {}, error() {}, warn: (o: object, m: string) => warnings.push(`${m} ${JSON.stringify(o)}`) };
  const { proxier, kernel } = proxierOnFake({ log });
  const bad = sp('bad', { clusterIP: 'fd00::50' });
  const snap = snapshot([[sp('svc1'), [ep('10.180.0.1')]], [bad, [ep('10.180.9.1')]]]);
  assert.deepEqual(await proxier.sync(snap, changed(), true), { full: true, ok: true });
  assert.match(proxier.refusedServicePorts().get(bad.key)!, /clusterIP: "fd00::50" is not an address of family ip/);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /ns1\/bad/);
  assert.match(elementsOf(kernel, 'cluster-ip-ports').join(), /172\.30\.0\.41/);
  // Fixed in a later partial sync: programmed and no longer reported.
  const fixed = snapshot([[sp('svc1'), [ep('10.180.0.1')]], [{ ...bad, clusterIP: '172.30.0.50' }, [ep('10.180.9.1')]]]);
  assert.deepEqual(await proxier.sync(fixed, changed(bad.key), false), { full: false, ok: true });
  assert.equal(proxier.refusedServicePorts().size, 0);
  assert.match(elementsOf(kernel, 'cluster-ip-ports').join(), /172\.30\.0\.50/);
});

test('a change of the node (podCIDRs under NodeCIDR) turns a partial sync into a full one', async () => {
  const { proxier, kernel } = proxierOnFake({ localDetector: { mode: 'NodeCIDR', cidrs: [] } });
  const entries: Parameters<typeof snapshot>[0] = [[sp('svc1'), [ep('10.180.0.1')]]];
  await proxier.sync(snapshot(entries), changed(), true);
  assert.ok(rulesOf(kernel, 'cluster-ip-traffic').includes('ip saddr != 10.0.1.0/24 jump mark-for-masquerade'));
  const moved = { ...node, podCIDRs: ['10.0.7.0/24'] };
  assert.deepEqual(await proxier.sync(snapshot(entries, moved), changed(), false), { full: true, ok: true });
  assert.ok(rulesOf(kernel, 'cluster-ip-traffic').includes('ip saddr != 10.0.7.0/24 jump mark-for-masquerade'));
  assert.doesNotMatch(rulesOf(kernel, 'cluster-ip-traffic').join('\n'), /10\.0\.1\.0/);
});

test('a ServicePort that moves family leaves one table and enters the other', async () => {
  const { proxier, kernel } = proxierOnFake();
  const v4 = sp('svc1');
  await proxier.sync(snapshot([[v4, [ep('10.180.0.1')]]]), changed(), true);
  const v6 = { ...v4, family: 'IPv6' as const, clusterIP: 'fd00:30::41' };
  assert.deepEqual(await proxier.sync(snapshot([[v6, [ep('fd00:10::1')]]]), changed(v4.key), false), { full: false, ok: true });
  assert.deepEqual(elementsOf(kernel, 'cluster-ip-ports', 'ip'), []);
  assert.match(elementsOf(kernel, 'cluster-ip-ports', 'ip6').join(), /fd00:30::41/);
  assert.match(elementsOf(kernel, 'endpoints-1', 'ip6').join(), /fd00:10::1/);
  assert.deepEqual(elementsOf(kernel, 'cluster-ips', 'ip'), []);
  assert.deepEqual(elementsOf(kernel, 'hairpin', 'ip'), []);
});

test('periodic full syncs of an unchanged cluster leave the same ruleset', async () => {
  const { proxier, nft, kernel } = proxierOnFake({ nodePortAddresses: ['192.168.0.0/24', 'primary'], serviceCIDRs: ['172.30.0.0/16'] });
  const snap = snapshot([[sp('svc1', { nodePort: 30080 }), [ep('10.180.0.1')]], [sp('aff', { clusterIP: '172.30.0.44', affinityTimeoutSeconds: 60 }), [ep('10.180.4.1')]]]);
  assert.deepEqual(await proxier.sync(snap, changed(), true), { full: true, ok: true });
  const first = ruleset(kernel);
  assert.deepEqual(elementsOf(kernel, 'nodeport-ips'), ['192.168.0.0/24']);
  nft.dumps.length = 0;  // the first sync's start-up adoption looked at both families
  assert.deepEqual(await proxier.sync(snap, changed(), true), { full: true, ok: true });
  assert.equal(ruleset(kernel), first);
  assert.equal(nft.commits.length, 2);
  assert.deepEqual(nft.dumps, [], 'a periodic full sync trusts its mirror: it reads nothing back');
});

test('syncs started together run one after the other', async () => {
  const { proxier, nft, kernel } = proxierOnFake();
  const one = snapshot([[sp('svc1'), [ep('10.180.0.1')]]]);
  const two = snapshot([[sp('svc1'), [ep('10.180.0.1')]], [sp('svc2', { clusterIP: '172.30.0.42' }), [ep('10.180.1.1')]]]);
  const [a, b] = await Promise.all([proxier.sync(one, changed(), true), proxier.sync(two, changed(sp('svc2').key), false)]);
  assert.deepEqual([a, b], [{ full: true, ok: true }, { full: false, ok: true }]);
  assert.equal(elementsOf(kernel, 'cluster-ip-ports').length, 2);
  assert.equal(nft.commits.length, 2);
});

test("an op the kernel refuses in a partial sync is blamed on its ServicePort, which keeps its previous rules", async () => {
  const { proxier, nft, kernel } = proxierOnFake();
  const svc1 = sp('svc1');
  const svc2 = sp('svc2', { clusterIP: '172.30.0.42' });
  await proxier.sync(snapshot([[svc1, [ep('10.180.0.1')]], [svc2, [ep('10.180.1.1')]]]), changed(), true);
  const before = ruleset(kernel);
  nft.inject({ errno: 'ENOMEM', at: /^add element ip kube-proxy endpoints-1 .*10\.180\.1\.9/ });
  const next = snapshot([[svc1, [ep('10.180.0.1')]], [svc2, [ep('10.180.1.9')]]]);
  assert.deepEqual(await proxier.sync(next, changed(svc2.key), false), { full: false, ok: true });
  assert.match(proxier.refusedServicePorts().get(svc2.key)!, /ENOMEM/);
  assert.equal(ruleset(kernel), before, 'the retry left svc2 as the kernel last accepted it');
  assert.deepEqual(nft.commits.map((c) => c.error?.code ?? 'ok'), ['ok', 'ENOMEM'], 'nothing left to commit on the retry');
});
