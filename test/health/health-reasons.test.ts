// Health with reasons, on a fake clock: /healthz's two checks of ours (no first sync within the timeout,
// a stale API view) and the reasons of every failure; /livez and the health-check node ports keep
// upstream's proxier-only judgement.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, nodeIneligibility, staleReasons, startupReason } from '../../src/health/health-reasons';
import { startHealthServer } from '../../src/health/health-server';
import { ProxyHealth, StaleResource } from '../../src/health/proxy-health';
import { RunningServer } from '../../src/http';
import { FakeClock } from './health-clock';


const TIMEOUT = 60_000;
let clock: FakeClock;
let stale: StaleResource[];
let health: ProxyHealth;
let server: RunningServer;

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

beforeEach(async () => {
  clock = new FakeClock();
  stale = [];
  health = new ProxyHealth(TIMEOUT, clock, { staleResources: () => stale });
  server = await startHealthServer({ bindAddress: '127.0.0.1:0', health });
});
afterEach(() => server.close());

describe('health reasons over HTTP', { timeout: 60_000 }, () => {
  it('fails /healthz, not /livez, once no sync has succeeded within the timeout of start', async () => {
    clock.advance(TIMEOUT - 1);
    assert.equal((await get('/healthz')).status, 200);
    clock.advance(1);
    const hz = await get('/healthz');
    assert.equal(hz.status, 503);
    assert.equal(hz.body.healthy, true, "upstream's field keeps upstream's meaning");
    assert.deepEqual(hz.body.reasons, ['no sync has succeeded since start 60s ago (limit 60s)']);
    assert.equal(hz.body.lastUpdated, '0001-01-01T00:00:00Z');
    const lz = await get('/livez');
    assert.equal(lz.status, 200, 'a restart does not cure a slow first list');
    assert.deepEqual(lz.body.reasons, []);
    health.updated('IPv4');
    const after = await get('/healthz');
    assert.equal(after.status, 200);
    assert.deepEqual(after.body.reasons, []);
    assert.equal(after.body.lastUpdated, after.body.currentTime);
  });

  it('fails /healthz while a resource is stale for the timeout, naming it; /livez stays up', async () => {
    health.updated('IPv4');
    stale = [{ resource: 'services', since: clock.wall() }];
    clock.advance(TIMEOUT - 1);
    assert.equal((await get('/healthz')).status, 200, 'not yet');
    clock.advance(35_001);
    stale.push({ resource: 'endpointslices', since: new Date(clock.t - 10_000) });
    const hz = await get('/healthz');
    assert.equal(hz.status, 503);
    assert.deepEqual(hz.body.reasons, ['services: no current view from the API server for 95s (limit 60s)']);
    assert.equal((await get('/livez')).status, 200, 'a restart does not cure an API outage');
    stale = [];
    assert.equal((await get('/healthz')).status, 200, 'recovers when the view is current again');
  });

  it('lists every reason: the proxier first, then the Node, start-up and stale resources', async () => {
    health.updated('IPv6');
    health.queuedUpdate('IPv6');
    health.syncNode({ metadata: { name: 'n', deletionTimestamp: new Date() } });
    stale = [{ resource: 'nodes', since: clock.wall() }];
    clock.advance(61_500);
    const hz = await get('/healthz');
    assert.equal(hz.status, 503);
    assert.equal(hz.body.nodeEligible, false);
    assert.equal(hz.body.healthy, false);
    assert.deepEqual(hz.body.reasons, [
      'IPv6: changes queued 61s ago are not applied yet (limit 60s)',
      'the Node is being deleted',
      'nodes: no current view from the API server for 61s (limit 60s)',
    ]);
    const lz = await get('/livez');
    assert.equal(lz.status, 503);
    assert.deepEqual(lz.body.reasons, ['IPv6: changes queued 61s ago are not applied yet (limit 60s)']);
    assert.deepEqual(Object.keys(lz.body), ['lastUpdated', 'currentTime', 'healthy', 'status', 'reasons']);
  });

  it('keeps the health-check node ports on upstream\'s proxier health (report().healthy)', () => {
    clock.advance(10 * TIMEOUT);
    stale = [{ resource: 'services', since: new Date(0) }];
    assert.equal(health.report().healthy, true);
    assert.equal(health.isHealthy(), true);
    assert.equal(health.healthzReport().ok, false);
  });

  it('answers 500 (and keeps serving /livez) when the staleness input throws', async () => {
    const broken = new ProxyHealth(TIMEOUT, clock, {
      staleResources: () => {
        throw new Error('watcher state unavailable');
      },
    });
    const other = await startHealthServer({ bindAddress: '127.0.0.1:0', health: broken });
    try {
      assert.equal((await fetch(`http://127.0.0.1:${other.port}/healthz`)).status, 500);
      assert.equal((await fetch(`http://127.0.0.1:${other.port}/livez`)).status, 200);
    } finally {
      await other.close();
    }
  });
});

describe('health reasons (pure)', () => {
  const t0 = new Date('2026-01-01T00:00:00Z');
  const at = (ms: number) => new Date(t0.getTime() + ms);

  it('formats durations for people', () => {
    assert.equal(formatDuration(95_400), '95s');
    assert.equal(formatDuration(60_000), '60s');
    assert.equal(formatDuration(1_560), '1.5s');
    assert.equal(formatDuration(-5), '0s');
  });

  it('names why a Node is ineligible', () => {
    assert.equal(nodeIneligibility({ metadata: { name: 'n' } }), undefined);
    assert.equal(nodeIneligibility(undefined), 'the Node object is gone');
    assert.equal(nodeIneligibility({ spec: { taints: [{ key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] } }), 'the Node is tainted ToBeDeletedByClusterAutoscaler');
    assert.equal(nodeIneligibility({ spec: { taints: [null as never, { key: 'ToBeDeletedByClusterAutoscaler', effect: 'NoSchedule' }] } }), 'the Node is tainted ToBeDeletedByClusterAutoscaler');
  });

  it('judges start-up only until the first sync', () => {
    assert.equal(startupReason(t0, undefined, at(59_999), 60_000), undefined);
    assert.match(startupReason(t0, undefined, at(60_000), 60_000)!, /since start 60s ago/);
    assert.equal(startupReason(t0, at(1), at(600_000), 60_000), undefined);
  });

  it('judges staleness at the timeout, ignores a future time and refuses an invalid one', () => {
    assert.deepEqual(staleReasons([{ resource: 'a', since: at(0) }], at(59_999), 60_000), []);
    assert.equal(staleReasons([{ resource: 'a', since: at(0) }], at(60_000), 60_000).length, 1);
    assert.deepEqual(staleReasons([{ resource: 'a', since: at(5_000) }], at(0), 60_000), []);
    assert.throws(() => staleReasons([{ resource: 'a', since: new Date(NaN) }], at(0), 60_000), /staleResources: "a" has no valid "since" time/);
    assert.throws(() => staleReasons([{ resource: 'b', since: '2026' as unknown as Date }], at(0), 60_000), /"b" has no valid/);
  });
});
