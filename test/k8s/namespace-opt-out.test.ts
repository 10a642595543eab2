// Namespaces labelled networking.k8s.io/kube-proxy=disabled: their Services and EndpointSlices are
// never requested, and flipping the label removes or restores them at once. The server's request log
// is the proof.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterWatcher } from '../../src/k8s/cluster-watcher';
import { TestApiServer, RecordedRequest } from '../apiserver/server';
import { NAMESPACES_FORBIDDEN_RETRY_MS, NAMESPACES_RBAC_RULE } from '../../src/k8s/cluster-watcher';
import { namespace, RecordingSink, recordingLogger, service, slice, startTestWatcher, waitFor, serverPerTest } from './helpers';

const DISABLED = { 'networking.k8s.io/kube-proxy': 'disabled' };
const t = serverPerTest();

const isServiceOrSlice = (r: RecordedRequest): boolean => /\/(services|endpointslices)$/.test(r.path);
const excludes = (r: RecordedRequest, ns: string): boolean =>
  (r.query.fieldSelector ?? '').split(',').includes(`metadata.namespace!=${ns}`);

/** Every Service/EndpointSlice request in `reqs` kept namespace `ns` out. */
function assertNeverRequested(reqs: RecordedRequest[], ns: string): void {
  const offending = reqs.filter(isServiceOrSlice).filter((r) => r.path.includes(`/namespaces/${ns}/`) || !excludes(r, ns));
  assert.deepEqual(offending, [], `requests that could return objects of ${ns}`);
}

function populate(ns: string, n: number): void {
  for (let i = 0; i < n; i++) {
    t.api.create('services', service(ns, `svc${i}`));
    t.api.create('endpointslices', slice(ns, `svc${i}`));
  }
}

function start(sink: RecordingSink): ClusterWatcher {
  t.watcher = startTestWatcher(t.api, sink, { watchTimeoutSeconds: () => 60 });
  return t.watcher;
}

describe('namespace opt-out', { timeout: 60_000 }, () => {
  it('never requests a disabled namespace, and flips both ways', async () => {
    const quiet = t.api.create('namespaces', namespace('quiet', DISABLED));
    const loud = t.api.create('namespaces', namespace('loud'));
    populate('quiet', 3);
    populate('loud', 3);
    const sink = new RecordingSink();
    start(sink);
    await waitFor('synced', () => sink.synced === 1);
    assert.deepEqual(sink.serviceKeys(), ['loud/svc0', 'loud/svc1', 'loud/svc2']);
    assert.equal(sink.slices.size, 3);
    t.api.create('services', service('quiet', 'late'));
    t.api.create('services', service('loud', 'marker'));
    await waitFor('marker', () => sink.services.has('loud/marker'));
    assert.ok(!sink.services.has('quiet/late'));
    assertNeverRequested(t.api.requests, 'quiet');
    const nsRequests = t.api.requestsFor('/api/v1/namespaces').filter((r) => !isServiceOrSlice(r));
    assert.ok(nsRequests.every((r) => r.query.labelSelector === 'networking.k8s.io/kube-proxy=disabled'), 'only labelled namespaces are watched');

    // Label removed: quiet's Services and slices come back from a list of that namespace alone.
    const before = t.api.requests.length;
    t.api.update('namespaces', { ...quiet, metadata: { ...quiet.metadata, labels: {} } });
    await waitFor('quiet back', () => sink.services.has('quiet/late') && sink.services.has('quiet/svc2') && sink.slices.has('quiet/svc2-abc'));
    const after = t.api.requests.slice(before);
    assert.ok(after.some((r) => r.path === '/api/v1/namespaces/quiet/services' && !r.watch));
    assert.ok(after.some((r) => r.path === '/apis/discovery.k8s.io/v1/namespaces/quiet/endpointslices' && !r.watch));
    assert.equal(t.api.requestsFor('/api/v1/services', 'list').length, 1, 'no relist of every Service');
    for (const p of ['/api/v1/services', '/apis/discovery.k8s.io/v1/endpointslices']) {
      await waitFor(`${p} watch widened`, () => t.api.requestsFor(p, 'watch').some((r) => r.query.fieldSelector === undefined));
    }
    await t.watcher!.settled();
    t.api.create('services', service('quiet', 'after-enable'));
    await waitFor('quiet watched', () => sink.services.has('quiet/after-enable'));

    // Label added: loud's Services are gone from the sink by the time the flip is reported.
    let atFlip: string[] = [];
    sink.onFlip = (ns, disabled) => {
      if (ns === 'loud' && disabled) atFlip = sink.serviceKeys().filter((k) => k.startsWith('loud/'));
    };
    const flipAt = t.api.requests.length;
    t.api.update('namespaces', { ...loud, metadata: { ...loud.metadata, labels: DISABLED } });
    await waitFor('loud gone', () => t.watcher!.disabledNamespaces().includes('loud'));
    assert.deepEqual(atFlip, []);
    assert.deepEqual(sink.serviceKeys().filter((k) => k.startsWith('loud/')), []);
    assert.deepEqual(sink.sliceKeys().filter((k) => k.startsWith('loud/')), []);
    await waitFor('watch narrowed', () => t.api.requestsFor('/api/v1/services', 'watch').some((r) => excludes(r, 'loud')));
    t.api.create('services', service('loud', 'ignored'));
    t.api.create('services', service('quiet', 'marker2'));
    await waitFor('marker2', () => sink.services.has('quiet/marker2'));
    assert.ok(!sink.services.has('loud/ignored'));
    const sinceFlip = t.api.requests.slice(flipAt).filter(isServiceOrSlice);
    assert.ok(sinceFlip.length > 0 && sinceFlip.every((r) => excludes(r, 'loud')), 'every request after the flip excludes loud');
  });

  it('loses no change made in a re-enabled namespace while it is being listed', async () => {
    const quiet = t.api.create('namespaces', namespace('quiet', DISABLED));
    populate('quiet', 3);
    const sink = new RecordingSink();
    start(sink);
    await waitFor('synced', () => sink.synced === 1);
    // Hold the answer to the namespace's list, and change things meanwhile.
    t.api.listDelay = (p) => (p.includes('/namespaces/quiet/') ? 300 : 0);
    t.api.update('namespaces', { ...quiet, metadata: { ...quiet.metadata, labels: {} } });
    await waitFor('list asked', () => t.api.requestsFor('/api/v1/namespaces/quiet/services', 'list').length === 1);
    await waitFor('watch widened', () => t.api.requestsFor('/api/v1/services', 'watch').some((r) => r.query.fieldSelector === undefined));
    t.api.delete('services', t.api.store.get('services', 'quiet', 'svc0')!);
    const svc1 = t.api.store.get('services', 'quiet', 'svc1')!;
    t.api.update('services', { ...svc1, spec: { ...svc1.spec, externalIPs: ['192.0.2.2'] } });
    t.api.create('services', service('quiet', 'born-during-list'));
    await waitFor('merged', () => sink.services.has('quiet/born-during-list'));
    await waitFor('settled', () => sink.services.get('quiet/svc1')?.spec?.externalIPs?.[0] === '192.0.2.2');
    await t.watcher!.settled();
    assert.deepEqual(sink.serviceKeys(), ['quiet/born-during-list', 'quiet/svc1', 'quiet/svc2']);
    assert.equal(sink.slices.size, 3);
  });

  it('without RBAC for Namespaces (upstream\'s system:node-proxier): proxies everything, warns once, retries rarely, applies the label once access is granted', async () => {
    t.api.failRequests(403, '/api/v1/namespaces');
    t.api.create('namespaces', namespace('quiet', DISABLED));
    populate('quiet', 2);
    populate('loud', 1);
    const sink = new RecordingSink();
    const log = recordingLogger();
    const RETRY_MS = 400;
    const CONFIRM_MS = 100;
    t.watcher = startTestWatcher(t.api, sink, { log, watchTimeoutSeconds: () => 60, namespacesForbiddenRetryMs: RETRY_MS, namespacesForbiddenConfirmMs: CONFIRM_MS });
    await waitFor('synced despite 403', () => sink.synced === 1);
    assert.deepEqual(sink.serviceKeys(), ['loud/svc0', 'quiet/svc0', 'quiet/svc1']);
    const ns = t.watcher.status().resources.find((r) => r.resource === 'namespaces')!;
    assert.equal(ns.lastErrorCode, 403);
    assert.equal(ns.connected, false);
    const lists = () => t.api.requestsFor('/api/v1/namespaces', 'list').map((r) => r.time);
    await waitFor('retried slowly', () => lists().filter((at) => at - lists()[0] >= CONFIRM_MS).length >= 3);
    // Once refused for CONFIRM_MS (3 s by default: see transient-forbidden.test.ts), retries wait the
    // slow delay, not the backoff (20, 40, 80 ms here): 5-10 min by default.
    const times = lists();
    for (let i = 1; i < times.length; i++) {
      if (times[i - 1] - times[0] >= CONFIRM_MS + 20) assert.ok(times[i] - times[i - 1] >= RETRY_MS - 5, `gap ${i}: ${times[i] - times[i - 1]} ms`);
    }
    assert.ok(NAMESPACES_FORBIDDEN_RETRY_MS >= 5 * 60_000 && NAMESPACES_FORBIDDEN_RETRY_MS <= 10 * 60_000);
    const loud = log.entries.filter((e) => e.level !== 'debug' && e.obj.resource === 'namespaces');
    assert.equal(loud.length, 1, `one line about it, however many retries: ${JSON.stringify(loud)}`);
    assert.equal(loud[0].level, 'warn');
    assert.match(loud[0].msg, /opt-out .* inactive: the API server refused to list Namespaces \(HTTP 403; upstream's system:node-proxier/);
    assert.match(loud[0].msg, /Proxying the Services of every namespace/);
    assert.equal(loud[0].obj.rbacRule, NAMESPACES_RBAC_RULE);
    t.api.failRequests(undefined);
    await waitFor('label honoured', () => t.watcher!.disabledNamespaces().includes('quiet'));
    assert.deepEqual(sink.serviceKeys(), ['loud/svc0']);
    assert.deepEqual(sink.sliceKeys(), ['loud/svc0-abc']);
    await waitFor('watch narrowed', () => t.api.requestsFor('/api/v1/services', 'watch').some((r) => excludes(r, 'quiet')));
    const after = log.entries.filter((e) => e.level !== 'debug' && e.obj.resource === 'namespaces');
    assert.deepEqual(after.map((e) => [e.level, e.msg]).slice(1), [['info', 'listing Namespaces is now allowed: the Namespace opt-out is active']]);
  });

  it('stays one watch per resource with hundreds of disabled namespaces', async () => {
    for (let i = 0; i < 400; i++) t.api.create('namespaces', namespace(`team-${String(i).padStart(4, '0')}`, DISABLED));
    populate('team-0001', 2);
    populate('open', 2);
    const sink = new RecordingSink();
    start(sink);
    await waitFor('synced', () => sink.synced === 1);
    assert.deepEqual(sink.serviceKeys(), ['open/svc0', 'open/svc1']);
    await waitFor('watching', () => t.api.requestsFor('/api/v1/services', 'watch').length > 0);
    const svcWatches = t.api.requestsFor('/api/v1/services', 'watch');
    assert.equal(svcWatches.length, 1);
    assert.equal(svcWatches[0].query.fieldSelector!.split(',').length, 400);
    assertNeverRequested(t.api.requests, 'team-0001');
  });
});
