// The scale bench end to end at a small size, with short phases: the real kube-proxy-native process in
// a namespace the bench makes, against the test API server, read from outside; then the in-process
// heap breakdown. Asserts that every figure was measured and is consistent, never how fast.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { measureBreakdown, measureSize } from '../../bench/scale/run-scale';
import type { Timing } from '../../bench/scale/scale-types';
import { netnsCreatedHere } from '../helpers/netns';

const N = 60;
const TIMING: Timing = {
  steadyWaitMs: 500, samples: 2, sampleGapMs: 200, partialRepeats: 3,
  churnMs: 2000, churnEndpointChanges: 30, churnServiceSwaps: 3, churnRounds: 2, startTimeoutMs: 60_000,
  kindRepeats: 4,
};
/** This process's scale namespaces still present (another bench running beside the tests has its own). */
const leftovers = (): string[] => {
  const mine = netnsCreatedHere().filter((n) => n.startsWith('kpnscale-'));
  assert.ok(mine.length > 0, 'the run made its namespace here');
  const present = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' }).split('\n').map((l) => l.split(' ')[0]);
  return mine.filter((n) => present.includes(n));
};

describe('scale bench, one small size', () => {
  it('measures the real process from outside: first sync, partial syncs, churn, memory', async () => {
    const r = await measureSize({ n: N, seed: 11, timing: TIMING });
    assert.deepEqual(r.problems, []);
    assert.equal(r.mix.services, N);
    assert.ok(r.servedMB >= r.objectMB, `served ${r.servedMB} MB, objects ${r.objectMB} MB`);
    assert.ok(r.startToSyncedS > r.firstSyncS && r.firstSyncS > 0);
    assert.equal(r.partial.seconds.length, 3);
    assert.equal(r.partial.full, 0);
    assert.ok(r.partial.seconds.every((s) => s > 0));
    assert.equal(r.churn.endpointChanges, 30);
    assert.equal(r.churn.servicesAdded, 3);
    assert.ok(r.churn.syncs >= 1);
    assert.equal(r.metricSyncCount, r.syncLines, 'every sync the log showed is in the metric');
    assert.equal(r.laterRounds.length, 1, 'a second churn round, then its steady reading');
    for (const m of [r.steady, r.afterChurn, ...r.laterRounds]) {
      assert.ok(m.rssMiB > 20 && m.heapUsedMiB > 5 && m.heapUsedMiB < m.rssMiB, JSON.stringify(m));
      assert.ok(m.peakRssMiB >= m.rssMiB);
      assert.ok(m.heapSpacesUsedMiB.old > 0);
    }
    const kinds = r.kinds!;
    assert.deepEqual(kinds.figures.map((f) => [f.kind, f.samples]), [['count-change', 4], ['replaced', 4], ['service', 4]]);
    assert.deepEqual(kinds.samples.map((s) => s.change).slice(0, 6), ['endpoint removed', 'pod replaced', 'Service removed', 'endpoint added', 'pod replaced', 'Service added']);
    assert.ok(kinds.samples.every((s) => s.ms > 0 && (s.ops ?? 0) > 0), JSON.stringify(kinds.samples));
    assert.equal(new Set(kinds.samples.filter((s) => s.change !== 'Service added').map((s) => JSON.stringify(s))).size, 10);
    assert.ok(r.timeline.length >= 3);
    assert.deepEqual(leftovers(), [], 'the namespace is removed');
  });

  it('--nft-monitor: an nft monitor listens in the namespace throughout and prints our commits', async () => {
    const r = await measureSize({ n: N, seed: 11, timing: { ...TIMING, churnRounds: 1 }, nftMonitor: true });
    assert.deepEqual(r.problems, []);
    const m = r.nftMonitor!;
    assert.equal(m.exitedEarly, false, m.stderr);
    // At least the table, its chains and sets, and an element per Service from the first full sync.
    assert.ok(m.lines > N, `nft monitor printed ${m.lines} lines`);
    assert.ok(m.megabytes > 0 && m.cpuS >= 0);
    assert.deepEqual(leftovers(), [], 'the namespace is removed');
  });

  it('breaks the heap down: caches, model, sync parts, with snapshots by constructor', async () => {
    const b = await measureBreakdown({ n: N, seed: 11, snapshotMaxN: N });
    assert.deepEqual(b.problems, []);
    assert.equal(b.steps.length, 5);
    const used = b.steps.map((s) => s.heapUsedMiB);
    assert.ok(used[2] > used[1], 'the caches take heap');
    assert.ok(used[3] > used[2], 'the model takes heap');
    const models = b.snapshot.caches.filter((r) => r.name.startsWith('V1'));
    assert.deepEqual(models, [], 'the caches keep plain metadata, no client-node model objects');
    assert.ok(b.snapshot.proxyParts.length > 0 && b.snapshot.mib.length === 3);
    assert.deepEqual(leftovers(), [], 'the namespace is removed');
  });
});
