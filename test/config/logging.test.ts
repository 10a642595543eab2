// src/log: JSON lines by default, text for people, -v mapped onto pino levels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, formatTextLine, levelForVerbosity } from '../../src/log';

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (s: string) => { lines.push(s); } } };
}

test('-v maps to pino levels: 0-3 info, 4 debug, 5+ trace', () => {
  const want: [number, string][] = [[0, 'info'], [1, 'info'], [2, 'info'], [3, 'info'], [4, 'debug'], [5, 'trace'], [10, 'trace']];
  for (const [v, level] of want) assert.equal(levelForVerbosity(v), level, `-v=${v}`);
});

test('JSON by default: one object per line, with msg, level and fields', () => {
  const out = capture();
  const log = createLogger({ format: 'json', verbosity: 0, destination: out.destination });
  log.warn({ mode: 'ipvs' }, 'deprecated');
  log.debug('hidden at -v=0');
  assert.equal(out.lines.length, 1);
  const rec = JSON.parse(out.lines[0]);
  assert.equal(rec.level, 40);
  assert.equal(rec.msg, 'deprecated');
  assert.equal(rec.mode, 'ipvs');
  assert.equal(typeof rec.time, 'number');
});

test('--logging-format=text: readable lines; -v=4 shows debug, not trace', () => {
  const out = capture();
  const log = createLogger({ format: 'text', verbosity: 4, destination: out.destination });
  log.info({ services: 3, node: 'node a' }, 'synced');
  log.debug('detail');
  log.trace('hidden');
  assert.equal(out.lines.length, 2);
  assert.match(out.lines[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO  synced services=3 node="node a"\n$/);
  assert.match(out.lines[1], / DEBUG detail\n$/);
});

test('the text formatter renders a record exactly', () => {
  assert.equal(formatTextLine('{"level":50,"time":0,"msg":"boom","err":{"code":"ENOENT"}}'),
    '1970-01-01T00:00:00.000Z ERROR boom err={"code":"ENOENT"}\n');
  assert.equal(formatTextLine('not json'), 'not json\n');
});
