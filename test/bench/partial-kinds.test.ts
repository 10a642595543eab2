// Issue 32's partial syncs by kind, the parts both benches share (bench/lib/partial-kinds.ts): the
// Services picked in proportion to the mix, the figures, the goals (reported, never enforced), and
// the pipeline's changes to the synthetic cluster.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { syntheticCluster } from '../../bench/lib/cluster';
import {
  categoryKey, goalsTable, kindGoals, kindsAtSize, kindsReport, seededRandom, spreadGroups, type KindSample, type PartialKind,
} from '../../bench/lib/partial-kinds';
import { categoryOf, withoutEndpoint } from '../../bench/pipeline/kinds-scenario';

const mixed = syntheticCluster({ services: 10_000, endpointsPerService: 6, nodePortShare: 0.1, mix: true });

describe('partial syncs by kind: the picks', () => {
  it('deals disjoint groups, each spread over the mix in proportion', () => {
    const groups = spreadGroups(mixed, [200, 200, 100], (s) => categoryKey(categoryOf(s)), seededRandom(1));
    assert.deepEqual(groups.map((g) => g.length), [200, 200, 100]);
    const all = groups.flat().map((s) => s.index);
    assert.equal(new Set(all).size, 500, 'every pick a different Service');
    for (const g of groups) {
      const share = (f: (s: (typeof mixed)[number]) => boolean) => g.filter(f).length / g.length;
      const whole = (f: (s: (typeof mixed)[number]) => boolean) => mixed.filter(f).length / mixed.length;
      for (const f of [(s: (typeof mixed)[number]) => !!s.loadBalancerIP, (s: (typeof mixed)[number]) => !!s.affinity,
        (s: (typeof mixed)[number]) => !!s.externalLocal, (s: (typeof mixed)[number]) => !!s.secondPort]) {
        assert.ok(Math.abs(share(f) - whole(f)) <= 1.5 / g.length + 1e-9, `share ${share(f)} vs ${whole(f)} in a group of ${g.length}`);
      }
    }
    const again = spreadGroups(mixed, [200, 200, 100], (s) => categoryKey(categoryOf(s)), seededRandom(1));
    assert.deepEqual(again.flat().map((s) => s.index), all, 'the same seed, the same picks');
    assert.throws(() => spreadGroups(mixed.slice(0, 10), [6, 6], () => '', seededRandom(1)), /12 distinct items wanted, only 10/);
  });

  it('removes an endpoint and keeps the local one where it is', () => {
    const local = mixed.find((s) => s.externalLocal)!;
    assert.equal(local.localSlot, 0);
    const a = withoutEndpoint(local, 3);
    assert.equal(a.endpoints.length, 5);
    assert.equal(a.localSlot, 0);
    assert.equal(a.endpoints[0].ip, local.endpoints[0].ip);
    assert.equal(withoutEndpoint(local, 0).localSlot, undefined, 'the local endpoint itself removed');
    assert.equal(withoutEndpoint({ ...local, localSlot: 4 }, 2).localSlot, 3);
  });
});

describe('partial syncs by kind: figures and goals', () => {
  const sample = (kind: PartialKind, ms: number, commitMs?: number): KindSample => ({
    kind, change: kind === 'service' ? 'Service added' : kind === 'replaced' ? 'pod replaced' : 'endpoint added',
    category: { type: 'ClusterIP', local: false, affinity: false, ports: 1 }, ms, commitMs, ops: 5, bytes: 900,
  });
  const size = (n: number, ms: (i: number) => number, count = 100) => kindsAtSize(n, 6,
    (['count-change', 'replaced', 'service'] as const).flatMap((k) => Array.from({ length: count }, (_, i) => sample(k, ms(i), ms(i) / 2))));

  it('takes nearest-rank p50 and p99, the commit share, per change', () => {
    const s = size(1000, (i) => i + 1);
    const f = s.figures[0];
    assert.equal(f.samples, 100);
    assert.equal(f.p50Ms, 50);
    assert.equal(f.p99Ms, 99);
    assert.equal(f.maxMs, 100);
    assert.equal(f.commitShareP50, 0.5);
    assert.equal(f.opsP50, 5);
    assert.deepEqual(f.byChange['endpoint added'], { samples: 100, p50Ms: 50, maxMs: 100 });
    assert.equal(f.changed.clusterIP, 100);
    assert.deepEqual(f.byAffinity, { others: { samples: 100, p50Ms: 50, maxMs: 100 } });
  });

  it('checks the goal at 44k against 1k, and says so when a size is missing', () => {
    const goals = kindGoals([size(44_000, () => 1.8), size(1000, () => 1.0), size(10_000, () => 1.2)]);
    assert.equal(goals.length, 3);
    for (const g of goals) {
      assert.equal(g.n, 44_000);
      assert.equal(g.baseN, 1000);
      assert.ok(g.p50Met && g.p99Met);
      assert.equal(g.flatMet, false, '1.8x is not flat');
      assert.equal(g.note, undefined);
    }
    const slow = kindGoals([size(1000, () => 1), size(44_000, (i) => (i === 29 ? 60 : 1), 30)]);
    assert.equal(slow[0].p99Met, false);
    assert.equal(slow[0].p50Met, true);
    assert.match(slow[0].note!, /p99 of 30 samples is their maximum/);
    const quick = kindGoals([size(1000, () => 1)]);
    assert.equal(quick[0].baseN, undefined);
    assert.match(quick[0].note!, /stated at 44,000 Services; checked at 1,000/);
    assert.match(goalsTable(quick), /one size only/);
  });

  it('prints both tables, the goals marked met or NOT met', () => {
    const text = kindsReport([size(1000, () => 1), size(44_000, () => 3, 30)], 'a test');
    assert.match(text, /endpoint count change/);
    assert.match(text, /3\.00 \(max\)/);
    assert.match(text, /3\.00: NOT met/);
    assert.match(text, /3\.00 \(30 samples\): met/);
    assert.match(text, /1\.50 \(50%\)/);
    assert.equal(kindsReport([], 'nothing'), '');
  });
});
