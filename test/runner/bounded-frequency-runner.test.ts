import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BoundedFrequencyRunner,
  type BoundedFrequencyRunnerOptions,
  type RunReason,
} from '../../src/runner/bounded-frequency-runner';
import { FakeClock, settle } from './fake-clock';

interface Run {
  at: number;
  reason: RunReason;
}

type Behaviour = (reason: RunReason) => Promise<void | boolean>;

function setup(opts: Partial<BoundedFrequencyRunnerOptions> = {}) {
  const clock = new FakeClock();
  const runs: Run[] = [];
  const errors: { failures: number; retryInMs: number }[] = [];
  let concurrent = 0;
  let maxConcurrent = 0;
  const h = {
    clock,
    runs,
    errors,
    behaviour: (async () => {}) as Behaviour,
    get maxConcurrent() {
      return maxConcurrent;
    },
    runner: undefined as unknown as BoundedFrequencyRunner,
  };
  h.runner = new BoundedFrequencyRunner({
    clock,
    minIntervalMs: 1000,
    maxIntervalMs: 30000,
    onError: (_e, failures, retryInMs) => errors.push({ failures, retryInMs }),
    run: async (reason) => {
      runs.push({ at: clock.now(), reason });
      concurrent++;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      try {
        return await h.behaviour(reason);
      } finally {
        concurrent--;
      }
    },
    ...opts,
  });
  return h;
}

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: Error) => void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

test('a request after start runs at once, with reason requested', async () => {
  const h = setup();
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  assert.deepEqual(h.runs, [{ at: 0, reason: 'requested' }]);
});

test('requests before start wait for start', async () => {
  const h = setup();
  h.runner.run();
  await h.clock.advance(5000);
  assert.equal(h.runs.length, 0);
  h.runner.start();
  await h.clock.advance(0);
  assert.deepEqual(h.runs, [{ at: 5000, reason: 'requested' }]);
});

test('a burst inside minInterval coalesces into one run at the interval boundary', async () => {
  const h = setup();
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  for (let i = 0; i < 10; i++) {
    await h.clock.advance(50);
    h.runner.run();
  }
  await h.clock.advance(2000);
  assert.deepEqual(h.runs.map((r) => r.at), [0, 1000]);
  assert.ok(h.runs.every((r) => r.reason === 'requested'));
});

test('a request after minInterval has passed runs immediately', async () => {
  const h = setup();
  h.runner.start();
  h.runner.run();
  await h.clock.advance(1500);
  h.runner.run();
  await h.clock.advance(0);
  assert.deepEqual(h.runs.map((r) => r.at), [0, 1500]);
});

test('requests during a run cause exactly one later run, never a concurrent one', async () => {
  const h = setup();
  const slow = deferred();
  h.behaviour = () => slow.promise;
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  for (let i = 0; i < 5; i++) {
    h.runner.run();
    await h.clock.advance(1000);
  }
  assert.equal(h.runs.length, 1, 'no second run while the first is in flight');
  h.behaviour = async () => {};
  slow.resolve();
  await h.clock.advance(0);
  await h.clock.advance(10000);
  assert.deepEqual(h.runs.map((r) => r.at), [0, 5000]);
  assert.equal(h.maxConcurrent, 1);
});

test('a run that outlasts minInterval is followed at once when requested during it', async () => {
  const h = setup();
  const slow = deferred();
  h.behaviour = () => slow.promise;
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  await h.clock.advance(200);
  h.runner.run();
  await h.clock.advance(2800);
  h.behaviour = async () => {};
  slow.resolve();
  await h.clock.advance(0);
  assert.deepEqual(h.runs.map((r) => r.at), [0, 3000]);
});

test('with no requests, runs come every maxInterval with reason periodic', async () => {
  const h = setup();
  h.runner.start();
  await h.clock.advance(95000);
  assert.deepEqual(h.runs, [
    { at: 30000, reason: 'periodic' },
    { at: 60000, reason: 'periodic' },
    { at: 90000, reason: 'periodic' },
  ]);
});

test('a requested run restarts the periodic countdown', async () => {
  const h = setup();
  h.runner.start();
  await h.clock.advance(20000);
  h.runner.run();
  await h.clock.advance(0);
  await h.clock.advance(45000);
  assert.deepEqual(h.runs, [
    { at: 20000, reason: 'requested' },
    { at: 50000, reason: 'periodic' },
  ]);
});

test('a periodic deadline that passes during a run leads to a periodic run right after it', async () => {
  const h = setup({ maxIntervalMs: 5000 });
  const slow = deferred();
  h.behaviour = () => slow.promise;
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  await h.clock.advance(7000);
  h.behaviour = async () => {};
  slow.resolve();
  await h.clock.advance(0);
  assert.deepEqual(h.runs, [
    { at: 0, reason: 'requested' },
    { at: 7000, reason: 'periodic' },
  ]);
});

test('maxInterval 0 disables periodic runs', async () => {
  const h = setup({ maxIntervalMs: 0 });
  h.runner.start();
  await h.clock.advance(1_000_000);
  assert.equal(h.runs.length, 0);
  assert.equal(h.clock.pendingTimers, 0);
});

test('minInterval 0 lets runs follow each other back to back', async () => {
  const h = setup({ minIntervalMs: 0 });
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  h.runner.run();
  await h.clock.advance(0);
  h.runner.run();
  await h.clock.advance(0);
  assert.deepEqual(h.runs.map((r) => r.at), [0, 0, 0]);
});

test('a failing run is retried with doubling delays up to the bound, reason retry', async () => {
  const h = setup({ retryInitialMs: 1000, retryMaxMs: 8000, maxIntervalMs: 60000 });
  h.behaviour = async () => {
    throw new Error('kernel said no');
  };
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  await h.clock.advance(40000);
  assert.deepEqual(
    h.runs.map((r) => r.at),
    [0, 1000, 3000, 7000, 15000, 23000, 31000, 39000],
  );
  assert.deepEqual(h.runs.slice(1).map((r) => r.reason), Array(7).fill('retry'));
  assert.deepEqual(h.errors.map((e) => e.retryInMs).slice(0, 6), [1000, 2000, 4000, 8000, 8000, 8000]);
  assert.equal(h.runner.consecutiveFailures, 8);
});

test('success after failures resets the backoff', async () => {
  const h = setup({ retryInitialMs: 1000, retryMaxMs: 8000 });
  let fail = true;
  h.behaviour = async () => {
    if (fail) throw new Error('no');
  };
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  await h.clock.advance(3000); // failed at 0, 1000, 3000
  fail = false;
  await h.clock.advance(4000); // retry at 7000 succeeds
  assert.equal(h.runner.consecutiveFailures, 0);
  fail = true;
  h.runner.run();
  await h.clock.advance(0); // minInterval holds it to 8000, where it fails → first delay again
  await h.clock.advance(2000);
  assert.deepEqual(h.runs.map((r) => r.at), [0, 1000, 3000, 7000, 8000, 9000]);
  assert.deepEqual(h.errors.map((e) => e.retryInMs), [1000, 2000, 4000, 1000, 2000]);
});

test('resolving false counts as a failure', async () => {
  const h = setup({ retryInitialMs: 500 });
  let result = false;
  h.behaviour = async () => result;
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  result = true;
  await h.clock.advance(1000);
  assert.deepEqual(h.runs, [
    { at: 0, reason: 'requested' },
    { at: 1000, reason: 'retry' },
  ]);
  assert.equal(h.errors.length, 1);
});

test('requests during backoff wait for the retry instead of hammering', async () => {
  const h = setup({ retryInitialMs: 4000 });
  let fail = true;
  h.behaviour = async () => {
    if (fail) throw new Error('no');
  };
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  fail = false;
  for (let i = 0; i < 3; i++) {
    await h.clock.advance(1000);
    h.runner.run();
  }
  await h.clock.advance(5000);
  assert.deepEqual(h.runs, [
    { at: 0, reason: 'requested' },
    { at: 4000, reason: 'retry' },
  ]);
});

test('retryAfter schedules a retry run; called during a run it applies after the run', async () => {
  const h = setup();
  h.runner.start();
  h.behaviour = async (reason) => {
    if (reason === 'requested') h.runner.retryAfter(2500);
  };
  h.runner.run();
  await h.clock.advance(0);
  await h.clock.advance(3000);
  assert.deepEqual(h.runs, [
    { at: 0, reason: 'requested' },
    { at: 2500, reason: 'retry' },
  ]);
  h.runner.retryAfter(100);
  await h.clock.advance(1000);
  assert.deepEqual(h.runs[2], { at: 3500, reason: 'retry' }, 'a retry still respects minInterval');
});

test('stop waits for the run in flight and prevents any later run', async () => {
  const h = setup();
  const slow = deferred();
  h.behaviour = () => slow.promise;
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  h.runner.run();
  let stopped = false;
  const stopping = h.runner.stop().then(() => {
    stopped = true;
  });
  await settle();
  assert.equal(stopped, false, 'stop resolves only after the run finishes');
  slow.resolve();
  await stopping;
  assert.equal(stopped, true);
  await h.clock.advance(100000);
  assert.equal(h.runs.length, 1);
  assert.equal(h.clock.pendingTimers, 0);
  h.runner.run();
  await h.clock.advance(100000);
  assert.equal(h.runs.length, 1, 'requests after stop are ignored');
});

test('an error hook that throws does not stop the loop', async () => {
  const h = setup({
    retryInitialMs: 100,
    onError: () => {
      throw new Error('hook broke');
    },
  });
  let n = 0;
  h.behaviour = async () => {
    if (n++ === 0) throw new Error('first fails');
  };
  h.runner.start();
  h.runner.run();
  await h.clock.advance(0);
  await h.clock.advance(1000);
  assert.deepEqual(h.runs.map((r) => r.reason), ['requested', 'retry']);
});

test('a synchronous throw from the run function is a failure, not a crash', async () => {
  const clock = new FakeClock();
  const reasons: RunReason[] = [];
  const runner = new BoundedFrequencyRunner({
    clock,
    minIntervalMs: 0,
    maxIntervalMs: 0,
    retryInitialMs: 10,
    run: (reason) => {
      reasons.push(reason);
      if (reasons.length === 1) throw new Error('sync throw');
      return Promise.resolve();
    },
  });
  runner.start();
  runner.run();
  await clock.advance(0);
  await clock.advance(10);
  assert.deepEqual(reasons, ['requested', 'retry']);
});

test('bad options are rejected with the option named', () => {
  const clock = new FakeClock();
  const run = async () => {};
  const make = (o: Partial<BoundedFrequencyRunnerOptions>) =>
    new BoundedFrequencyRunner({ clock, run, minIntervalMs: 1000, maxIntervalMs: 30000, ...o });
  assert.throws(() => make({ minIntervalMs: -1 }), /minIntervalMs/);
  assert.throws(() => make({ maxIntervalMs: Number.NaN }), /maxIntervalMs/);
  assert.throws(() => make({ maxIntervalMs: 500 }), /maxIntervalMs \(500\) must be 0 or >= minIntervalMs/);
  assert.throws(() => make({ retryInitialMs: 0 }), /retryInitialMs/);
  assert.throws(() => make({ retryInitialMs: 5000, retryMaxMs: 1000 }), /retryMaxMs/);
  assert.throws(() => make({}).retryAfter(-5), /retryAfter\(ms\)/);
});

test('a request runs on a clock that moves between two reads (regression: it was rescheduled forever)', async () => {
  // Every read of this clock is a little later than the one before, as performance.now() is; the
  // timers are the fake clock's, so nothing here depends on real time.
  const fake = new FakeClock();
  let drift = 0;
  const moving = { now: () => fake.now() + (drift += 0.001), wall: () => fake.wall(), setTimer: fake.setTimer.bind(fake), clearTimer: fake.clearTimer.bind(fake) };
  const reasons: string[] = [];
  const r = new BoundedFrequencyRunner({ clock: moving, run: async (why) => { reasons.push(why); }, minIntervalMs: 100, maxIntervalMs: 30_000 });
  r.start();
  r.run();
  await fake.advance(1);
  assert.deepEqual(reasons, ['requested']);
  await r.stop();
});
