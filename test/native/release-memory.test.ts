// releaseFreeMemory (malloc_trim) and memoryPressureGc (V8's GC under memory pressure) through the
// addon, which the sync loop calls around full syncs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryPressureGc, releaseFreeMemory } from '../../src/native';
import { gcFunction } from '../helpers/gc';

test('releaseFreeMemory returns whether memory went back to the kernel, and can be called at any time', () => {
  const held = Array.from({ length: 64 }, () => Buffer.alloc(1 << 20, 1));
  assert.equal(held.length, 64);
  held.length = 0;
  for (let i = 0; i < 3; i++) assert.equal(typeof releaseFreeMemory(), 'boolean');
});

test('memoryPressureGc collects garbage and gives the free space in the heap pages back, which gc() leaves resident', () => {
  const gc = gcFunction();
  const rssMiB = () => process.memoryUsage().rss / 1048576;
  // A fragmented heap: a third of two million small objects survives, spread over every page.
  let all: Array<{ a: number; b: string; c: number[] }> | undefined = [];
  const kept: Array<{ a: number; b: string; c: number[] }> = [];
  for (let i = 0; i < 2e6; i++) {
    const o = { a: i, b: `x${i}`, c: [i] };
    all.push(o);
    if (i % 3 === 0) kept.push(o);
  }
  all = undefined;
  // Until gc() gives nothing more back (a further one: ~10 MiB here, the pressure GC ~70).
  gc();
  gc();
  gc();
  const afterGc = rssMiB();
  const usedAfterGc = process.memoryUsage().heapUsed;
  memoryPressureGc();
  const afterPressure = rssMiB();
  assert.ok(process.memoryUsage().heapUsed <= usedAfterGc * 1.05, 'nothing live was lost or added');
  assert.ok(afterPressure < afterGc - 35, `RSS ${afterGc.toFixed(0)} MiB after gc(), ${afterPressure.toFixed(0)} after memoryPressureGc()`);
  assert.equal(kept.length, 666_667);
});
