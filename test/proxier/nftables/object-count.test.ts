// The kernel's commit cost grows with the objects we hold: every commit walks every chain, and a
// table validation walks every rule reachable from the base chains. So a Service without session
// affinity must add no chain and no rule, only elements; sets and maps depend only on which
// endpoint counts occur.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileBase, setNamesOf } from '../../../src/proxier/nftables/compile-base';
import { compileService } from '../../../src/proxier/nftables/compile-service';
import { ctx, ep, selected, sp } from './fixtures';

function cluster(n: number, endpoints: (i: number) => number, affinity: number) {
  const c = ctx();
  const services = Array.from({ length: n }, (_, i) => {
    const s = sp(`svc${i}`, { clusterIP: `172.30.${i >> 8}.${i & 255}`, nodePort: i % 10 === 0 ? 30000 + i : 0, affinityTimeoutSeconds: affinity });
    const eps = Array.from({ length: endpoints(i) }, (_, j) => ep(`10.1.${i >> 8}.${(i & 255)}`, 8000 + j));
    return compileService(s, selected(eps), c);
  });
  const base = compileBase(c, setNamesOf(services));
  return {
    sets: base.sets.length,
    baseChains: base.chains.length,
    baseRules: base.chains.reduce((a, ch) => a + ch.rules.length, 0),
    chains: services.reduce((a, s) => a + s.chains.length, 0),
    rules: services.reduce((a, s) => a + s.chains.reduce((b, ch) => b + ch.rules.length, 0), 0),
    elements: services.reduce((a, s) => a + s.elements.length, 0),
  };
}

const four = () => 4;

test('a Service without affinity adds no chain and no rule, whatever the cluster size', () => {
  for (const n of [1, 100, 1000]) {
    const c = cluster(n, four, 0);
    assert.deepEqual([c.chains, c.rules], [0, 0], `${n} Services`);
  }
  assert.deepEqual(
    [cluster(10, four, 0).baseChains, cluster(10, four, 0).baseRules],
    [cluster(1000, four, 0).baseChains, cluster(1000, four, 0).baseRules]);
});

test('sets and maps depend on the endpoint counts in use, not on the number of Services', () => {
  assert.equal(cluster(10, four, 0).sets, cluster(1000, four, 0).sets);
  // endpoints-4 and nodeport-endpoints-4 on top of the fixed sets
  assert.equal(cluster(10, four, 0).sets, cluster(1, () => 0, 0).sets + 2);
  // counts 1..5 for ClusterIPs: five maps and the count-bit set of 5 - 4 = 0b1; NodePorts (every tenth Service) only ever have one endpoint
  assert.equal(cluster(1000, (i) => 1 + (i % 5), 0).sets, cluster(1, () => 0, 0).sets + 7);
});

test('elements grow linearly: per ClusterIP Service with E endpoints, E + 3 (ClusterIP, dispatch, E map entries, one hairpin per IP)', () => {
  const a = cluster(100, four, 0);
  const b = cluster(1000, four, 0);
  assert.equal(b.elements, a.elements * 10);
  const one = cluster(2, four, 0).elements - cluster(1, four, 0).elements; // svc1 has no NodePort
  assert.equal(one, 4 + 3);
});

test('counts above 4: one chain, one rule and one test per count in use, an element per bit of count - 4 per destination, nothing per Service', () => {
  const fixed = cluster(1, () => 0, 0);
  // Counts 1..12 for ClusterIPs, 8 of them above 4; NodePorts (every tenth Service) 1, 3, 5, 7, 9, 11.
  const c = cluster(1000, (i) => 1 + (i % 12), 0);
  // Codes 0..8 and 0, 1, 3, 5, 7 (count - 4): a tree of 8 and 4 tests, each going to a chain; each
  // count above 4 has a chain of its own (8 + 4), and the 4 ranges a test goes to have one each.
  assert.equal(c.baseChains, fixed.baseChains + (8 + 4) + 4, 'a chain per count above 4 (select-endpoint-5..12), and per range a test goes to');
  // The zero side of a range chain (4 of them) is a goto to its count's chain.
  assert.equal(c.baseRules, fixed.baseRules + (4 + 8) + (2 + 4) + (8 + 4) + 4, 'a rule per count, a test per count above 4, a goto per range chain');
  assert.equal(c.chains + c.rules, 0);
  assert.equal(cluster(5000, (i) => 1 + (i % 12), 0).baseChains, c.baseChains, 'independent of the number of Services');
  // A ClusterIP Service of 6 endpoints: 6 map slots, its count-bit element (6 - 4 = 0b10), ClusterIP, dispatch, hairpin per IP (one here).
  assert.equal(cluster(2, () => 6, 0).elements - cluster(1, () => 6, 0).elements, 6 + 1 + 3);
});

test('session affinity (IPv4): no chain and no rule per Service; E pairs per destination; the base grows by a map, a set and rules once', () => {
  for (const e of [1, 4, 8]) {
    const aff = cluster(2, () => e, 10800);
    const affOne = cluster(1, () => e, 10800);
    const plain = cluster(2, () => e, 0);
    assert.deepEqual([aff.chains, aff.rules], [0, 0]);
    // svc0 has a NodePort too: three destinations.
    assert.equal(aff.elements - plain.elements, 3 * e, 'one pair per endpoint of each destination');
    // Per endpoint map family in use (ClusterIPs, NodePorts): a records map, a pair set, the select
    // chain's lookup and a record rule per protocol; once: the record chain and the jump to it.
    assert.deepEqual([aff.sets - plain.sets, aff.baseChains - plain.baseChains, aff.baseRules - plain.baseRules], [2 * 2, 1, 2 * (1 + 3) + 1]);
    assert.deepEqual([aff.sets, aff.baseChains, aff.baseRules], [affOne.sets, affOne.baseChains, affOne.baseRules], 'whatever the number of Services');
  }
});
