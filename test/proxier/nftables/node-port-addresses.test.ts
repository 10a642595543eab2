// nodePortAddresses per family as upstream's NewNodePortAddresses (pkg/proxy/util/nodeport_addresses.go):
// a family with no CIDR of its own (list empty, other family only, or `primary` on a node without an IP
// of the family) matches every local address of the family (upstream's zero CIDR, matchAll); `primary` is
// the node's primary IP of the family as /32 or /128 (cmd/kube-proxy/app/server.go), loopback left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildContext } from '../../../src/proxier/nftables/context';
import { defaultInputs } from './fixtures';

const ctx = (nodePortAddresses: string[], family: 'ip' | 'ip6', ips: string[]) =>
  buildContext({ ...defaultInputs, nodePortAddresses }, family, { ips, podCIDRs: [] }).nodePorts;

test('NewNodePortAddresses: an empty list matches every local address in both families', () => {
  assert.deepEqual(ctx([], 'ip', ['192.168.0.2']), { kind: 'all' });
  assert.deepEqual(ctx([], 'ip6', ['fd00::2']), { kind: 'all' });
});

test('NewNodePortAddresses: primary is the node IP of each family', () => {
  assert.deepEqual(ctx(['primary'], 'ip', ['192.168.0.2', 'fd00::2']), { kind: 'cidrs', cidrs: ['192.168.0.2/32'] });
  assert.deepEqual(ctx(['primary'], 'ip6', ['192.168.0.2', 'fd00::2']), { kind: 'cidrs', cidrs: ['fd00::2/128'] });
});

test('NewNodePortAddresses: primary on a single-stack node matches every address of the other family', () => {
  assert.deepEqual(ctx(['primary'], 'ip', ['192.168.0.2']), { kind: 'cidrs', cidrs: ['192.168.0.2/32'] });
  assert.deepEqual(ctx(['primary'], 'ip6', ['192.168.0.2']), { kind: 'all' });
});

test('NewNodePortAddresses: CIDRs of one family only leave the other family matching every address', () => {
  assert.deepEqual(ctx(['10.0.0.0/8'], 'ip', []), { kind: 'cidrs', cidrs: ['10.0.0.0/8'] });
  assert.deepEqual(ctx(['10.0.0.0/8'], 'ip6', []), { kind: 'all' });
});

test('server.go: a loopback node IP is not a primary NodePort address', () => {
  assert.deepEqual(ctx(['primary'], 'ip', ['127.0.0.1']), { kind: 'all' });
  assert.deepEqual(ctx(['primary'], 'ip6', ['::1']), { kind: 'all' });
});
