// Which addresses the health-check node ports listen on, against upstream's rules: per family,
// NewNodePortAddresses (pkg/proxy/util/nodeport_addresses.go) keeps the family's CIDRs, a family with
// none (or a zero CIDR) matches all; newServiceHealthServer (pkg/proxy/healthcheck/service_health.go)
// listens on 0.0.0.0 (dual-stack in Go) when it matches all, else on GetNodeIPs (the node's addresses
// inside the CIDRs, possibly none); `primary` becomes the node IPs' /32 and /128 (cmd/kube-proxy/app/server.go).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { healthCheckAddresses, type HealthCheckAddressInputs } from '../../src/health/health-check-addresses';
import { bindAttempts, isWildcardHost, lacksIpv6 } from '../../src/http/listen';

const HOST = ['127.0.0.1', '10.1.0.1', '10.2.0.1', '::1', 'fd00:1::1', 'fd00:2::1', 'fe80::1'];
const both: HealthCheckAddressInputs['families'] = ['IPv4', 'IPv6'];
const addrs = (nodePortAddresses: string[], o: Partial<HealthCheckAddressInputs> = {}): string[] =>
  healthCheckAddresses({ nodePortAddresses, families: both, nodeIPs: ['10.2.0.1', 'fd00:2::1'], interfaceAddresses: HOST, ...o }).sort();

describe('health-check node port addresses (upstream newServiceHealthServer / NodePortAddresses)', () => {
  it('unset: every address of both families, one wildcard socket', () => {
    assert.deepEqual(addrs([]), ['0.0.0.0']);
  });

  it('zero CIDRs match all, as upstream IsZeroCIDR', () => {
    assert.deepEqual(addrs(['0.0.0.0/0', '::/0']), ['0.0.0.0']);
    assert.deepEqual(addrs(['10.1.0.0/24', '0.0.0.0/0', '::/0']), ['0.0.0.0'], 'a zero CIDR overrides the family\'s others');
  });

  it('CIDRs of both families: the node addresses inside them', () => {
    assert.deepEqual(addrs(['10.1.0.0/24', 'fd00:1::/64']), ['10.1.0.1', 'fd00:1::1']);
  });

  it('CIDRs matching no address: nowhere (upstream GetNodeIPs returns an empty list)', () => {
    assert.deepEqual(addrs(['192.0.2.0/24', '2001:db8::/64']), []);
  });

  it('a family without a CIDR matches all of its own addresses, without taking the other family\'s', () => {
    assert.deepEqual(addrs(['10.1.0.0/24']), ['10.1.0.1', '::1', 'fd00:1::1', 'fd00:2::1'], 'link-local fe80:: left to the wildcard');
  });

  it('an IPv4-only proxy ignores IPv6 entirely', () => {
    assert.deepEqual(addrs(['10.1.0.0/24', 'fd00:1::/64'], { families: ['IPv4'] }), ['10.1.0.1']);
    assert.deepEqual(addrs([], { families: ['IPv4'] }), ['0.0.0.0']);
  });

  it('"primary" is the node\'s primary IPs, as upstream rewrites it to /32 and /128', () => {
    assert.deepEqual(addrs(['primary']), ['10.2.0.1', 'fd00:2::1']);
    assert.deepEqual(addrs(['primary'], { nodeIPs: [] }), ['0.0.0.0'], 'no known node IP: every address, as upstream with a loopback node IP');
  });
});

describe('wildcard binds are dual-stack (Go net.Listen("tcp", "0.0.0.0:port"))', () => {
  it('"0.0.0.0" and "::" bind "::" with IPV6_V6ONLY off, then "0.0.0.0" when the host has no IPv6', () => {
    for (const h of ['0.0.0.0', '::', '0:0:0:0:0:0:0:0']) {
      assert.ok(isWildcardHost(h), h);
      assert.deepEqual(bindAttempts(h), [{ host: '::', ipv6Only: false }, { host: '0.0.0.0' }]);
    }
    assert.deepEqual(bindAttempts('127.0.0.1'), [{ host: '127.0.0.1' }]);
    assert.deepEqual(bindAttempts('::1'), [{ host: '::1' }]);
    assert.ok(!isWildcardHost('::1'));
  });

  it('falls back only for errors that mean "no IPv6", not for a taken port', () => {
    assert.ok(lacksIpv6(Object.assign(new Error('x'), { code: 'EAFNOSUPPORT' })));
    assert.ok(lacksIpv6(Object.assign(new Error('x'), { code: 'EADDRNOTAVAIL' })));
    assert.ok(!lacksIpv6(Object.assign(new Error('x'), { code: 'EADDRINUSE' })));
    assert.ok(!lacksIpv6(Object.assign(new Error('x'), { code: 'EACCES' })));
  });
});
