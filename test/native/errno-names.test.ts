// The addon's one errno table (native/napi/errors.cc), as TypeScript and the addon's errors see it.
import assert from 'node:assert/strict';
import { constants } from 'node:os';
import { test } from 'node:test';
import { loadAddon } from '../../src/native/addon/addon-loader';
import { errnoName } from '../../src/native/addon/errno-names';
import { NetlinkError } from '../../src/native';

// Names the C library gives a second spelling of the same number; the table uses the first.
const ALIASES: Record<string, string> = { EWOULDBLOCK: 'EAGAIN', ENOTSUP: 'EOPNOTSUPP', EDEADLOCK: 'EDEADLK' };

test('each name the table gives belongs to that number on this system', () => {
  let named = 0;
  for (const [name, num] of Object.entries(constants.errno)) {
    const got = errnoName(num);
    if (got === `E${num}`) continue;  // not in the table
    named++;
    assert.equal(got, ALIASES[name] ?? name, `errno ${num}`);
  }
  assert.ok(named >= 40, `only ${named} errnos named`);
});

test('the names the proxier and the tests rely on; E<n> for others', () => {
  assert.deepEqual([2, 17, 16, 105, 95, 71, 90].map(errnoName), ['ENOENT', 'EEXIST', 'EBUSY', 'ENOBUFS', 'EOPNOTSUPP', 'EPROTO', 'EMSGSIZE']);
  assert.equal(errnoName(0), 'E0');
  assert.equal(errnoName(4095), 'E4095');
  assert.equal(new NetlinkError(105, -1, '').code, 'ENOBUFS');
});

test('errnoName checks its argument', () => {
  const raw = loadAddon().errnoName as (v: unknown) => string;
  assert.throws(() => raw('2'), (e: Error) => e instanceof TypeError && /^errno must be a number/.test(e.message));
  assert.throws(() => raw(undefined), TypeError);
  for (const bad of [-1, 1.5, NaN, Infinity, 2 ** 31]) {
    assert.throws(() => raw(bad), (e: Error) => e instanceof RangeError && /^errno must be an integer in 0\.\.2147483647/.test(e.message), String(bad));
  }
});
