// Request-target parsing: every odd target gives an answer, never an exception.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cleanPath, escapePath, MAX_TARGET_LENGTH, parseRequestTarget, percentDecode } from '../../src/http/request-target';

const ok = (raw: string) => {
  const r = parseRequestTarget(raw);
  assert.ok(r.ok, `${raw}: ${!r.ok && r.reason}`);
  return r.target;
};
const bad = (raw: string | undefined, reason: RegExp) => {
  const r = parseRequestTarget(raw);
  assert.equal(r.ok, false, String(raw));
  assert.match((r as { reason: string }).reason, reason);
};

describe('parseRequestTarget', () => {
  it('splits origin-form into a decoded path and the raw query', () => {
    assert.deepEqual(ok('/healthz'), { asterisk: false, path: '/healthz', query: '' });
    assert.deepEqual(ok('/healthz?exclude=x%20y'), { asterisk: false, path: '/healthz', query: 'exclude=x%20y' });
    assert.deepEqual(ok('/%68ealthz'), { asterisk: false, path: '/healthz', query: '' });
    assert.deepEqual(ok('//'), { asterisk: false, path: '//', query: '' });
    assert.equal(ok('/a%2Fb').path, '/a/b', 'as Go: %2F decodes into the path');
    assert.equal(ok('/%C3%A9').path, '/é');
    assert.equal(ok('/%FF').path, '/\uFFFD', 'invalid UTF-8 becomes U+FFFD, not an exception');
    assert.equal(ok('/%00').path, '/\0');
  });

  it('routes absolute-form on its path', () => {
    assert.deepEqual(ok('http://example.invalid/healthz?x=1'), { asterisk: false, path: '/healthz', query: 'x=1' });
    assert.deepEqual(ok('http://example.invalid'), { asterisk: false, path: '/', query: '' });
    assert.deepEqual(ok('https://h:10256?x'), { asterisk: false, path: '/', query: 'x' });
  });

  it('marks "*"', () => {
    assert.deepEqual(ok('*'), { asterisk: true, path: '*', query: '' });
  });

  it('refuses what Go refuses, with a reason', () => {
    bad(undefined, /empty/);
    bad('', /empty/);
    bad('/%', /percent-encoding/);
    bad('/%zz', /percent-encoding/);
    bad('/a%2', /percent-encoding/);
    bad('healthz', /neither a path/);
    bad('**', /neither a path/);
    bad('http:/x', /neither a path/);
    bad(`/${'a'.repeat(MAX_TARGET_LENGTH)}`, /longer than/);
  });
});

describe('percentDecode', () => {
  it('leaves strings without escapes alone and decodes mixed ones', () => {
    assert.equal(percentDecode('/plain'), '/plain');
    assert.equal(percentDecode('%41b%43'), 'AbC');
    assert.equal(percentDecode('%'), undefined);
  });
});

describe('cleanPath (Go ServeMux)', () => {
  for (const [p, want] of [
    ['//', '/'],
    ['/', '/'],
    ['', '/'],
    ['/healthz', '/healthz'],
    ['//healthz', '/healthz'],
    ['/./healthz', '/healthz'],
    ['/a/../healthz', '/healthz'],
    ['/../../healthz', '/healthz'],
    ['/healthz/', '/healthz/'],
    ['/healthz/.', '/healthz'],
    ['/a//b///', '/a/b/'],
  ]) {
    it(`${JSON.stringify(p)} -> ${JSON.stringify(want)}`, () => assert.equal(cleanPath(p), want));
  }
});

describe('escapePath', () => {
  it('keeps "/" and unreserved characters, escapes every other byte (no header injection)', () => {
    assert.equal(escapePath('/healthz'), '/healthz');
    assert.equal(escapePath('/a b\r\nSet-Cookie: x'), '/a%20b%0D%0ASet-Cookie%3A%20x');
    assert.equal(escapePath('/é'), '/%C3%A9');
    assert.equal(escapePath('/\uD800'), '/%EF%BF%BD', 'a lone surrogate does not throw');
  });
});
