import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { CallQueue } from '../../src/native/addon/call-queue';

test('calls run one after another, a failed one does not stop the next', async () => {
  const q = new CallQueue('X');
  const log: string[] = [];
  const slow = q.run(async () => { log.push('a start'); await new Promise((r) => setTimeout(r, 20)); log.push('a end'); return 1; });
  const failing = q.run(async () => { log.push('b'); throw new Error('b failed'); });
  const last = q.run(async () => { log.push('c'); return 3; });
  assert.equal(q.busy, true);
  assert.equal(await slow, 1);
  await assert.rejects(failing, /b failed/);
  assert.equal(await last, 3);
  assert.deepEqual(log, ['a start', 'a end', 'b', 'c']);
  assert.equal(q.busy, false);
});

test('startNowIfIdle calls at once on an idle queue, and waits its turn on a busy one', async () => {
  const q = new CallQueue('X');
  let started = false;
  const first = q.run(async () => { started = true; }, { startNowIfIdle: true });
  assert.equal(started, true, 'in this turn');
  let second = false;
  const p = q.run(async () => { second = true; }, { startNowIfIdle: true });
  assert.equal(second, false, 'behind the first');
  await Promise.all([first, p]);
  assert.equal(second, true);
});

test('close() refuses later calls and runs its callback once the queued ones finished', async () => {
  const q = new CallQueue('IpvsSocket');
  const order: string[] = [];
  const queued = q.run(async () => { await new Promise((r) => setTimeout(r, 10)); order.push('call'); });
  q.close(() => order.push('closed'));
  q.close(() => order.push('closed twice'));
  await assert.rejects(q.run(async () => undefined), /^Error: IpvsSocket: the socket is closed$/);
  await queued;
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, ['call', 'closed']);
});
