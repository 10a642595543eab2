// FlowCleanupQueue and ConntrackCleanup.afterSync with an injected deleter that records every call
// and answers from a script: which filters are retried, which kept, and the bounds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConntrackCleanup } from '../../src/conntrack/cleanup';
import { filterKey } from '../../src/conntrack/filter';
import type { ConntrackDeleteResult, ConntrackFilter } from '../../src/native';
import { FlowCleanupQueue, type FlowDeleter } from '../../src/conntrack/flow-cleanup-queue';
import type { ChangeSet, ServicePort } from '../../src/core/types';

type Answer = Partial<ConntrackDeleteResult> | Error;

/** Records each call's filters; answers with the next scripted answer (default: all deleted). */
class ScriptedDeleter implements FlowDeleter {
  readonly calls: string[][] = [];
  constructor(private readonly answers: Answer[] = []) {}
  async deleteFlows(filters: readonly ConntrackFilter[]): Promise<ConntrackDeleteResult> {
    this.calls.push(filters.map(filterKey));
    const a = this.answers.shift() ?? {};
    if (a instanceof Error) throw a;
    return { deleted: filters.length, notFound: 0, failed: 0, received: filters.length, matched: filters.length, dumps: 1, tableEntries: -1, ...a };
  }
}

const f = (i: number): ConntrackFilter => ({ family: 4, protocol: 'udp', origDst: `10.96.0.${i}`, origDstPort: 53, replySrc: '10.0.1.1', replySrcPort: 5353 });
const k = (...is: number[]): string[] => is.map((i) => filterKey(f(i)));

test('FlowCleanupQueue: a rejected call keeps its filters and the next call sends them with the new ones', async () => {
  const d = new ScriptedDeleter([new Error('socket: ENOENT')]);
  const q = new FlowCleanupQueue(d);
  const first = await q.delete([f(1), f(2)]);
  assert.equal(first.error?.message, 'socket: ENOENT');
  assert.deepEqual({ filters: first.filters, retried: first.retried, pending: first.pending, dropped: first.dropped, result: first.result }, { filters: 2, retried: 0, pending: 2, dropped: 0, result: undefined });
  const second = await q.delete([f(3)]);
  assert.deepEqual(d.calls, [k(1, 2), k(1, 2, 3)]);
  assert.deepEqual({ filters: second.filters, retried: second.retried, pending: second.pending, error: second.error }, { filters: 3, retried: 2, pending: 0, error: undefined });
  assert.equal(second.result?.deleted, 3);
  assert.equal(q.pending, 0);
});

test('FlowCleanupQueue: kept filters are retried even when a sync brings none', async () => {
  const d = new ScriptedDeleter([new Error('EAGAIN')]);
  const q = new FlowCleanupQueue(d);
  await q.delete([f(1)]);
  const again = await q.delete([]);
  assert.deepEqual(d.calls, [k(1), k(1)]);
  assert.equal(again.retried, 1);
  const idle = await q.delete([]);
  assert.deepEqual(idle, { filters: 0, retried: 0, pending: 0, dropped: 0 });
  assert.equal(d.calls.length, 2, 'nothing pending, nothing new: no call');
});

test('FlowCleanupQueue: failed > 0 with failedFilters keeps exactly those filters', async () => {
  const d = new ScriptedDeleter([{ failed: 2, firstFailErrno: 16, failedFilters: [0, 2, 2] }]);
  const q = new FlowCleanupQueue(d);
  const out = await q.delete([f(1), f(2), f(3)]);
  assert.equal(out.error, undefined);
  assert.equal(out.result?.failed, 2);
  assert.equal(out.pending, 2);
  await q.delete([]);
  assert.deepEqual(d.calls[1], k(1, 3));
});

test('FlowCleanupQueue: failed > 0 without a usable index list keeps every filter of the call', async () => {
  for (const failedFilters of [undefined, [], [7], [0.5], [-1]]) {
    const d = new ScriptedDeleter([{ failed: 1, ...(failedFilters ? { failedFilters } : {}) }]);
    const q = new FlowCleanupQueue(d);
    const out = await q.delete([f(1), f(2)]);
    assert.equal(out.pending, 2, JSON.stringify(failedFilters));
  }
});

test('FlowCleanupQueue: beyond maxPending the oldest kept filters are dropped and counted', async () => {
  const d = new ScriptedDeleter([new Error('x'), new Error('x'), new Error('x')]);
  const q = new FlowCleanupQueue(d, { maxPending: 3 });
  assert.equal((await q.delete([f(1), f(2)])).dropped, 0);
  const second = await q.delete([f(3), f(4)]);
  assert.deepEqual({ pending: second.pending, dropped: second.dropped }, { pending: 3, dropped: 1 });
  const third = await q.delete([f(5), f(6), f(7)]);
  assert.deepEqual(d.calls[2], k(2, 3, 4, 5, 6, 7), 'f(1), the oldest, was dropped');
  assert.deepEqual({ pending: third.pending, dropped: third.dropped }, { pending: 3, dropped: 3 });
  assert.equal(q.droppedTotal, 4);
  await q.delete([]);
  assert.deepEqual(d.calls[3], k(5, 6, 7), 'the newest survive');
});

test('FlowCleanupQueue: maxPending 0 keeps nothing', async () => {
  const q = new FlowCleanupQueue(new ScriptedDeleter([new Error('x')]), { maxPending: 0 });
  const out = await q.delete([f(1), f(2)]);
  assert.deepEqual({ pending: out.pending, dropped: out.dropped }, { pending: 0, dropped: 2 });
});

test('FlowCleanupQueue: more filters than maxFiltersPerCall go in several calls; only the failing call is kept', async () => {
  const d = new ScriptedDeleter([{}, new Error('second call failed'), { failed: 1, failedFilters: [0] }]);
  const q = new FlowCleanupQueue(d, { maxFiltersPerCall: 2 });
  const out = await q.delete([f(1), f(2), f(3), f(4), f(5)]);
  assert.deepEqual(d.calls, [k(1, 2), k(3, 4), k(5)]);
  assert.equal(out.error?.message, 'second call failed');
  assert.deepEqual({ deleted: out.result?.deleted, failed: out.result?.failed, dumps: out.result?.dumps }, { deleted: 2 + 1, failed: 1, dumps: 2 });
  assert.equal(out.pending, 3);
  await q.delete([]);
  assert.deepEqual(d.calls[3], k(3, 4), 'retried in order, the chunks again within the limit');
  assert.deepEqual(d.calls[4], k(5));
});

test('FlowCleanupQueue: duplicates merge, and a kept endpoint filter is covered by a new broader one', async () => {
  const d = new ScriptedDeleter([new Error('x')]);
  const q = new FlowCleanupQueue(d);
  await q.delete([f(1), f(2)]);
  const broad: ConntrackFilter = { family: 4, protocol: 'udp', origDst: '10.96.0.1', origDstPort: 53 };
  const out = await q.delete([f(2), broad]);
  assert.deepEqual(d.calls[1].sort(), [filterKey(broad), ...k(2)].sort());
  assert.equal(out.retried, 1, 'f(2) was kept and sent again; f(1) is covered by the broad filter');
});

test('FlowCleanupQueue: concurrent calls run one after the other', async () => {
  let active = 0;
  let maxActive = 0;
  const slow: FlowDeleter = {
    async deleteFlows(filters) {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setImmediate(r));
      active--;
      return { deleted: filters.length, notFound: 0, failed: 0, received: 0, matched: 0, dumps: 1, tableEntries: -1 };
    },
  };
  const q = new FlowCleanupQueue(slow);
  const outs = await Promise.all([q.delete([f(1)]), q.delete([f(2)]), q.delete([f(3)])]);
  assert.equal(maxActive, 1);
  assert.deepEqual(outs.map((o) => o.result?.deleted), [1, 1, 1]);
});

test('FlowCleanupQueue: a deleter that throws a non-Error still yields an Error, never a rejection', async () => {
  const q = new FlowCleanupQueue({ deleteFlows: () => Promise.reject('plain string') });
  const out = await q.delete([f(1)]);
  assert.ok(out.error instanceof Error);
  assert.equal(out.error.message, 'plain string');
});

const svc: ServicePort = {
  key: 'ns/a:dns/UDP', namespace: 'ns', name: 'a', portName: 'dns', protocol: 'UDP', family: 'IPv4', clusterIP: '10.96.0.10', port: 53,
  nodePort: 0, externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [], affinityTimeoutSeconds: 0,
  externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0,
};
const removed: ChangeSet = { services: new Set([svc.key]), removedEndpoints: new Map([[svc.key, [{ ip: '10.0.1.1', port: 5353, ready: true, serving: true, terminating: false, isLocal: false }]]]) };
const nothing: ChangeSet = { services: new Set(), removedEndpoints: new Map() };
const noLister = { listDnatFlows: () => Promise.reject(new Error('not used')) };

test('ConntrackCleanup.afterSync: a failed delete is retried after the next sync, even one with no stale flows', async () => {
  const d = new ScriptedDeleter([new Error('ENOENT')]);
  const cleanup = new ConntrackCleanup({ deleteFlows: (fs) => d.deleteFlows(fs), ...noLister });
  const snapshot = { services: new Map([[svc.key, svc]]) };
  const first = await cleanup.afterSync(snapshot, removed);
  assert.deepEqual({ filters: first.filters, pending: first.pending, error: first.error?.message }, { filters: 1, pending: 1, error: 'ENOENT' });
  const second = await cleanup.afterSync(snapshot, nothing);
  assert.deepEqual({ filters: second.filters, retried: second.retried, pending: second.pending, deleted: second.result?.deleted }, { filters: 1, retried: 1, pending: 0, deleted: 1 });
  const third = await cleanup.afterSync(snapshot, nothing);
  assert.deepEqual(third, { filters: 0, durationSeconds: 0, retried: 0, pending: 0, dropped: 0 });
  assert.equal(d.calls.length, 2);
});
