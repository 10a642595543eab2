// src/log: text (klog's lines) by default as upstream, JSON with upstream's field names, -v mapped onto
// pino levels, and the split streams of component-base logs/api/v1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, formatTextLine, klogHeader, levelForVerbosity } from '../../src/log';

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (s: string) => { lines.push(s); } } };
}

/** klog's text header (k8s.io/klog/v2 formatHeader): severity, mmdd, hh:mm:ss.uuuuuu, pid padded to 7, source]. */
const KLOG_LINE = /^([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{6}) ([ \d]{7}) ([^ \]]+)\] (.*)\n$/;

test('-v maps to pino levels: 0-3 info, 4 debug, 5+ trace', () => {
  const want: [number, string][] = [[0, 'info'], [1, 'info'], [2, 'info'], [3, 'info'], [4, 'debug'], [5, 'trace'], [10, 'trace']];
  for (const [v, level] of want) assert.equal(levelForVerbosity(v), level, `-v=${v}`);
});

test('json: upstream field names (component-base logs/json: ts in epoch ms, msg, v on non-error lines), one object a line', () => {
  const out = capture();
  const log = createLogger({ format: 'json', verbosity: 4, destination: out.destination });
  const before = Date.now();
  log.warn({ mode: 'ipvs' }, 'deprecated');
  log.debug({}, 'detail');
  log.error({ err: 'boom' }, 'failed');
  log.trace({}, 'hidden at -v=4');
  assert.equal(out.lines.length, 3);
  const [warn, debug, error] = out.lines.map((l) => JSON.parse(l));
  assert.equal(warn.msg, 'deprecated');
  assert.equal(warn.mode, 'ipvs');
  assert.equal(warn.level, 40);
  assert.equal(warn.v, 0, 'a warning is an info line at V(0) upstream');
  assert.ok(typeof warn.ts === 'number' && warn.ts >= before && warn.ts <= Date.now(), 'ts: epoch milliseconds');
  assert.equal(warn.time, undefined, 'no pino "time": upstream calls it ts');
  assert.equal(debug.v, 4);
  assert.equal(error.v, undefined, 'error lines carry no v, as zapr writes them');
  assert.equal(error.err, 'boom');
});

test('text is klog\'s line format: "I" header, quoted message, key=value pairs; -v=4 shows debug, not trace', () => {
  const out = capture();
  const log = createLogger({ format: 'text', verbosity: 4, destination: out.destination });
  log.info({ services: 3, node: 'node a', ok: true, ports: [80] }, 'synced');
  log.debug({}, 'detail');
  log.warn({}, 'careful');
  log.error({ err: 'ENOENT' }, 'failed');
  log.trace({}, 'hidden');
  assert.equal(out.lines.length, 4);
  const m = KLOG_LINE.exec(out.lines[0]);
  assert.ok(m, out.lines[0]);
  assert.equal(m[1], 'I');
  assert.equal(Number(m[8]), process.pid);
  assert.equal(m[9], 'kube-proxy-native');
  assert.equal(m[10], '"synced" services=3 node="node a" ok=true ports=[80]');
  assert.deepEqual(out.lines.map((l) => l[0]), ['I', 'I', 'W', 'E']);
  assert.match(out.lines[3], /\] "failed" err="ENOENT"\n$/);
});

test('the text formatter renders a record exactly, in local time like klog', () => {
  const at = new Date(2026, 10, 27, 5, 46, 9, 123);
  assert.equal(klogHeader('I', at, 12345), 'I1127 05:46:09.123000   12345 kube-proxy-native] ');
  assert.equal(formatTextLine(`{"level":50,"ts":${at.getTime()},"msg":"boom","err":{"code":"ENOENT"},"n":null}`, 7),
    'E1127 05:46:09.123000       7 kube-proxy-native] "boom" err={"code":"ENOENT"} n=<nil>\n');
  assert.equal(formatTextLine(`{"level":30,"v":0,"ts":${at.getTime()},"msg":"say \\"hi\\""}`, 1),
    'I1127 05:46:09.123000       1 kube-proxy-native] "say \\"hi\\""\n');
  assert.equal(formatTextLine('not json'), 'not json\n');
});

test('split stream, text (logs/api/v1 text.go klogMsgRouter): only "I" lines go to the info stream, warnings and errors to stderr', () => {
  const info = capture();
  const errors = capture();
  const log = createLogger({ format: 'text', verbosity: 0, splitStream: true, infoDestination: info.destination, destination: errors.destination });
  log.info({}, 'one');
  log.warn({}, 'two');
  log.error({}, 'three');
  log.fatal({}, 'four');
  assert.deepEqual(info.lines.map((l) => l[0]), ['I']);
  assert.deepEqual(errors.lines.map((l) => l[0]), ['W', 'E', 'F']);
});

test('split stream, json (logs/json Factory: zap levels below error to stdout): info and warn to the info stream, errors to stderr', () => {
  const info = capture();
  const errors = capture();
  const log = createLogger({ format: 'json', verbosity: 4, splitStream: true, infoDestination: info.destination, destination: errors.destination });
  log.debug({}, 'a');
  log.info({}, 'b');
  log.warn({}, 'c');
  log.error({}, 'd');
  assert.deepEqual(info.lines.map((l) => JSON.parse(l).msg), ['a', 'b', 'c']);
  assert.deepEqual(errors.lines.map((l) => JSON.parse(l).msg), ['d']);
});

test('without split stream every line goes to one stream (upstream: stderr), whatever its level', () => {
  const one = capture();
  const log = createLogger({ format: 'text', verbosity: 0, destination: one.destination });
  log.info({}, 'a');
  log.error({}, 'b');
  assert.equal(one.lines.length, 2);
});
