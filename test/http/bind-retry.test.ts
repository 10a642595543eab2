import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { serveWithBindRetry } from '../../src/http';
import type { RunningServer } from '../../src/http';

function fakeClock() {
  const timers: { fn: () => void; ms: number }[] = [];
  return {
    timers,
    setTimer: (fn: () => void, ms: number) => { const t = { fn, ms }; timers.push(t); return t; },
    clearTimer: (t: unknown) => { const i = timers.indexOf(t as never); if (i >= 0) timers.splice(i, 1); },
    fire: async () => { const t = timers.shift(); t?.fn(); await new Promise((r) => setImmediate(r)); },
  };
}

function logger() {
  const lines: string[] = [];
  return { lines, info: (_o: object, m: string) => { lines.push(`info ${m}`); }, error: (_o: object, m: string) => { lines.push(`error ${m}`); } };
}

const inUse = (): Error => Object.assign(new Error('metricsBindAddress: cannot listen on 127.0.0.1:10249: EADDRINUSE'), { code: 'EADDRINUSE' });

test('hard fail: the start fails with the server\'s error', async () => {
  const clock = fakeClock();
  await assert.rejects(serveWithBindRetry(async () => { throw inUse(); }, { name: 'metrics', hardFail: true, log: logger(), clock }), /EADDRINUSE/);
  assert.equal(clock.timers.length, 0);
});

test('no hard fail: retries every 5 s, logs the first failure and then once a minute, and listens once it can', async () => {
  const clock = fakeClock();
  const log = logger();
  let tries = 0;
  let closedServer = false;
  const server: RunningServer = { port: 10249, close: async () => { closedServer = true; } };
  const s = await serveWithBindRetry(async () => { if (++tries <= 13) throw inUse(); return server; }, { name: 'metrics', hardFail: false, log, clock });
  assert.equal(s.port, 0);
  assert.equal(clock.timers[0].ms, 5000);
  for (let i = 0; i < 12; i++) await clock.fire();
  assert.equal(s.port, 0);
  assert.deepEqual(log.lines, Array(2).fill('error The metrics server cannot listen; retrying (bindAddressHardFail is false)'));
  await clock.fire();
  assert.equal(s.port, 10249);
  assert.equal(log.lines.at(-1), 'info The metrics server is listening now');
  assert.equal(clock.timers.length, 0);
  await s.close();
  assert.ok(closedServer);
});

test('no hard fail: close() stops the retries', async () => {
  const clock = fakeClock();
  let tries = 0;
  const s = await serveWithBindRetry(async () => { tries++; throw inUse(); }, { name: 'healthz', hardFail: false, log: logger(), clock });
  await s.close();
  assert.equal(clock.timers.length, 0);
  assert.equal(tries, 1);
});
