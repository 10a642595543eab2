// The watchers against the test API server over real HTTP, with client-node's real client code.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ClusterWatcher } from '../../src/k8s/cluster-watcher';
import { ReflectorStatus } from '../../src/k8s/reflector';
import { SERVICE_LABEL_SELECTOR } from '../../src/k8s/selectors';
import { TestApiServer } from '../apiserver/server';
import { namespace, node, RecordingSink, service, slice, startTestWatcher, waitFor, serverPerTest } from './helpers';

const t = serverPerTest();
let statuses: ReflectorStatus[];

function startWatcher(sink: RecordingSink, extra: { pageSize?: number } = {}): ClusterWatcher {
  statuses = [];
  t.watcher = startTestWatcher(t.api, sink, { watchTimeoutSeconds: () => 30, onStatus: (s) => statuses.push(s), ...extra });
  return t.watcher;
}

describe('ClusterWatcher', { timeout: 60_000 }, () => {
  it('lists in chunks, then reports synced once both Services and EndpointSlices are listed', async () => {
    for (let i = 0; i < 7; i++) {
      t.api.create('services', service(`ns${i % 2}`, `svc${i}`));
      t.api.create('endpointslices', slice(`ns${i % 2}`, `svc${i}`));
    }
    const sink = new RecordingSink();
    startWatcher(sink, { pageSize: 3 });
    await waitFor('synced', () => sink.synced === 1);
    assert.equal(sink.services.size, 7);
    assert.equal(sink.slices.size, 7);
    const lists = t.api.requestsFor('/api/v1/services', 'list');
    assert.equal(lists.length, 3, 'seven Services in pages of three');
    assert.deepEqual(lists.map((r) => r.query.limit), ['3', '3', '3']);
    assert.equal(lists[0].query.continue, undefined);
    assert.ok(lists[1].query.continue && lists[2].query.continue);
    assert.equal(t.api.requestsFor('/apis/discovery.k8s.io/v1/endpointslices', 'list').length, 3);
  });

  it('delivers watch events, asks for bookmarks and survives a stream cut mid-object', async () => {
    const sink = new RecordingSink();
    startWatcher(sink);
    await waitFor('synced', () => sink.synced === 1);
    const created = t.api.create('services', service('default', 'web'));
    await waitFor('add', () => sink.services.has('default/web'));
    t.api.update('services', { ...created, spec: { ...created.spec, clusterIP: '10.96.0.99' } });
    await waitFor('update', () => sink.services.get('default/web')?.spec?.clusterIP === '10.96.0.99');
    t.api.breakWatches(true);
    t.api.create('endpointslices', slice('default', 'web'));
    await waitFor('slice after reconnect', () => sink.slices.has('default/web-abc'));
    t.api.delete('services', created);
    await waitFor('delete', () => !sink.services.has('default/web'));
    assert.deepEqual(sink.log.filter((l) => l.startsWith('service')), ['service add default/web', 'service update default/web', 'service delete default/web']);
    const watches = t.api.requestsFor('/api/v1/services', 'watch');
    assert.ok(watches.every((w) => w.query.allowWatchBookmarks === 'true' && w.query.timeoutSeconds === '30'));
    assert.ok(watches.length >= 2, 'watched again after the cut');
    assert.ok(watches[1].query.resourceVersion !== '', 'resumed from a version, no relist');
    assert.equal(t.api.requestsFor('/api/v1/services', 'list').length, 1);
  });

  it('asks the server to filter: proxy-name and headless objects are never sent', async () => {
    t.api.create('services', service('default', 'mine'));
    t.api.create('services', service('default', 'other-proxy', { 'service.kubernetes.io/service-proxy-name': 'cilium' }));
    t.api.create('endpointslices', slice('default', 'headless', 'headless-x', { 'service.kubernetes.io/headless': '' }));
    t.api.create('endpointslices', slice('default', 'mine'));
    const sink = new RecordingSink();
    startWatcher(sink);
    await waitFor('synced', () => sink.synced === 1);
    t.api.create('services', service('default', 'late-other', { 'service.kubernetes.io/service-proxy-name': 'cilium' }));
    t.api.create('services', service('default', 'late-mine'));
    await waitFor('late-mine', () => sink.services.has('default/late-mine'));
    assert.deepEqual(sink.serviceKeys(), ['default/late-mine', 'default/mine']);
    assert.deepEqual(sink.sliceKeys(), ['default/mine-abc']);
    for (const r of [...t.api.requestsFor('/api/v1/services'), ...t.api.requestsFor('/apis/discovery.k8s.io/v1/endpointslices')]) {
      assert.equal(r.query.labelSelector, SERVICE_LABEL_SELECTOR);
    }
  });

  for (const expiredWatchAsHttp410 of [false, true]) {
    it(`relists after 410 Gone (${expiredWatchAsHttp410 ? 'HTTP 410' : 'ERROR event'}) without losing a change`, async () => {
      await t.api.stop();
      t.api = new TestApiServer({ expiredWatchAsHttp410 });
      await t.api.start();
      const keep = t.api.create('services', service('default', 'keep'));
      const doomed = t.api.create('services', service('default', 'doomed'));
      const sink = new RecordingSink();
      startWatcher(sink);
      await waitFor('synced', () => sink.synced === 1 && sink.services.size === 2);
      await t.api.stop();
      t.api.delete('services', doomed);
      t.api.create('services', service('default', 'born'));
      t.api.update('services', { ...keep, spec: { ...keep.spec, externalIPs: ['192.0.2.2'] } });
      t.api.compact();
      await t.api.start();
      await waitFor('relisted', () => sink.services.has('default/born') && !sink.services.has('default/doomed'));
      await waitFor('update seen', () => sink.services.get('default/keep')?.spec?.externalIPs?.[0] === '192.0.2.2');
      assert.equal(t.api.requestsFor('/api/v1/services', 'list').length, 2, 'one initial list and one relist');
      assert.ok(sink.log.includes('service delete default/doomed'));
      assert.ok(sink.log.includes('service update default/keep'));
    });
  }

  it('survives an API server restart, backing off and reporting the failure', async () => {
    const sink = new RecordingSink();
    startWatcher(sink);
    await waitFor('synced', () => sink.synced === 1);
    await t.api.stop();
    await waitFor('disconnected', () => t.watcher!.status().connected === false && statuses.some((s) => (s.failures ?? 0) >= 2));
    assert.match(t.watcher!.status().lastError ?? '', /ECONNREFUSED|connect|fetch/i);
    t.api.create('services', service('default', 'while-down'));
    await t.api.restart();
    await waitFor('caught up', () => sink.services.has('default/while-down'));
    await waitFor('connected', () => t.watcher!.status().connected);
    assert.equal(sink.synced, 1, 'synced is reported once');
  });

  it('keeps retrying while the server answers 500, then recovers', async () => {
    t.api.failRequests(500);
    const sink = new RecordingSink();
    startWatcher(sink);
    await waitFor('failures', () => statuses.some((s) => s.resource === 'namespaces' && s.failures >= 4));
    assert.equal(sink.synced, 0, 'nothing synced while lists fail');
    // Retries are spaced by at least the doubling backoff (20, 40, 80 ms: jitter is off in FAST_BACKOFF).
    const times = t.api.requestsFor('/api/v1/namespaces', 'list').map((r) => r.time);
    assert.ok(times.length >= 4);
    for (let i = 1; i < 4; i++) assert.ok(times[i] - times[i - 1] >= 20 * 2 ** (i - 1) - 2, `gap ${i}: ${times[i] - times[i - 1]} ms`);
    assert.match(t.watcher!.status().lastError ?? '', /500|Internal/);
    t.api.failRequests(undefined);
    t.api.create('services', service('default', 'after'));
    await waitFor('synced after recovery', () => sink.synced === 1 && sink.services.has('default/after'));
  });

  it('gives up on a watch that stays silent past its timeout and watches again', async () => {
    await t.api.stop();
    t.api = new TestApiServer({ ignoreWatchTimeouts: true });
    await t.api.start();
    const sink = new RecordingSink();
    statuses = [];
    t.watcher = startTestWatcher(t.api, sink, {
      watchTimeoutSeconds: () => 1,
      deadlines: { watchTimeoutMarginMs: 200 },
      namespaceOptOut: false,
      onStatus: (s) => statuses.push(s),
    });
    await waitFor('synced', () => sink.synced === 1);
    await waitFor('stall noticed', () => statuses.some((s) => s.resource === 'services' && /stalled/.test(s.lastError ?? '')), 5000);
    await waitFor('re-watched', () => t.api.requestsFor('/api/v1/services', 'watch').length >= 2);
    t.api.create('services', service('default', 'after-stall'));
    await waitFor('events flow again', () => sink.services.has('default/after-stall'));
    assert.equal(t.api.requestsFor('/api/v1/namespaces').length, 0, 'opt-out disabled: namespaces never watched');
  });

  it('watches only its own Node, by field selector', async () => {
    t.api.create('nodes', node('node-a'));
    t.api.create('nodes', node('node-b'));
    const sink = new RecordingSink();
    startWatcher(sink);
    await waitFor('node', () => sink.node?.metadata?.name === 'node-a');
    const n = t.api.store.get('nodes', '', 'node-a')!;
    t.api.update('nodes', { ...n, metadata: { ...n.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    t.api.update('nodes', { ...t.api.store.get('nodes', '', 'node-b')!, spec: { unschedulable: true } });
    await waitFor('node update', () => sink.node?.metadata?.deletionTimestamp !== undefined);
    t.api.delete('nodes', n);
    await waitFor('node gone', () => sink.node === undefined);
    assert.ok(t.api.requestsFor('/api/v1/nodes').every((r) => r.query.fieldSelector === 'metadata.name=node-a'));
  });
});
