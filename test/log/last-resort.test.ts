// The process's last resort, in child processes: an uncaught exception or an unhandled rejection is
// logged with its stack and exits 1; bad requests and a bug in an HTTP handler are not fatal.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describeThrown, LAST_RESORT_EXIT_CODE } from '../../src/log';

const CHILD = path.join(__dirname, 'last-resort-child.js');

function runChild(kind: string) {
  const r = spawnSync(process.execPath, [CHILD, kind], { encoding: 'utf8', timeout: 30_000 });
  const lines = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { level: number; msg: string; kind?: string; error?: { type: string; message: string; stack?: string } });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, lines };
}

describe('last resort', { timeout: 120_000 }, () => {
  it('an uncaught exception is logged with its stack and exits 1', () => {
    const r = runChild('throw');
    assert.equal(r.code, LAST_RESORT_EXIT_CODE, r.stderr);
    assert.equal(LAST_RESORT_EXIT_CODE, 1);
    const fatal = r.lines.find((l) => l.level === 60);
    assert.ok(fatal, r.stderr);
    assert.equal(fatal.kind, 'uncaughtException');
    assert.equal(fatal.error?.type, 'Error');
    assert.equal(fatal.error?.message, 'boom in a timer');
    assert.match(fatal.error?.stack ?? '', /last-resort-child\.js:\d+/);
    assert.match(fatal.msg, /rules stay in place/);
  });

  it('a thrown non-Error is described too', () => {
    const r = runChild('throw-string');
    assert.equal(r.code, 1, r.stderr);
    const fatal = r.lines.find((l) => l.level === 60);
    assert.deepEqual(fatal?.error, { type: 'string', message: 'a bare string' });
  });

  it('an unhandled rejection is logged with its stack and exits 1', () => {
    const r = runChild('reject');
    assert.equal(r.code, 1, r.stderr);
    const fatal = r.lines.find((l) => l.level === 60);
    assert.equal(fatal?.kind, 'unhandledRejection');
    assert.equal(fatal?.error?.message, 'nobody awaited this');
    assert.match(fatal?.error?.stack ?? '', /last-resort-child\.js/);
  });

  it('bad requests and a bug in a request handler are not fatal: 500, a log line, and the process runs on', () => {
    const r = runChild('handler-bug');
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { doubleSlash: 301, percent: 400, healthz: 500, livez: 200 });
    assert.equal(r.lines.filter((l) => l.level === 60).length, 0, 'nothing reached the last resort');
    const failed = r.lines.find((l) => l.msg === 'HTTP handler failed; answered 500');
    assert.ok(failed, r.stderr);
    assert.match(JSON.stringify(failed), /bug in the staleness input/);
  });

  it('describes whatever was thrown without throwing itself', () => {
    assert.deepEqual(describeThrown(undefined), { type: 'undefined', message: 'undefined' });
    assert.deepEqual(describeThrown({ a: 1 }), { type: 'object', message: '{"a":1}' });
    assert.equal(describeThrown(10n).type, 'bigint');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    assert.deepEqual(describeThrown(circular), { type: 'object', message: '[object Object]' });
  });
});
