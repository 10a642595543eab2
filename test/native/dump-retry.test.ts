import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { DUMP_ATTEMPTS, retryInterrupted } from '../../src/native/addon/dump-retry';

const interrupted = (): Error => Object.assign(new Error('dump interrupted by a concurrent change'), { errno: 4, code: 'EINTR' });

test('an interrupted dump is read again until it comes back whole', async () => {
  let calls = 0;
  const r = await retryInterrupted(async () => { if (++calls < 3) throw interrupted(); return ['whole']; });
  assert.deepEqual([r, calls], [['whole'], 3]);
});

test('a dump interrupted every time gives up after a few attempts with the EINTR error', async () => {
  let calls = 0;
  await assert.rejects(retryInterrupted(async () => { calls++; throw interrupted(); }), /interrupted/);
  assert.equal(calls, DUMP_ATTEMPTS);
});

test('other errors are not retried', async () => {
  let calls = 0;
  await assert.rejects(retryInterrupted(async () => { calls++; throw Object.assign(new Error('no such device'), { errno: 19 }); }), /no such device/);
  assert.equal(calls, 1);
});
