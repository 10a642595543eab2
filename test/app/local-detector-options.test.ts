// ClusterCIDR without a CIDR of a family detects nothing for it and upstream says so once for the primary
// family (cmd/kube-proxy/app/server_linux.go getLocalDetectors, "Detect-local-mode set to ClusterCIDR, but
// no cluster CIDR specified for primary IP family").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localDetectorFrom, localDetectorNotice } from '../../src/app/local-detector-options';
import { resolveDetector } from '../../src/policy/local-detector';

const cfg = (detectLocalMode: string, clusterCIDRs: string[]) => ({
  detectLocalMode, detectLocal: { bridgeInterface: '', interfaceNamePrefix: '', clusterCIDRs },
});

test('getLocalDetectors: ClusterCIDR with no clusterCIDRs detects nothing in either family', () => {
  const d = localDetectorFrom(cfg('ClusterCIDR', []));
  assert.deepEqual(resolveDetector(d, 'ip', []), { kind: 'none' });
  assert.deepEqual(resolveDetector(d, 'ip6', []), { kind: 'none' });
});

test('getLocalDetectors: ClusterCIDR with one family detects that family only', () => {
  const d = localDetectorFrom(cfg('ClusterCIDR', ['10.244.0.0/16']));
  assert.deepEqual(resolveDetector(d, 'ip', []), { kind: 'cidr', cidr: '10.244.0.0/16' });
  assert.deepEqual(resolveDetector(d, 'ip6', []), { kind: 'none' });
});

test('getLocalDetectors: the notice names the primary family when it has no cluster CIDR', () => {
  const n = localDetectorNotice(cfg('ClusterCIDR', []), 'IPv4');
  assert.equal(n?.msg, 'Detect-local-mode set to ClusterCIDR, but no cluster CIDR specified for primary IP family');
  assert.deepEqual(n?.fields, { ipFamily: 'IPv4', clusterCIDRs: [] });
  assert.deepEqual(localDetectorNotice(cfg('ClusterCIDR', ['fd00::/64']), 'IPv4')?.fields.ipFamily, 'IPv4');
});

test('getLocalDetectors: no notice when the primary family has a CIDR, or in another mode', () => {
  assert.equal(localDetectorNotice(cfg('ClusterCIDR', ['10.0.0.0/8']), 'IPv4'), null);
  assert.equal(localDetectorNotice(cfg('ClusterCIDR', ['10.0.0.0/8', 'fd00::/64']), 'IPv6'), null);
  assert.equal(localDetectorNotice(cfg('NodeCIDR', []), 'IPv4'), null);
});
