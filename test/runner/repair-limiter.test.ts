import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RepairLimiter } from '../../src/runner/repair-limiter';
import { FakeClock } from './fake-clock';

function limiter(over: Partial<ConstructorParameters<typeof RepairLimiter>[0]> = {}) {
  const clock = new FakeClock();
  const at: number[] = [];
  const l = new RepairLimiter({ clock, repair: () => at.push(clock.now()), firstGapMs: 1000, maxGapMs: 8000, ...over });
  return { clock, at, l };
}

test('the first repair runs at once', () => {
  const { at, l } = limiter();
  l.request();
  assert.deepEqual(at, [0]);
});

test('a process that keeps changing our rules gets repairs at doubling intervals, capped', async () => {
  const { clock, at, l } = limiter({ quietMs: 30_000 });
  // A foreign change every 100 ms for 40 s.
  for (let t = 0; t < 40_000; t += 100) {
    l.request();
    await clock.advance(100);
  }
  assert.deepEqual(at.slice(0, 6), [0, 1000, 3000, 7000, 15000, 23000]);
  assert.deepEqual(at.slice(6), [31000, 39000]);
  assert.equal(l.currentWaitMs() > 0, true);
});

test('requests while a repair is pending are answered by that one repair', async () => {
  const { clock, at, l } = limiter();
  l.request();
  for (let i = 0; i < 50; i++) l.request();
  await clock.advance(999);
  assert.deepEqual(at, [0]);
  await clock.advance(1);
  assert.deepEqual(at, [0, 1000]);
  await clock.advance(60_000);
  assert.deepEqual(at, [0, 1000]);
});

test('a quiet spell ends the fight: the next change is repaired at once', async () => {
  const { clock, at, l } = limiter({ quietMs: 10_000 });
  l.request();
  await clock.advance(100);
  l.request();
  await clock.advance(5000);
  assert.deepEqual(at, [0, 1000]);
  await clock.advance(20_000);
  assert.equal(l.currentWaitMs(), 0);
  l.request();
  assert.deepEqual(at, [0, 1000, 25_100]);
});

test('stop() cancels a pending repair and ignores later requests', async () => {
  const { clock, at, l } = limiter();
  l.request();
  l.request();
  l.stop();
  l.request();
  await clock.advance(10_000);
  assert.deepEqual(at, [0]);
  assert.equal(clock.pendingTimers, 0);
});

test('bad options are refused with their names', () => {
  assert.throws(() => limiter({ firstGapMs: 0 }), /firstGapMs/);
  assert.throws(() => limiter({ firstGapMs: 10, maxGapMs: 5 }), /maxGapMs/);
});
