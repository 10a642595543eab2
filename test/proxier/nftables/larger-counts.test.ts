// Endpoint counts above SELECT_RULES_MAX on the fake kernel: a destination's element in its family's
// verdict map sends it to its count's chain; partial syncs replace that element when the count
// changes, and add or remove a count's map, chain and rule as counts come and go, each time ending
// where a fresh full sync would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import { changed, ep, snapshot, sp } from './fixtures';
import { chainNames, elementsOf, freshFullSync, lastCommit, opsOf, proxierOnFake, ruleset, rulesOf, setNames } from './fake-helpers';

type Entries = [ServicePort, Endpoint[]][];

const big = sp('big', { nodePort: 30080 });
const small = sp('small', { clusterIP: '172.30.0.42' });
const eps = (n: number, third = 0): Endpoint[] => Array.from({ length: n }, (_, i) => ep(`10.180.${third}.${i + 1}`));
const cluster = (n: number): Entries => [[big, eps(n)], [small, eps(2, 1)]];

test('a Service with 6 endpoints: its ClusterIP and NodePort go to the chains of count 6', async () => {
  const { proxier, kernel } = proxierOnFake();
  assert.deepEqual(await proxier.sync(snapshot(cluster(6)), changed(), true), { full: true, ok: true });
  assert.deepEqual(elementsOf(kernel, 'endpoint-chains'), ['172.30.0.41 . tcp . 80 : goto select-endpoint-6']);
  assert.deepEqual(elementsOf(kernel, 'nodeport-endpoint-chains'), ['tcp . 30080 : goto select-nodeport-endpoint-6']);
  assert.deepEqual(rulesOf(kernel, 'select-endpoint-6'), ['dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 6 map @endpoints-6']);
  assert.deepEqual(rulesOf(kernel, 'select-endpoint'), [
    'ip daddr . meta l4proto . th dport vmap @endpoint-chains',
    'dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 2 map @endpoints-2',
  ]);
  assert.equal(elementsOf(kernel, 'endpoints-6').length, 6);
  assert.deepEqual(elementsOf(kernel, 'endpoint-chains', 'ip6'), []);
});

test('a count walking across SELECT_RULES_MAX both ways and between larger counts: each partial sync equals a fresh full sync', async () => {
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot(cluster(3)), changed(), true);
  for (const n of [5, 6, 9, 4, 7, 1, 8]) {
    assert.deepEqual(await proxier.sync(snapshot(cluster(n)), changed(big.key), false), { full: false, ok: true }, `to ${n} endpoints`);
    assert.equal(ruleset(kernel), await freshFullSync(cluster(n)), `to ${n} endpoints`);
    const counts = chainNames(kernel).filter((c) => /^select-endpoint-\d+$/.test(c));
    assert.deepEqual(counts, n > 4 ? [`select-endpoint-${n}`] : [], `to ${n} endpoints: only the chain of the count in use`);
    assert.deepEqual(setNames(kernel).filter((s) => /^endpoints-/.test(s)).sort(), [...new Set([`endpoints-${n}`, 'endpoints-2'])].sort());
  }
  assert.equal(nft.commits.length, 8, 'one transaction per sync');
});

test('6 -> 9 endpoints: the element is replaced in one transaction, the new chain before it, the old chain after', async () => {
  const { proxier, nft } = proxierOnFake();
  await proxier.sync(snapshot(cluster(6)), changed(), true);
  await proxier.sync(snapshot(cluster(9)), changed(big.key), false);
  const ops = opsOf(lastCommit(nft));
  const at = (re: RegExp) => {
    const i = ops.findIndex((o) => re.test(o));
    assert.ok(i >= 0, `no op ${re} in:\n${ops.join('\n')}`);
    return i;
  };
  const addChain = at(/^add chain ip kube-proxy select-endpoint-9$/);
  const addRule = at(/^add rule ip kube-proxy select-endpoint-9 dnat .* mod 9 map @endpoints-9$/);
  const delElement = at(/^delete element ip kube-proxy endpoint-chains \{ 172\.30\.0\.41 \. tcp \. 80( : goto select-endpoint-6)? \}$/);
  const addElement = at(/^add element ip kube-proxy endpoint-chains \{ 172\.30\.0\.41 \. tcp \. 80 : goto select-endpoint-9 \}$/);
  const flushOld = at(/^flush chain ip kube-proxy select-endpoint-6$/);
  const delOld = at(/^delete chain ip kube-proxy select-endpoint-6$/);
  const delMap = at(/^delete map ip kube-proxy endpoints-6$/);
  assert.ok(addChain < addRule && addRule < addElement, ops.join('\n'));
  assert.ok(delElement < addElement && flushOld < delOld && delElement < delOld && delOld < delMap, ops.join('\n'));
  // The select chain itself is not touched: its rules serve counts 1..4 only.
  assert.ok(!ops.some((o) => /select-endpoint /.test(o) || /select-endpoint$/.test(o)), ops.join('\n'));
});

test('one endpoint of a 6-endpoint Service replaced: map slots only, no verdict-map element, no chain', async () => {
  const { proxier, nft, kernel } = proxierOnFake();
  const before = cluster(6);
  const after: Entries = [[big, [...eps(5), ep('10.180.0.99')]], [small, eps(2, 1)]];
  await proxier.sync(snapshot(before), changed(), true);
  await proxier.sync(snapshot(after), changed(big.key), false);
  const ops = opsOf(lastCommit(nft));
  for (const o of ops) assert.match(o, /^(add|delete) element ip kube-proxy (endpoints-6|nodeport-endpoints-6|hairpin) /, o);
  assert.equal(ruleset(kernel), await freshFullSync(after));
});

test('two Services share a larger count: the chain stays while one of them uses it', async () => {
  const other = sp('other', { clusterIP: '172.30.0.43' });
  const both: Entries = [[big, eps(6)], [other, eps(6, 2)]];
  const { proxier, kernel } = proxierOnFake();
  await proxier.sync(snapshot(both), changed(), true);
  const moved: Entries = [[big, eps(6)], [other, eps(7, 2)]];
  assert.equal((await proxier.sync(snapshot(moved), changed(other.key), false)).ok, true);
  assert.ok(chainNames(kernel).includes('select-endpoint-6') && chainNames(kernel).includes('select-endpoint-7'));
  assert.equal(ruleset(kernel), await freshFullSync(moved));
  const gone: Entries = [[other, eps(7, 2)]];
  assert.equal((await proxier.sync(snapshot(gone), changed(big.key), false)).ok, true);
  assert.ok(!chainNames(kernel).includes('select-endpoint-6'));
  assert.ok(!chainNames(kernel).includes('select-nodeport-endpoint-6'));
  assert.equal(ruleset(kernel), await freshFullSync(gone));
});

test('Local policy, IPv6: the local families have their own verdict maps and chains, synced both ways', async () => {
  const v6 = sp('v6', { key: 'ns1/v6:p80/TCP', family: 'IPv6', clusterIP: 'fd00:30::41', nodePort: 30100, externalIPs: ['fd00:99::1'], externalPolicyLocal: true });
  const local = (n: number): Entries => [[v6, Array.from({ length: n }, (_, i) => ep(`fd00:10::${i + 1}`, 80, { isLocal: i % 2 === 0 }))]];
  const { proxier, kernel } = proxierOnFake();
  await proxier.sync(snapshot(local(11)), changed(), true);
  // 11 endpoints, 6 of them local.
  assert.deepEqual(elementsOf(kernel, 'local-endpoint-chains', 'ip6'), ['fd00:99::1 . tcp . 80 : goto select-local-endpoint-6']);
  assert.deepEqual(elementsOf(kernel, 'nodeport-local-endpoint-chains', 'ip6'), ['tcp . 30100 : goto select-nodeport-local-endpoint-6']);
  assert.deepEqual(elementsOf(kernel, 'nodeport-endpoint-chains', 'ip6'), ['tcp . 30100 : goto select-nodeport-endpoint-11']);
  for (const n of [3, 12, 2]) {
    assert.equal((await proxier.sync(snapshot(local(n)), changed(v6.key), false)).ok, true);
    assert.equal(ruleset(kernel), await freshFullSync(local(n)), `to ${n} endpoints`);
  }
});
