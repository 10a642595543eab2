import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sharedPorts } from '../../src/core/slice-ports';

test('slices with the same port list share one frozen copy; a different list gets its own', () => {
  const a = sharedPorts([{ portName: 'http', protocol: 'TCP', port: 8080 }, { portName: 'dns', protocol: 'UDP', port: 53 }]);
  const b = sharedPorts([{ portName: 'http', protocol: 'TCP', port: 8080 }, { portName: 'dns', protocol: 'UDP', port: 53 }]);
  assert.equal(a, b);
  assert.deepEqual(a, [{ portName: 'http', protocol: 'TCP', port: 8080 }, { portName: 'dns', protocol: 'UDP', port: 53 }]);
  assert.ok(Object.isFrozen(a) && a.every((p) => Object.isFrozen(p)));
  assert.throws(() => (a as unknown as unknown[]).push({}));
  const reordered = sharedPorts([{ portName: 'dns', protocol: 'UDP', port: 53 }, { portName: 'http', protocol: 'TCP', port: 8080 }]);
  assert.notEqual(reordered, a);
  assert.notEqual(sharedPorts([{ portName: 'http', protocol: 'UDP', port: 8080 }]), sharedPorts([{ portName: 'http', protocol: 'TCP', port: 8080 }]));
  // Names that would run together in a joined text stay apart.
  assert.notEqual(sharedPorts([{ portName: 'a/TCP/1', protocol: 'TCP', port: 2 }]), sharedPorts([{ portName: 'a', protocol: 'TCP', port: 2 }]));
  assert.deepEqual(sharedPorts([]), []);
});
