import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { GROWTH_POLICY, GrowthWatch, growthDecision, IDLE_AFTER_SYNC_MS, type GrowthPolicy } from '../../src/app/memory-growth';
import { SyncLoop } from '../../src/app/sync-loop';
import { silentLog } from '../../src/base/log';
import { ProxyState } from '../../src/core';
import type { ChangeSet, Proxier, ProxySnapshot, SyncResult } from '../../src/core/types';
import { ProxyHealth } from '../../src/health/proxy-health';
import { createProxyMetrics } from '../../src/metrics/proxy-metrics';
import { recordingLogger, service } from '../core/fixtures';

const MiB = 1048576;
const policy: GrowthPolicy = { minGrowthBytes: 16 * MiB, minIntervalMs: 30_000, maxDeferMs: 60_000 };

describe('growthDecision', () => {
  const base = { baselineBytes: 100 * MiB, releasedAtMs: 0 };

  it('does not release below the growth threshold, however long ago the last release was', () => {
    assert.equal(growthDecision(policy, base, 100 * MiB + 16 * MiB - 1, 1e9), 'not grown');
    assert.equal(growthDecision(policy, base, 90 * MiB, 1e9), 'not grown');
  });

  it('does not release within the minimum interval of the last one, however much memory grew', () => {
    assert.equal(growthDecision(policy, base, 500 * MiB, 29_999), 'too soon');
  });

  it('waits for idleness once grown past the threshold and the interval', () => {
    assert.equal(growthDecision(policy, base, 116 * MiB, 30_000), 'when idle');
    assert.equal(growthDecision(policy, { ...base, grownSinceMs: 30_000 }, 116 * MiB, 89_999), 'when idle');
  });

  it('releases at once when it has waited the maximum deferral for idleness', () => {
    assert.equal(growthDecision(policy, { ...base, grownSinceMs: 30_000 }, 116 * MiB, 90_000), 'now');
  });

  it('uses thresholds a churn phase crosses and a release pause bounded in share of time', () => {
    assert.ok(GROWTH_POLICY.minGrowthBytes <= 32 * MiB && GROWTH_POLICY.minIntervalMs >= 10_000);
    assert.ok(GROWTH_POLICY.maxDeferMs >= GROWTH_POLICY.minIntervalMs);
  });
});

/** A GrowthWatch with a fake memory reader, clock and idle timer. */
function watch() {
  const t = { bytes: 100 * MiB, now: 0, releases: [] as boolean[], timers: [] as Array<{ fn: () => void; ms: number; cancelled: boolean }> };
  const w = new GrowthWatch({
    readBytes: () => t.bytes, nowMs: () => t.now, policy,
    release: (idle) => { t.releases.push(idle); t.bytes = 101 * MiB; },
    whenIdle: (fn, ms) => {
      const timer = { fn: () => { timer.cancelled = true; fn(); }, ms, cancelled: false };
      t.timers.push(timer);
      return () => { timer.cancelled = true; };
    },
  });
  const live = () => t.timers.filter((x) => !x.cancelled);
  return { t, w, live };
}

describe('GrowthWatch', () => {
  it('releases when the loop goes idle after memory grew, and takes the level after it as the new baseline', () => {
    const { t, w, live } = watch();
    w.released();
    t.now = 40_000;
    t.bytes = 150 * MiB;
    w.syncFinished();
    assert.equal(live().length, 1);
    assert.equal(live()[0].ms, IDLE_AFTER_SYNC_MS);
    w.syncStarting();
    assert.equal(live().length, 0, 'a sync that starts cancels the idle release');
    w.syncFinished();
    live()[0].fn();
    assert.deepEqual(t.releases, [true]);
    t.now = 80_000;
    t.bytes = 110 * MiB;
    w.syncFinished();
    assert.equal(live().length, 0, 'the baseline is now the level after the release (101 MiB): +9 MiB is not enough');
  });

  it('measures growth from the lowest level since the last release, not the level read right after it', () => {
    const { t, w, live } = watch();
    t.bytes = 400 * MiB;
    w.released();
    t.now = 1000;
    t.bytes = 265 * MiB;
    w.syncFinished();
    t.now = 40_000;
    t.bytes = 300 * MiB;
    w.syncFinished();
    assert.equal(live().length, 1, '300 MiB is 35 over the 265 the process settled at, though 100 under the 400 read after the release');
  });

  it('releases without idleness once it has waited the maximum deferral', () => {
    const { t, w, live } = watch();
    w.syncFinished();
    t.bytes = 150 * MiB;
    for (t.now = 30_000; t.now < 90_000; t.now += 1000) {
      w.syncStarting();
      w.syncFinished();
    }
    assert.deepEqual(t.releases, []);
    w.syncStarting();
    w.syncFinished();
    assert.deepEqual(t.releases, [false]);
    assert.equal(live().length, 0);
  });

  it('forgets a growth that went away by itself', () => {
    const { t, w } = watch();
    w.syncFinished();
    t.now = 30_000;
    t.bytes = 150 * MiB;
    w.syncFinished();
    t.now = 60_000;
    t.bytes = 105 * MiB;
    w.syncFinished();
    t.now = 91_000;
    t.bytes = 150 * MiB;
    w.syncStarting();
    w.syncFinished();
    assert.deepEqual(t.releases, [], 'the deferral counts from the new growth, not the first');
  });
});

class OkProxier implements Proxier {
  calls: boolean[] = [];
  async sync(_s: ProxySnapshot, _c: ChangeSet, full: boolean): Promise<SyncResult> {
    this.calls.push(full);
    return { full, ok: true };
  }
}

describe('SyncLoop with a GrowthWatch', () => {
  it('releases memory after partial syncs once memory grew, when no sync follows', async () => {
    const { t, w, live } = watch();
    const state = new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4'], log: recordingLogger(), startTime: new Date(0) });
    const proxier = new OkProxier();
    const fullReleases: string[] = [];
    const loop = new SyncLoop({
      state, proxier, families: ['IPv4'], metrics: createProxyMetrics(new Registry(), { processMetrics: false }),
      health: new ProxyHealth(60_000), log: silentLog, releaseMemory: (when) => fullReleases.push(when), growth: w,
    });
    await loop.run('requested');
    assert.deepEqual(fullReleases, ['before the first full sync', 'after a full sync']);
    for (let i = 0; i < 5; i++) {
      state.onService('add', service(`s${i}`, { clusterIP: `10.96.0.${10 + i}`, clusterIPs: [`10.96.0.${10 + i}`] }));
      t.now += 10_000;
      t.bytes += 8 * MiB;
      await loop.run('requested');
    }
    assert.deepEqual(proxier.calls, [true, false, false, false, false, false]);
    assert.equal(live().length, 1, 'one release waits for idleness');
    live()[0].fn();
    assert.deepEqual(t.releases, [true]);
    assert.deepEqual(fullReleases, ['before the first full sync', 'after a full sync'], 'partial syncs run no release of their own');
  });
});
