// ServiceCIDRs (networking.k8s.io/v1) against the test API server: the sink gets the union of every
// object's spec.cidrs; an API server without the resource (404) is asked once and never again; one that
// forbids it (403) is retried with backoff and warned about once; entries that are not CIDRs are left out.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ReflectorStatus } from '../../src/k8s/reflector';
import { TestApiServer } from '../apiserver/server';
import { FAST_BACKOFF, RecordingSink, recordingLogger, service, serviceCIDR, startTestWatcher, waitFor, serverPerTest } from './helpers';

const PATH = '/apis/networking.k8s.io/v1/servicecidrs';
const t = serverPerTest();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ServiceCIDR watch', { timeout: 60_000 }, () => {
  it('delivers the union of every spec.cidrs on list, then on add, update and delete', async () => {
    t.api.create('servicecidrs', serviceCIDR('kubernetes', ['10.96.0.0/16', 'fd00:10:96::/108']));
    const extra = t.api.create('servicecidrs', serviceCIDR('extra', ['10.100.0.0/24', '10.96.0.0/16']));
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { pageSize: 1, watchTimeoutSeconds: () => 30 });
    await waitFor('synced', () => sink.synced === 1);
    assert.deepEqual(sink.serviceCIDRs, ['10.100.0.0/24', '10.96.0.0/16', 'fd00:10:96::/108'], 'union, sorted, unique');
    assert.equal(sink.serviceCIDRUpdates.length, 1, 'the first list is delivered whole, once');
    assert.ok(sink.log.indexOf('synced') > sink.log.findIndex((l) => l.startsWith('cidrs ')), 'the ranges are in before the first sync');
    const lists = t.api.requestsFor(PATH, 'list');
    assert.equal(lists.length, 2, 'two objects in pages of one');
    assert.ok(lists.every((r) => r.query.limit === '1'));

    t.api.create('servicecidrs', serviceCIDR('late', ['10.200.0.0/16']));
    await waitFor('add', () => sink.serviceCIDRs?.includes('10.200.0.0/16') === true);
    assert.equal(sink.serviceCIDRUpdates.length, 2);
    // A range two objects share stays while either has it: this update changes no range, so it
    // delivers nothing (the next event on the same watch shows it has been processed).
    const narrowed = t.api.update('servicecidrs', { ...extra, spec: { cidrs: ['10.100.0.0/24'] } });
    t.api.update('servicecidrs', { ...narrowed, spec: { cidrs: ['10.101.0.0/24'] } });
    await waitFor('changed range', () => sink.serviceCIDRs?.includes('10.101.0.0/24') === true);
    assert.equal(sink.serviceCIDRUpdates.length, 3, 'nothing delivered for the update that changed no range');
    assert.deepEqual(sink.serviceCIDRs, ['10.101.0.0/24', '10.200.0.0/16', '10.96.0.0/16', 'fd00:10:96::/108'], 'the old range left with the update');

    // Being deleted (deletionTimestamp set) still counts, as upstream: the range goes with the object.
    const late = t.api.store.get('servicecidrs', '', 'late')!;
    const terminating = t.api.update('servicecidrs', { ...late, metadata: { ...late.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } });
    const marker = t.api.create('servicecidrs', serviceCIDR('marker', ['10.201.0.0/16']));
    await waitFor('marker', () => sink.serviceCIDRs?.includes('10.201.0.0/16') === true);
    assert.equal(sink.serviceCIDRUpdates.length, 4, 'the terminating object changed no range');
    assert.ok(sink.serviceCIDRs!.includes('10.200.0.0/16'), 'a terminating ServiceCIDR still counts');
    t.api.delete('servicecidrs', terminating);
    t.api.delete('servicecidrs', marker);
    await waitFor('delete', () => sink.serviceCIDRs?.includes('10.201.0.0/16') === false);
    assert.deepEqual(sink.serviceCIDRs, ['10.101.0.0/24', '10.96.0.0/16', 'fd00:10:96::/108']);
    assert.ok(t.api.requestsFor(PATH, 'watch').every((r) => r.query.allowWatchBookmarks === 'true' && r.query.timeoutSeconds === '30'));
  });

  it('holds the first sync until the first ServiceCIDR list is in', async () => {
    t.api.create('servicecidrs', serviceCIDR('kubernetes', ['10.96.0.0/16']));
    t.api.listDelay = (p) => (p === PATH ? 400 : 0);
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { watchTimeoutSeconds: () => 30 });
    await waitFor('synced', () => sink.synced === 1);
    assert.deepEqual(sink.log.filter((l) => l === 'synced' || l.startsWith('cidrs ')), ['cidrs 10.96.0.0/16', 'synced']);
    assert.ok(t.api.requestsFor('/api/v1/services', 'list').length >= 1, 'Services were listed meanwhile');
  });

  it('delivers an empty set when there are no ServiceCIDRs, and keeps up after a relist', async () => {
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { watchTimeoutSeconds: () => 30 });
    await waitFor('synced', () => sink.synced === 1);
    assert.deepEqual(sink.serviceCIDRs, []);
    await t.api.stop();
    t.api.create('servicecidrs', serviceCIDR('while-down', ['10.50.0.0/16']));
    t.api.compact();
    await t.api.start();
    await waitFor('relisted', () => sink.serviceCIDRs?.[0] === '10.50.0.0/16');
    assert.ok(t.api.requestsFor(PATH, 'list').length >= 2, 'relisted after 410');
  });

  it('on 404 (no ServiceCIDR API) says so once at info, stops asking, and syncs without the ranges', async () => {
    await t.api.stop();
    t.api = new TestApiServer({ notServed: ['servicecidrs'] });
    await t.api.start();
    const log = recordingLogger();
    const statuses: ReflectorStatus[] = [];
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { log, watchTimeoutSeconds: () => 30, onStatus: (s) => statuses.push(s) });
    await waitFor('synced', () => sink.synced === 1);
    await waitFor('asked once', () => t.api.requestsFor(PATH).length === 1);
    // FAST_BACKOFF retries every 20-200 ms: half a second would show several retries.
    await sleep(500);
    assert.equal(t.api.requestsFor(PATH).length, 1, 'never asked again');
    assert.equal(sink.serviceCIDRs, undefined, 'nothing delivered');
    const about = log.entries.filter((e) => e.obj.resource === 'servicecidrs' || /ServiceCIDR/i.test(e.msg));
    assert.deepEqual(about.map((e) => e.level), ['info']);
    assert.match(about[0].msg, /does not serve/);
    const status = t.watcher.status();
    assert.equal(status.connected, true, 'an unserved resource does not make the t.watcher look disconnected');
    assert.equal(status.resources.find((r) => r.resource === 'servicecidrs')?.notServed, true);
    assert.ok(!statuses.some((s) => s.resource === 'servicecidrs'), 'no connection metric for a resource that is not watched');
    // Still serving everything else.
    t.api.create('services', service('default', 'after'));
    await waitFor('services flow', () => sink.services.has('default/after'));
  });

  it('on 403 warns once, keeps retrying with backoff, syncs meanwhile, and picks the ranges up once allowed', async () => {
    t.api.create('servicecidrs', serviceCIDR('kubernetes', ['10.96.0.0/16']));
    t.api.failRequests(403, PATH);
    const log = recordingLogger();
    const statuses: ReflectorStatus[] = [];
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { log, watchTimeoutSeconds: () => 30, onStatus: (s) => statuses.push(s) });
    await waitFor('synced', () => sink.synced === 1);
    await waitFor('retries', () => t.api.requestsFor(PATH, 'list').length >= 4);
    const times = t.api.requestsFor(PATH, 'list').map((r) => r.time);
    for (let i = 1; i < 4; i++) assert.ok(times[i] - times[i - 1] >= FAST_BACKOFF.initialMs * 2 ** (i - 1) - 2, `gap ${i}: ${times[i] - times[i - 1]} ms`);
    assert.equal(sink.serviceCIDRs, undefined);
    const warnings = log.entries.filter((e) => e.level === 'warn' && e.obj.resource === 'servicecidrs');
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.match(warnings[0].msg, /RBAC/);
    assert.ok(statuses.some((s) => s.resource === 'servicecidrs' && !s.connected && s.lastErrorCode === 403), 'reported for the connection metrics');
    t.api.failRequests(undefined);
    await waitFor('ranges after access granted', () => sink.serviceCIDRs?.[0] === '10.96.0.0/16');
    await waitFor('connected', () => t.watcher!.status().connected);
  });

  it('leaves out entries that are not CIDRs, with a warning naming the object', async () => {
    t.api.create('servicecidrs', serviceCIDR('messy', ['10.96.0.0/16', 'not-a-cidr', '10.0.0.0/33', '10.0.0.1', 'fd00::/129', '']));
    const log = recordingLogger();
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { log, watchTimeoutSeconds: () => 30 });
    await waitFor('synced', () => sink.synced === 1);
    assert.deepEqual(sink.serviceCIDRs, ['10.96.0.0/16']);
    const warnings = log.entries.filter((e) => e.level === 'warn' && e.obj.name === 'messy');
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].msg, /messy/);
    assert.deepEqual(warnings[0].obj.invalid, ['"not-a-cidr"', '"10.0.0.0/33"', '"10.0.0.1"', '"fd00::/129"', '""']);
  });

  it('is not requested at all with serviceCIDRs: false', async () => {
    t.api.create('servicecidrs', serviceCIDR('kubernetes', ['10.96.0.0/16']));
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { serviceCIDRs: false, watchTimeoutSeconds: () => 30 });
    await waitFor('synced', () => sink.synced === 1);
    assert.equal(t.api.requestsFor(PATH).length, 0);
    assert.equal(sink.serviceCIDRs, undefined);
  });
});
