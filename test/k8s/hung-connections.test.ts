// Connections that hang instead of failing: a list or watch that never gets its headers, one that
// gets them and then nothing, a list body that trickles, a watch that falls silent. Each must be given
// up after its deadline, retried with backoff, and shown in status() (failure and staleness) until the
// server answers again. Deadlines are shortened here; the defaults are in src/k8s/deadlines.ts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterWatcherOptions } from '../../src/k8s/cluster-watcher';
import type { ReflectorStatus } from '../../src/k8s/reflector';
import type { Fault } from '../apiserver/faults';
import { TestApiServer } from '../apiserver/server';
import { FAST_BACKOFF, namespace, node, RecordingSink, service, serviceCIDR, serverPerTest, slice, startTestWatcher, waitFor } from './helpers';

// Short enough for a test, long enough that a loaded machine (2 shared cores) never trips them by accident.
const SHORT = { headersMs: 1000, listIdleMs: 1000, listBodyMs: 10_000, watchBookmarkIdleMs: 1000, watchTimeoutMarginMs: 1000 };
const SVC = '/api/v1/services';
const CIDRS = '/apis/networking.k8s.io/v1/servicecidrs';
const t = serverPerTest();
let statuses: ReflectorStatus[] = [];

function start(sink: RecordingSink, extra: Partial<ClusterWatcherOptions> = {}): void {
  statuses = [];
  t.watcher = startTestWatcher(t.api, sink, { deadlines: SHORT, watchTimeoutSeconds: () => 30, onStatus: (s) => statuses.push(s), ...extra });
}

const status = (resource: string): ReflectorStatus => t.watcher!.status().resources.find((r) => r.resource === resource)!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Everything current again: every resource connected and nothing stale. */
async function converged(): Promise<void> {
  await waitFor('all current', () => t.watcher!.status().connected && t.watcher!.status().staleSince === undefined);
  for (const r of t.watcher!.status().resources) assert.equal(r.staleSince, undefined, r.resource);
}

const LIST_FAULTS: Array<{ name: string; fault: Fault; error: RegExp; deadlines?: Partial<typeof SHORT> }> = [
  { name: 'never answers', fault: { mode: 'no-headers' }, error: /no response headers within 1s/ },
  { name: 'sends headers, then nothing', fault: { mode: 'silent' }, error: /nothing received for 1s while reading the answer/ },
  { name: 'trickles with long pauses', fault: { mode: 'trickle', bytes: 64, everyMs: 3000 }, error: /nothing received for 1s while reading the answer/ },
  { name: 'trickles past the page deadline', fault: { mode: 'trickle', bytes: 16, everyMs: 50 }, error: /the answer took longer than 1.5s/, deadlines: { listBodyMs: 1500 } },
];

describe('hung API connections', { timeout: 60_000 }, () => {
  for (const c of LIST_FAULTS) {
    it(`gives up a list that ${c.name}, retries with backoff, and converges once the server answers`, async () => {
      for (let i = 0; i < 3; i++) t.api.create('services', service('default', `svc-${i}`));
      t.api.setFault(SVC, 'list', c.fault);
      const sink = new RecordingSink();
      start(sink, { deadlines: { ...SHORT, ...c.deadlines } });
      await waitFor('two lists given up', () => status('services').failures >= 2, 15_000);
      const s = status('services');
      assert.match(s.lastError ?? '', c.error);
      assert.equal(s.connected, false);
      assert.equal(sink.synced, 0, 'not synced while the list hangs');
      assert.ok(s.staleSince && s.staleSince.getTime() <= t.api.requestsFor(SVC, 'list')[0].time, 'stale since before the first list');
      const whole = t.watcher!.status();
      assert.ok(whole.staleSince && whole.staleSince.getTime() <= s.staleSince.getTime(), 'the oldest staleness is reported');
      const times = t.api.requestsFor(SVC, 'list').map((r) => r.time);
      // The deadline runs from before the connection is made, so allow for connecting (a few ms here).
      assert.ok(times[1] - times[0] >= 1000 + FAST_BACKOFF.initialMs - 50, `retried after the deadline and a backoff: ${times[1] - times[0]} ms`);
      assert.ok(t.api.hungRequests <= 1, 'requests given up are closed');

      t.api.create('services', service('default', 'while-hung'));
      t.api.clearFaults();
      await waitFor('synced', () => sink.synced === 1 && sink.services.size === 4, 10_000);
      await converged();
    });
  }

  it('gives up a watch that never answers, retries with backoff, and catches up once the server answers', async () => {
    const sink = new RecordingSink();
    start(sink);
    await waitFor('synced', () => sink.synced === 1);
    await waitFor('services watch open', () => t.api.requestsFor(SVC, 'watch').length === 1 && status('services').staleSince === undefined);
    t.api.setFault(SVC, 'watch', { mode: 'no-headers' });
    const cut = Date.now();
    t.api.breakWatches();
    await waitFor('re-watch given up', () => /no response headers within 1s/.test(status('services').lastError ?? ''));
    await waitFor('retried', () => t.api.requestsFor(SVC, 'watch').length >= 3);
    const s = status('services');
    assert.equal(s.connected, false);
    assert.ok(s.staleSince && s.staleSince.getTime() >= cut - 5, 'stale from the moment the connection was lost');
    assert.ok(t.watcher!.status().staleSince, 'the watcher as a whole is stale');
    t.api.create('services', service('default', 'while-hung'));
    t.api.create('endpointslices', slice('default', 'while-hung'));
    assert.ok(!sink.services.has('default/while-hung'));
    t.api.clearFaults();
    await waitFor('caught up', () => sink.services.has('default/while-hung') && sink.slices.has('default/while-hung-abc'));
    await converged();
    assert.equal(t.api.requestsFor(SVC, 'list').length, 1, 'resumed from its version: no relist');
  });

  it('gives up a watch that falls silent after bookmarks within the bookmark deadline, long before its timeout', async () => {
    await t.api.stop();
    t.api = new TestApiServer({ bookmarkIntervalMs: 50 });
    await t.api.start();
    const sink = new RecordingSink();
    start(sink);
    await waitFor('synced', () => sink.synced === 1);
    // Move the version past every watch's start: from now on each gets a bookmark every 50 ms.
    t.api.create('nodes', node('node-z'));
    await waitFor('services bookmark', () => status('services').resourceVersion === String(t.api.store.rv));
    const silentAt = Date.now();
    t.api.setFault(SVC, 'watch', { mode: 'silent' });
    await waitFor('stall noticed', () => /stalled: nothing received for 1s since the last event or bookmark/.test(status('services').lastError ?? ''), 10_000);
    assert.ok(Date.now() - silentAt < 10_000, 'well before the 30 s watch timeout');
    const failed = statuses.find((x) => x.resource === 'services' && /stalled/.test(x.lastError ?? ''));
    assert.ok(failed?.staleSince && failed.staleSince.getTime() >= silentAt, 'reported stale when the stall was noticed');
    assert.equal(failed.connected, false);
    t.api.create('services', service('default', 'during-silence'));
    t.api.clearFaults();
    await waitFor('events flow again', () => sink.services.has('default/during-silence'));
    await converged();
  });

  it('does not give up a quiet watch that has had no bookmark (a quiet resource gets none)', async () => {
    await t.api.stop();
    t.api = new TestApiServer({ bookmarkIntervalMs: 20 });
    await t.api.start();
    const sink = new RecordingSink();
    start(sink, { watchTimeoutSeconds: () => 20 });
    await waitFor('synced', () => sink.synced === 1);
    await waitFor('all watching', () => t.api.openWatches === 5);
    // Three bookmark deadlines of silence: nothing moved, so the server sends no bookmark, and that is fine.
    await sleep(SHORT.watchBookmarkIdleMs * 3);
    for (const r of t.watcher!.status().resources) assert.equal(r.failures, 0, `${r.resource}: ${r.lastError}`);
    assert.equal(t.api.requestsFor(SVC, 'watch').length, 1);
  });

  it('does not hold the first sync on a ServiceCIDR list that hangs', async () => {
    t.api.create('servicecidrs', serviceCIDR('kubernetes', ['10.96.0.0/16']));
    t.api.create('services', service('default', 'web'));
    t.api.setFault(CIDRS, 'list', { mode: 'no-headers' });
    const sink = new RecordingSink();
    start(sink);
    await waitFor('synced despite the hung list', () => sink.synced === 1, 10_000);
    assert.ok(sink.services.has('default/web'));
    assert.equal(sink.serviceCIDRs, undefined);
    const c = status('servicecidrs');
    assert.match(c.lastError ?? '', /no response headers within 1s/);
    assert.ok(c.staleSince);
    assert.ok(t.watcher!.status().staleSince, 'ServiceCIDRs count towards the staleness');
    t.api.clearFaults();
    await waitFor('ranges', () => sink.serviceCIDRs?.[0] === '10.96.0.0/16');
    await converged();
  });

  it('closes hung requests when stopped', async () => {
    t.api.setFault('/', 'list', { mode: 'no-headers' });
    const sink = new RecordingSink();
    start(sink, { deadlines: { ...SHORT, headersMs: 60_000 } });
    await waitFor('node, ServiceCIDR and Namespace lists hanging', () => t.api.hungRequests === 3);
    t.watcher!.stop();
    await waitFor('all closed', () => t.api.hungRequests === 0, 3000);
  });

  it('leaves out of the oldest staleness what the proxy runs without: forbidden Namespaces, unserved ServiceCIDRs', async () => {
    await t.api.stop();
    t.api = new TestApiServer({ notServed: ['servicecidrs'] });
    await t.api.start();
    t.api.failRequests(403, '/api/v1/namespaces');
    t.api.create('namespaces', namespace('ns1'));
    const sink = new RecordingSink();
    start(sink);
    await waitFor('synced', () => sink.synced === 1);
    await waitFor('services, slices and node current', () => ['services', 'endpointslices', 'nodes'].every((r) => status(r).connected));
    assert.ok(status('namespaces').staleSince, 'the Namespace view itself is stale');
    assert.equal(status('servicecidrs').staleSince, undefined, 'a resource not served is never stale');
    assert.equal(t.watcher!.status().staleSince, undefined);
  });
});
