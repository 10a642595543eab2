// The kernel's commit cost grows with the objects we create: no set or map may be created per
// Service or per endpoint, and chains and rules per Service must stay a small linear function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileBase } from '../../../src/proxier/nftables/compile-base';
import { compileService } from '../../../src/proxier/nftables/compile-service';
import { ctx, ep, selected, sp } from './fixtures';

function cluster(n: number, endpoints: number, affinity: number) {
  const c = ctx();
  const services = Array.from({ length: n }, (_, i) => {
    const s = sp(`svc${i}`, { clusterIP: `172.30.${i >> 8}.${i & 255}`, nodePort: i % 10 === 0 ? 30000 + i : 0, affinityTimeoutSeconds: affinity });
    const eps = Array.from({ length: endpoints }, (_, j) => ep(`10.1.${i >> 8}.${(i & 255)}`, 8000 + j));
    return compileService(s, selected(eps), c);
  });
  const base = compileBase(c);
  return {
    sets: base.sets.length,
    chains: services.reduce((a, s) => a + s.chains.length, 0),
    rules: services.reduce((a, s) => a + s.chains.reduce((b, ch) => b + ch.rules.length, 0), 0),
  };
}

test('the number of sets and maps does not grow with Services or endpoints', () => {
  assert.equal(cluster(10, 4, 0).sets, cluster(1000, 4, 0).sets);
  assert.equal(cluster(10, 1, 10800).sets, cluster(1000, 8, 10800).sets);
  assert.equal(cluster(1, 4, 0).sets, 7);
});

test('per ClusterIP Service with E endpoints: E+1 chains and 3E+1 rules (5E+1 with affinity)', () => {
  for (const e of [1, 4, 8]) {
    const one = cluster(1, e, 0); // svc0 has a NodePort: one external chain with 2 rules more
    assert.deepEqual([one.chains, one.rules], [e + 2, 3 * e + 1 + 2]);
    const plain = cluster(2, e, 0);
    assert.deepEqual([plain.chains - one.chains, plain.rules - one.rules], [e + 1, 3 * e + 1]);
    const aff = cluster(2, e, 10800);
    const affOne = cluster(1, e, 10800);
    assert.deepEqual([aff.chains - affOne.chains, aff.rules - affOne.rules], [e + 1, 5 * e + 1]);
  }
});

test('objects grow linearly: 10x the Services, 10x the chains and rules', () => {
  const a = cluster(100, 4, 0);
  const b = cluster(1000, 4, 0);
  assert.equal(b.chains, a.chains * 10);
  assert.equal(b.rules, a.rules * 10);
});
