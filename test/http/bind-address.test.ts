// `host:port` bind settings, shared by the healthz and metrics servers.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { parseBindAddress } from '../../src/http';

it('parses bind addresses and names the field on bad input', () => {
  assert.deepEqual(parseBindAddress('127.0.0.1:10249', 'metricsBindAddress'), { host: '127.0.0.1', port: 10249 });
  assert.deepEqual(parseBindAddress('[::1]:10256', 'healthzBindAddress'), { host: '::1', port: 10256 });
  assert.throws(() => parseBindAddress('localhost:1', 'metricsBindAddress'), /metricsBindAddress: "localhost" is not an IP/);
  assert.throws(() => parseBindAddress('1.2.3.4', 'healthzBindAddress'), /healthzBindAddress: "1.2.3.4" is not host:port/);
  assert.throws(() => parseBindAddress('1.2.3.4:70000', 'healthzBindAddress'), /out of range/);
});
