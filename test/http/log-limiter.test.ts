// The log limiter on a fake clock and a manual timer: a flood gives one line per interval, with counts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LimitedLine, LogLimiter } from '../../src/http/log-limiter';

function harness(intervalMs = 60_000) {
  let now = 0;
  const lines: LimitedLine[] = [];
  const timers: { fn: () => void; at: number; cancelled: boolean }[] = [];
  const limiter = new LogLimiter(
    (l) => lines.push(l),
    intervalMs,
    () => now,
    (fn, ms) => {
      const t = { fn, at: now + ms, cancelled: false };
      timers.push(t);
      return { cancel: () => (t.cancelled = true) };
    },
  );
  const advance = (ms: number) => {
    now += ms;
    for (const t of timers.filter((x) => !x.cancelled && x.at <= now)) {
      t.cancelled = true;
      t.fn();
    }
  };
  return { limiter, lines, advance, timers };
}

describe('LogLimiter', () => {
  it('reports the first event at once, then one summary line at the end of the interval', () => {
    const h = harness();
    h.limiter.note('HPE_INVALID_METHOD', { remote: '198.51.100.7' });
    assert.deepEqual(h.lines, [{ count: 1, kinds: { HPE_INVALID_METHOD: 1 }, first: { remote: '198.51.100.7' } }]);
    for (let i = 0; i < 10_000; i++) h.limiter.note(i % 2 ? 'HPE_INVALID_METHOD' : 'body too large', { i });
    assert.equal(h.lines.length, 1, 'nothing more within the interval');
    assert.equal(h.timers.length, 1, 'one timer for the whole flood');
    h.advance(59_999);
    assert.equal(h.lines.length, 1);
    h.advance(1);
    assert.deepEqual(h.lines[1], { count: 10_000, kinds: { 'body too large': 5000, HPE_INVALID_METHOD: 5000 }, first: { i: 0 } });
  });

  it('keeps one line per interval under a steady trickle, and logs at once after a quiet interval', () => {
    const h = harness(1000);
    for (let t = 0; t < 10_000; t += 100) {
      h.limiter.note('x', {});
      h.advance(100);
    }
    assert.ok(h.lines.length <= 11, `${h.lines.length} lines for 10 s`);
    assert.equal(h.lines.reduce((n, l) => n + l.count, 0), 100, 'every event counted');
    h.advance(5000);
    const before = h.lines.length;
    h.limiter.note('y', { late: true });
    assert.equal(h.lines.length, before + 1);
    assert.deepEqual(h.lines.at(-1), { count: 1, kinds: { y: 1 }, first: { late: true } });
  });

  it('flush writes out what is pending (on close) and nothing when there is none', () => {
    const h = harness();
    h.limiter.flush();
    assert.equal(h.lines.length, 0);
    h.limiter.note('a', {});
    h.limiter.note('b', { second: true });
    h.limiter.flush();
    assert.deepEqual(h.lines[1], { count: 1, kinds: { b: 1 }, first: { second: true } });
    assert.ok(h.timers[0].cancelled);
  });

  it('caps the kinds named in one line', () => {
    const h = harness();
    h.limiter.note('first', {});
    for (let i = 0; i < 100; i++) h.limiter.note(`kind-${i}`, {});
    h.limiter.flush();
    const kinds = h.lines[1].kinds;
    assert.equal(Object.keys(kinds).length, 17);
    assert.equal(kinds.other, 84);
  });

  it('rejects a non-positive interval by name', () => {
    assert.throws(() => new LogLimiter(() => undefined, 0), /log interval: must be > 0 ms, got 0/);
  });
});
