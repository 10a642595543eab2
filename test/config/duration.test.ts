import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDuration, parseDuration } from '../../src/config/duration';

test('Go durations parse to milliseconds', () => {
  const cases: [string, number][] = [
    ['0', 0], ['0s', 0], ['1s', 1000], ['1m30s', 90_000], ['1.5h', 5_400_000], ['500ms', 500],
    ['250us', 0.25], ['250µs', 0.25], ['100ns', 0.0001], ['-1s', -1000], ['+2m', 120_000], ['1h0m0s', 3_600_000], ['.5s', 500],
  ];
  for (const [text, ms] of cases) assert.equal(parseDuration(text), ms, text);
});

test('bad Go durations are errors saying why', () => {
  const cases: [string, string][] = [
    ['', 'invalid duration ""'],
    ['10', 'invalid duration "10": missing unit'],
    ['10x', 'invalid duration "10x": unknown unit "x"'],
    ['s', 'invalid duration "s"'],
    ['1d', 'invalid duration "1d": unknown unit "d"'],
    ['999999999h', 'invalid duration "999999999h": out of range'],
  ];
  for (const [text, message] of cases) assert.throws(() => parseDuration(text), { message }, text);
});

test('durations format as Go prints them', () => {
  const cases: [number, string][] = [
    [0, '0s'], [1000, '1s'], [90_000, '1m30s'], [3_600_000, '1h0m0s'], [86_400_000, '24h0m0s'], [900_000, '15m0s'],
    [500, '500ms'], [1500, '1.5s'], [0.25, '250µs'], [-1000, '-1s'],
  ];
  for (const [ms, text] of cases) assert.equal(formatDuration(ms), text, String(ms));
});
