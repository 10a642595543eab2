// releaseFreeMemory: malloc_trim through the addon, called by the sync loop after full syncs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { releaseFreeMemory } from '../../src/native';

test('releaseFreeMemory returns whether memory went back to the kernel, and can be called at any time', () => {
  const held = Array.from({ length: 64 }, () => Buffer.alloc(1 << 20, 1));
  assert.equal(held.length, 64);
  held.length = 0;
  for (let i = 0; i < 3; i++) assert.equal(typeof releaseFreeMemory(), 'boolean');
});
