// The counts --dry-run's closing comment gives, from script text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countAdded, countChanges } from '../../../src/proxier/nftables/script-summary';

const script = [
  'add table ip kube-proxy',
  'add chain ip kube-proxy nat-output { type nat hook output priority -100; }',
  'add chain ip kube-proxy services',
  'add set ip kube-proxy cluster-ips { type ipv4_addr; comment "Active ClusterIPs"; }',
  'add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict; }',
  'add rule ip kube-proxy nat-output jump services',
  'add element ip kube-proxy cluster-ips { 10.96.0.10 }',
  'add element ip kube-proxy cluster-ips { 10.96.0.11, 10.96.0.12 }',
  '',
].join('\n');

test('countAdded: chains (base ones apart), sets, maps, rules, elements', () => {
  assert.deepEqual(countAdded(script), { chains: 2, baseChains: 1, sets: 1, maps: 1, rules: 1, elements: 3 });
  assert.deepEqual(countAdded(''), { chains: 0, baseChains: 0, sets: 0, maps: 0, rules: 0, elements: 0 });
});

test('countChanges: one a command, one an element', () => {
  assert.deepEqual(countChanges(script), { add: 9, delete: 0, flush: 0 });
  assert.deepEqual(countChanges([
    'flush chain ip kube-proxy services', 'delete element ip kube-proxy cluster-ips { 10.96.9.9, 10.96.9.8 }',
    'delete chain ip kube-proxy stray', '# a comment', '',
  ].join('\n')), { add: 0, delete: 3, flush: 1 });
});

