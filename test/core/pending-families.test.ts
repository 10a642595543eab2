// Pending changes by family, as upstream's per-family change trackers count them
// (pkg/proxy/servicechangetracker.go: a Service is pending in a family when its ServicePorts of that
// family differ; endpointschangetracker.go: a slice reaches its address type's tracker only).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ProxyState } from '../../src/core';
import { recordingLogger, service, slice, sliceEndpoint } from './fixtures';

const dualStack = () => new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4', 'IPv6'], log: recordingLogger(), startTime: new Date(0) });

describe('pending changes by family', () => {
  it('a Service becoming dual-stack is pending in IPv6 only; a port change in both', () => {
    const ps = dualStack();
    ps.onService('add', service('a'));
    assert.deepEqual([ps.pendingOf('IPv4'), ps.pendingOf('IPv6')], [{ services: 1, endpoints: 0 }, { services: 0, endpoints: 0 }]);
    ps.takeChanges();
    const dual = { clusterIPs: ['10.96.0.10', 'fd00:96::10'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'PreferDualStack' };
    ps.onService('update', service('a', dual));
    assert.deepEqual([ps.pendingOf('IPv4').services, ps.pendingOf('IPv6').services], [0, 1]);
    ps.onService('update', service('a', { ...dual, ports: [{ name: 'http', port: 81, protocol: 'TCP' }] }));
    assert.deepEqual([ps.pendingOf('IPv4').services, ps.pendingOf('IPv6').services], [1, 1]);
    ps.onService('update', service('a'));
    assert.deepEqual([ps.pendingOf('IPv4').services, ps.pendingOf('IPv6').services], [0, 0], 'back as applied: pending nowhere');
    assert.equal(ps.pending().services, 0);
  });

  it('counts slice events and trigger times by address type, Service events in every family', () => {
    const ps = dualStack();
    ps.onService('add', service('a', { clusterIPs: ['10.96.0.10', 'fd00:96::10'], ipFamilies: ['IPv4', 'IPv6'] }));
    ps.onEndpointSlice('add', slice('a-v6', 'a', [sliceEndpoint('fd00:1::1')], {
      addressType: 'IPv6', annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2026-01-01T00:00:00Z' },
    }));
    ps.onEndpointSlice('add', slice('a-fqdn', 'a', [sliceEndpoint('example.com')], { addressType: 'FQDN' }));
    assert.deepEqual([ps.pendingOf('IPv4').endpoints, ps.pendingOf('IPv6').endpoints], [0, 1]);
    const t = ps.takeChanges();
    assert.equal(t.serviceChanges, 1);
    assert.deepEqual(t.endpointChangesByFamily, { IPv4: 0, IPv6: 1 }, 'an FQDN slice concerns no family');
    assert.deepEqual(t.endpointTriggers.map((x) => [x.family, x.at.toISOString()]), [['IPv6', '2026-01-01T00:00:00.000Z']]);
    assert.deepEqual([ps.pendingOf('IPv4'), ps.pendingOf('IPv6')], [{ services: 0, endpoints: 0 }, { services: 0, endpoints: 0 }]);
  });
});
