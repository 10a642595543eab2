// A 429 from API Priority and Fairness carries Retry-After: the watcher waits at least that long before
// asking again (the real kube-apiserver's answer, docs/watching.md "Against the real API server"), and
// nothing changed meanwhile is lost.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiConnection, ApiError } from '../../src/k8s/api-request';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import type { ReflectorStatus } from '../../src/k8s/reflector';
import { RecordingSink, recordingLogger, service, serverPerTest, startTestWatcher, waitFor } from './helpers';

const t = serverPerTest();

describe('429 Too Many Requests', { timeout: 30_000 }, () => {
  it('is an ApiError with the Retry-After seconds, and the API server\'s plain-text answer', async () => {
    t.api.failRequests(429, '/api/v1/nodes', { retryAfterSeconds: 3 });
    const conn = new ApiConnection(loadKubeConfig({ kubeconfig: t.api.kubeconfig() }));
    const err = await conn.getJson('/api/v1/nodes', { limit: 500 }).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.statusCode, 429);
    assert.equal(err.retryAfterSeconds, 3);
    assert.match(err.message, /HTTP 429 Too Many Requests/);
  });

  it('waits the Retry-After before the next try (not the shorter backoff), then catches up', async () => {
    t.api.create('services', service('default', 'before'));
    t.api.failRequests(429, '/api/v1/services', { retryAfterSeconds: 1 });
    const sink = new RecordingSink();
    const statuses: ReflectorStatus[] = [];
    // FAST_BACKOFF retries after 20, 40, 80 ms: without Retry-After honoured, 3 tries come within 150 ms.
    const log = recordingLogger();
    t.watcher = startTestWatcher(t.api, sink, { onStatus: (s) => statuses.push(s), log });
    await waitFor('two tries', () => t.api.requestsFor('/api/v1/services', 'list').length >= 2, 5000);
    t.api.create('services', service('default', 'while-throttled'));
    t.api.failRequests(undefined);
    const [first, second] = t.api.requestsFor('/api/v1/services', 'list').map((r) => r.time);
    assert.ok(second - first >= 990, `retried after ${second - first} ms, Retry-After said 1 s`);
    assert.ok(statuses.some((s) => s.resource === 'services' && s.lastErrorCode === 429));
    // The warning says what the server asked for and how long the watcher waits.
    const warned = log.entries.find((e) => e.level === 'warn' && e.obj.resource === 'services');
    assert.equal(warned?.obj.retryAfterSeconds, 1, JSON.stringify(warned));
    assert.ok(Number(warned?.obj.retryInMs) >= 1000, JSON.stringify(warned));
    await waitFor('synced with everything', () => sink.synced === 1 && sink.services.has('default/while-throttled') && sink.services.has('default/before'));
  });

  it('on a watch, waits the Retry-After and resumes from its version (no relist)', async () => {
    const sink = new RecordingSink();
    t.watcher = startTestWatcher(t.api, sink, { watchTimeoutSeconds: () => 1 });
    await waitFor('synced', () => sink.synced === 1);
    await waitFor('watching', () => t.api.requestsFor('/api/v1/services', 'watch').length >= 1);
    const listsBefore = t.api.requestsFor('/api/v1/services', 'list').length;
    t.api.failRequests(429, '/api/v1/services', { retryAfterSeconds: 1 });
    // The watch ends at its 1 s timeout; the next one is refused.
    await waitFor('a refused watch', () => t.api.requestsFor('/api/v1/services', 'watch').length >= 2, 5000);
    t.api.create('services', service('default', 'while-throttled'));
    await waitFor('another watch', () => t.api.requestsFor('/api/v1/services', 'watch').length >= 3, 5000);
    t.api.failRequests(undefined);
    const watches = t.api.requestsFor('/api/v1/services', 'watch');
    assert.ok(watches[2].time - watches[1].time >= 990, `retried after ${watches[2].time - watches[1].time} ms`);
    await waitFor('caught up', () => sink.services.has('default/while-throttled'));
    assert.equal(t.api.requestsFor('/api/v1/services', 'list').length, listsBefore, 'no relist');
    assert.equal(watches[2].query.resourceVersion, watches[1].query.resourceVersion);
  });
});
