// The start-up line that says where NodePorts are served; unset (the IPVS mode's default) is the warning
// upstream's checkBadConfig logs (cmd/kube-proxy/app/server.go).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nodePortNotice } from '../../src/app/node-port-notice';

test('checkBadConfig: nodePortAddresses unset warns with upstream\'s message', () => {
  const n = nodePortNotice({ nodePortAddresses: [] }, ['IPv4', 'IPv6']);
  assert.equal(n.level, 'warn');
  assert.equal(n.msg, 'Kube-proxy configuration may be incomplete or incorrect');
  assert.equal(n.fields.err, 'nodePortAddresses is unset; NodePort connections will be accepted on all local IPs. Consider using `--nodeport-addresses primary`');
});

test('primary and CIDRs: each family says where its NodePorts are served', () => {
  const p = nodePortNotice({ nodePortAddresses: ['primary'] }, ['IPv4', 'IPv6']);
  assert.equal(p.level, 'info');
  assert.match(String((p.fields.nodePortsServedOn as Record<string, string>).IPv6), /primary IP/);
  const c = nodePortNotice({ nodePortAddresses: ['10.0.0.0/8'] }, ['IPv4', 'IPv6']);
  assert.deepEqual(c.fields.nodePortsServedOn, { IPv4: '10.0.0.0/8', IPv6: 'every local address of the family (no nodePortAddresses entry of it)' });
});
