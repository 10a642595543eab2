// Kubernetes Events as upstream's recorder (client-go tools/events, events.k8s.io/v1, created by
// kube-proxy with NewRecorder(scheme, "kube-proxy")) posts them, against the test API server; and
// that recording never blocks or fails the caller: a bounded queue, drops counted and logged once.
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { EventRecorder, type KubeEvent, MAX_NOTE_BYTES, microTime, truncateNote } from '../../src/k8s/event-recorder';
import { postEvent } from '../../src/k8s/events-client';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import { TestApiServer } from '../apiserver/server';
import { eventually } from '../traffic/harness';

const NODE_REF = { kind: 'Node', name: 'node-a', uid: 'node-a' };

function recordingLog() {
  const lines: Array<{ level: string; msg: string; obj: object }> = [];
  const at = (level: string) => (obj: object, msg: string) => lines.push({ level, msg, obj });
  return { lines, log: { warn: at('warn'), debug: at('debug') } };
}

let api: TestApiServer;
beforeEach(async () => {
  api = new TestApiServer({ bookmarkIntervalMs: 0 });
  await api.start();
});
afterEach(() => api.stop());

function recorderFor(over: Partial<ConstructorParameters<typeof EventRecorder>[0]> = {}): EventRecorder {
  const creds = loadKubeConfig({ kubeconfig: api.kubeconfig() });
  return new EventRecorder({ post: (ns, e) => postEvent(creds, ns, e, 5000), hostname: 'host-1', retryDelayMs: 10, ...over });
}

describe('Kubernetes Events through the events API', { timeout: 60_000 }, () => {
  it('posts upstream\'s "Starting" event on the Node to events.k8s.io/v1 in "default", with the credentials', async () => {
    const r = recorderFor();
    const before = Date.now();
    r.eventf(NODE_REF, 'Normal', 'Starting', 'StartKubeProxy', '');
    await r.flush(5000);
    assert.equal(api.events.length, 1);
    const { path, event } = api.events[0];
    assert.equal(path, '/apis/events.k8s.io/v1/namespaces/default/events');
    const e = event as unknown as KubeEvent;
    assert.equal(e.apiVersion, 'events.k8s.io/v1');
    assert.equal(e.kind, 'Event');
    assert.equal(e.metadata.namespace, 'default');
    // makeEvent: "<regarding name>.<UnixNano in hex>"
    const m = /^node-a\.([0-9a-f]+)$/.exec(e.metadata.name);
    assert.ok(m, e.metadata.name);
    const ms = Number(BigInt(`0x${m[1]}`) / 1_000_000n);
    assert.ok(ms >= before && ms <= Date.now(), 'the name carries the time in nanoseconds');
    assert.match(e.eventTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'MicroTime');
    assert.equal(e.reportingController, 'kube-proxy');
    assert.equal(e.reportingInstance, 'kube-proxy-host-1');
    assert.deepEqual(e.regarding, NODE_REF);
    assert.deepEqual([e.type, e.reason, e.action, e.note], ['Normal', 'Starting', 'StartKubeProxy', '']);
    const post = api.requests.find((q) => q.method === 'POST');
    assert.equal(post?.authorization, 'Bearer test-token');
    assert.deepEqual(r.stats(), { sent: 1, aggregated: 0, dropped: { queueFull: 0, refused: 0, failed: 0 }, queued: 0 });
  });

  it('posts a Service\'s event in the Service\'s namespace', async () => {
    const r = recorderFor();
    r.eventf({ kind: 'Service', namespace: 'shop', name: 'web', uid: 'shop/web' }, 'Warning', 'FailedToStartServiceHealthcheck', 'Listen', 'x');
    await r.flush(5000);
    assert.equal(api.events[0].path, '/apis/events.k8s.io/v1/namespaces/shop/events');
    assert.equal((api.events[0].event as unknown as KubeEvent).metadata.namespace, 'shop');
  });

  it('drops an event the API server refuses (403: no RBAC), counts it, warns once, and goes on', async () => {
    const { lines, log } = recordingLog();
    const r = recorderFor({ log });
    api.failRequests(403, '/apis/events.k8s.io');
    r.eventf(NODE_REF, 'Warning', 'A', 'StartKubeProxy', '');
    r.eventf(NODE_REF, 'Warning', 'B', 'StartKubeProxy', '');
    await r.flush(5000);
    assert.deepEqual(r.stats().dropped, { queueFull: 0, refused: 2, failed: 0 });
    assert.deepEqual(lines.map((l) => l.level), ['warn', 'debug'], 'logged once, then at debug');
    assert.match(String((lines[0].obj as { err: string }).err), /HTTP 403 Forbidden/);
    api.failRequests(undefined);
    r.eventf(NODE_REF, 'Normal', 'C', 'StartKubeProxy', '');
    await r.flush(5000);
    assert.deepEqual(api.events.map((e) => (e.event as unknown as KubeEvent).reason), ['C']);
  });

  it('retries an event the API server could not take (500), then sends it', async () => {
    const r = recorderFor({ retryDelayMs: 200 });
    api.failRequests(500, '/apis/events.k8s.io');
    r.eventf(NODE_REF, 'Normal', 'Starting', 'StartKubeProxy', '');
    await eventually(() => api.requests.filter((q) => q.method === 'POST').length >= 2, 'a retry');
    api.failRequests(undefined);
    await eventually(() => r.stats().sent === 1, 'the event sent');
    assert.equal(api.events.length, 1);
  });

  it('gives up after maxAttempts when the API server is unreachable, without throwing', async () => {
    const { lines, log } = recordingLog();
    const r = recorderFor({ log, maxAttempts: 3 });
    await api.stop();
    r.eventf(NODE_REF, 'Normal', 'Starting', 'StartKubeProxy', '');
    await r.flush(10_000);
    assert.deepEqual(r.stats().dropped, { queueFull: 0, refused: 0, failed: 1 });
    assert.match(String((lines[0].obj as { err: string }).err), /ECONNREFUSED/);
    await api.start();
  });
});

describe('EventRecorder queue (injected sender)', () => {
  it('never blocks: a sender that hangs holds one event, the queue holds maxQueued, the rest is dropped', () => {
    const { lines, log } = recordingLog();
    const r = new EventRecorder({ post: () => new Promise(() => undefined), hostname: 'h', log, maxQueued: 3 });
    for (let i = 0; i < 6; i++) r.eventf(NODE_REF, 'Normal', `R${i}`, 'StartKubeProxy', '');
    assert.deepEqual(r.stats(), { sent: 0, aggregated: 0, dropped: { queueFull: 2, refused: 0, failed: 0 }, queued: 4 });
    assert.equal(lines.filter((l) => l.level === 'warn').length, 1);
    r.stop();
  });

  it('does not send again an event like one sent within 6 minutes (upstream\'s isomorphic events), and does after', async () => {
    let now = 0;
    const sent: KubeEvent[] = [];
    const clock = { now: () => now, wall: () => new Date(1_700_000_000_000 + now), setTimer: setTimeout, clearTimer: (h: unknown) => clearTimeout(h as NodeJS.Timeout) };
    const r = new EventRecorder({ post: async (_ns, e) => void sent.push(e), hostname: 'h', clock });
    const svc = { kind: 'Service', namespace: 'shop', name: 'web', uid: 'shop/web' };
    r.eventf(svc, 'Warning', 'FailedToStartServiceHealthcheck', 'Listen', 'port 1 taken');
    now = 5 * 60_000;
    r.eventf(svc, 'Warning', 'FailedToStartServiceHealthcheck', 'Listen', 'port 1 taken');
    r.eventf({ ...svc, name: 'other', uid: 'shop/other' }, 'Warning', 'FailedToStartServiceHealthcheck', 'Listen', 'port 2 taken');
    now = 6 * 60_000;
    r.eventf(svc, 'Warning', 'FailedToStartServiceHealthcheck', 'Listen', 'port 1 taken');
    await r.flush(1000);
    assert.deepEqual(sent.map((e) => e.regarding.name), ['web', 'other', 'web']);
    assert.equal(r.stats().aggregated, 1);
    assert.equal(sent[0].eventTime, '2023-11-14T22:13:20.000000Z');
  });

  it('cuts a note over 1024 bytes to 1021 and "..." (upstream maxEventNoteLen)', () => {
    assert.equal(truncateNote('x'.repeat(1024)), 'x'.repeat(1024));
    const cut = truncateNote('é'.repeat(700));
    assert.ok(Buffer.byteLength(cut) <= MAX_NOTE_BYTES);
    assert.ok(cut.endsWith('...'));
    assert.equal(truncateNote('y'.repeat(2000)), `${'y'.repeat(1021)}...`);
    assert.equal(microTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 67))), '2026-01-02T03:04:05.067000Z');
  });
});
