// Endpoint counts above SELECT_RULES_MAX on the fake kernel: a destination's elements in the
// count-bit sets of its family (count-trie.ts) lead the select chain's tests to its count's rule;
// partial syncs move those plain-set elements when the count changes, without a rule or a verdict
// (the kernel's whole-table validation), and add or remove a count's map, chain and rule as counts
// come and go, each time ending where a fresh full sync would.
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

/** Ops that make the kernel validate the whole table: a new rule, or an element that jumps or goes to a chain. */
const validating = (ops: string[]): string[] => ops.filter((o) => /^add rule /.test(o) || /^add element .* : (goto|jump) /.test(o));

test('a Service with 6 endpoints: its ClusterIP and NodePort are in the count-bit sets that lead to the chains of count 6', async () => {
  const { proxier, kernel } = proxierOnFake();
  assert.deepEqual(await proxier.sync(snapshot(cluster(6)), changed(), true), { full: true, ok: true });
  // 6 - 4 = 0b10.
  assert.deepEqual(elementsOf(kernel, 'endpoints-over-4-bit-1'), ['172.30.0.41 . tcp . 80']);
  assert.deepEqual(elementsOf(kernel, 'nodeport-endpoints-over-4-bit-1'), ['tcp . 30080']);
  assert.ok(!setNames(kernel).includes('endpoints-over-4-bit-0'));
  assert.deepEqual(rulesOf(kernel, 'select-endpoint-6'), ['dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 6 map @endpoints-6']);
  assert.deepEqual(rulesOf(kernel, 'select-endpoint'), [
    'ip daddr . meta l4proto . th dport @endpoints-over-4-bit-1 goto select-endpoint-6',
    'dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 2 map @endpoints-2',
  ]);
  assert.equal(elementsOf(kernel, 'endpoints-6').length, 6);
  assert.ok(!setNames(kernel).some((s) => /endpoint-chains/.test(s)));
});

test('a count walking across SELECT_RULES_MAX both ways and between larger counts: each partial sync equals a fresh full sync', async () => {
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot(cluster(3)), changed(), true);
  for (const n of [5, 6, 9, 4, 7, 1, 8]) {
    assert.deepEqual(await proxier.sync(snapshot(cluster(n)), changed(big.key), false), { full: false, ok: true }, `to ${n} endpoints`);
    assert.equal(ruleset(kernel), await freshFullSync(cluster(n)), `to ${n} endpoints`);
    const counts = chainNames(kernel).filter((c) => /^select-endpoint-\d+(-\d+)?$/.test(c));
    assert.deepEqual(counts, n > 4 ? [`select-endpoint-${n}`] : [], `to ${n} endpoints: only the chain of the count in use`);
    assert.deepEqual(setNames(kernel).filter((s) => /^endpoints-\d+$/.test(s)).sort(), [...new Set([`endpoints-${n}`, 'endpoints-2'])].sort());
  }
  assert.equal(nft.commits.length, 8, 'one transaction per sync');
});

test('between counts in use (6 -> 9 -> 5 -> 6 with other Services at 5, 6 and 9): plain-set and map elements only, nothing the kernel validates', async () => {
  const others: Entries = [5, 6, 9].map((n) => [sp(`at${n}`, { clusterIP: `172.30.0.${50 + n}`, nodePort: 30100 + n }), eps(n, 10 + n)]);
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot([...cluster(6), ...others]), changed(), true);
  for (const n of [9, 5, 6]) {
    const now: Entries = [...cluster(n), ...others];
    await proxier.sync(snapshot(now), changed(big.key), false);
    const ops = opsOf(lastCommit(nft));
    assert.deepEqual(validating(ops), [], `to ${n}:\n${ops.join('\n')}`);
    for (const o of ops) assert.match(o, /^(add|delete) element ip kube-proxy ((nodeport-)?endpoints-(\d+|over-4-bit-\d)|hairpin) /, o);
    assert.equal(ruleset(kernel), await freshFullSync(now), `to ${n} endpoints`);
  }
});

test('6 -> 9 endpoints, 9 new in the cluster: the new map, sets, chain and rules first, the bit elements moved, the old chain and map after', async () => {
  const { proxier, nft } = proxierOnFake();
  await proxier.sync(snapshot(cluster(6)), changed(), true);
  await proxier.sync(snapshot(cluster(9)), changed(big.key), false);
  const ops = opsOf(lastCommit(nft));
  const at = (re: RegExp) => {
    const i = ops.findIndex((o) => re.test(o));
    assert.ok(i >= 0, `no op ${re} in:\n${ops.join('\n')}`);
    return i;
  };
  // 9 - 4 = 0b101: bits 0 and 2; 6 - 4 = 0b10: bit 1.
  const addChain = at(/^add chain ip kube-proxy select-endpoint-9$/);
  const addRule = at(/^add rule ip kube-proxy select-endpoint-9 dnat .* mod 9 map @endpoints-9$/);
  const addSet = at(/^add set ip kube-proxy endpoints-over-4-bit-2 /);
  const addTest = at(/^add rule ip kube-proxy select-endpoint ip daddr \. meta l4proto \. th dport @endpoints-over-4-bit-2 goto select-endpoint-9$/);
  const delBit = at(/^delete element ip kube-proxy endpoints-over-4-bit-1 \{ 172\.30\.0\.41 \. tcp \. 80 \}$/);
  const addBit = at(/^add element ip kube-proxy endpoints-over-4-bit-2 \{ 172\.30\.0\.41 \. tcp \. 80 \}$/);
  const flushOld = at(/^flush chain ip kube-proxy select-endpoint-6$/);
  const delOld = at(/^delete chain ip kube-proxy select-endpoint-6$/);
  const delMap = at(/^delete map ip kube-proxy endpoints-6$/);
  const delSet = at(/^delete set ip kube-proxy endpoints-over-4-bit-1$/);
  assert.ok(addChain < addRule && addSet < addTest && addRule < addBit && addTest < addBit, ops.join('\n'));
  assert.ok(flushOld < delOld && delBit < delSet && delOld < delMap, ops.join('\n'));
});

test('one endpoint of a 6-endpoint Service replaced: map slots only, no count-bit element, no chain', async () => {
  const { proxier, nft, kernel } = proxierOnFake();
  const before = cluster(6);
  const after: Entries = [[big, [...eps(5), ep('10.180.0.99')]], [small, eps(2, 1)]];
  await proxier.sync(snapshot(before), changed(), true);
  await proxier.sync(snapshot(after), changed(big.key), false);
  const ops = opsOf(lastCommit(nft));
  for (const o of ops) assert.match(o, /^(add|delete) element ip kube-proxy (endpoints-6|nodeport-endpoints-6|hairpin) /, o);
  assert.equal(ruleset(kernel), await freshFullSync(after));
});

test('two Services share a larger count: its map and rule stay while one of them uses it', async () => {
  const other = sp('other', { clusterIP: '172.30.0.43' });
  const both: Entries = [[big, eps(6)], [other, eps(6, 2)]];
  const { proxier, kernel } = proxierOnFake();
  await proxier.sync(snapshot(both), changed(), true);
  const picks = (n: number) => chainNames(kernel).filter((c) => rulesOf(kernel, c).some((r) => r.endsWith(`mod ${n} map @endpoints-${n}`)));
  assert.deepEqual(picks(6), ['select-endpoint-6']);
  const moved: Entries = [[big, eps(6)], [other, eps(7, 2)]];
  assert.equal((await proxier.sync(snapshot(moved), changed(other.key), false)).ok, true);
  // Codes 2 and 3 share bit 1: one range chain tests bit 0 and goes to 7's chain or to 6's, which
  // is where 6's map was looked up from before (a map looked up from a new chain is walked whole).
  assert.deepEqual(picks(6), ['select-endpoint-6']);
  assert.deepEqual(picks(7), ['select-endpoint-7']);
  assert.deepEqual(rulesOf(kernel, 'select-endpoint-6-7'), ['ip daddr . meta l4proto . th dport @endpoints-over-4-bit-0 goto select-endpoint-7', 'goto select-endpoint-6']);
  assert.equal(ruleset(kernel), await freshFullSync(moved));
  const gone: Entries = [[other, eps(7, 2)]];
  assert.equal((await proxier.sync(snapshot(gone), changed(big.key), false)).ok, true);
  assert.deepEqual(picks(6), []);
  assert.ok(!chainNames(kernel).some((c) => /^select-(nodeport-)?endpoint-6/.test(c)));
  assert.equal(ruleset(kernel), await freshFullSync(gone));
});

test('Local policy, IPv6: the local families have their own count-bit sets and chains, synced both ways', async () => {
  const v6 = sp('v6', { key: 'ns1/v6:p80/TCP', family: 'IPv6', clusterIP: 'fd00:30::41', nodePort: 30100, externalIPs: ['fd00:99::1'], externalPolicyLocal: true });
  const local = (n: number): Entries => [[v6, Array.from({ length: n }, (_, i) => ep(`fd00:10::${i + 1}`, 80, { isLocal: i % 2 === 0 }))]];
  const { proxier, kernel } = proxierOnFake();
  await proxier.sync(snapshot(local(11)), changed(), true);
  // 11 endpoints (11 - 4 = 0b111), 6 of them local (0b10).
  assert.deepEqual(elementsOf(kernel, 'local-endpoints-over-4-bit-1', 'ip6'), ['fd00:99::1 . tcp . 80']);
  assert.deepEqual(elementsOf(kernel, 'nodeport-local-endpoints-over-4-bit-1', 'ip6'), ['tcp . 30100']);
  for (const bit of [0, 1, 2]) assert.deepEqual(elementsOf(kernel, `nodeport-endpoints-over-4-bit-${bit}`, 'ip6'), ['tcp . 30100']);
  assert.deepEqual(rulesOf(kernel, 'select-nodeport-local-endpoint', 'ip6'), ['meta l4proto . th dport @nodeport-local-endpoints-over-4-bit-1 goto select-nodeport-local-endpoint-6']);
  for (const n of [3, 12, 2]) {
    assert.equal((await proxier.sync(snapshot(local(n)), changed(v6.key), false)).ok, true);
    assert.equal(ruleset(kernel), await freshFullSync(local(n)), `to ${n} endpoints`);
  }
});
