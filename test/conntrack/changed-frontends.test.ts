// A UDP flow keeps its conntrack entry, DNATed to the endpoint it first reached, for as long as the
// client keeps sending: a frontend (address, port or NodePort) a ServicePort stops serving must take
// its flows with it, or they keep going to the old endpoints (or to where they were, once gone).
// The removal of a ServicePort did so; a ServicePort that changed its frontends in place did not: a
// Service deleted and created again under the same name (`kubectl replace --force`) within one sync
// interval arrives as one change of the same key, with a new ClusterIP, and the flows to the old
// ClusterIP survived (seen writing test/upstream/traffic.test.ts's recreate case). Likewise an
// externalIP removed by an update, a NodePort released by a type change, a port renumbered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProxyState } from '../../src/core/proxy-state';
import { staleFlowFilters } from '../../src/conntrack/stale-flows';
import { filterKey } from '../../src/conntrack/filter';
import { recordingLogger, service, slice, sliceEndpoint } from '../core/fixtures';

const KEY = 'ns/dns:dns/UDP/IPv4';
const dnsPorts = [{ name: 'dns', port: 53, protocol: 'UDP' }];
const dns = (spec: Record<string, unknown> = {}) => service('dns', { ports: dnsPorts, ...spec });
const dnsSlice = () => slice('dns-1', 'dns', [sliceEndpoint('10.0.0.1')], { ports: [{ name: 'dns', port: 5353, protocol: 'UDP' }] });

function synced(): ProxyState {
  const ps = new ProxyState({ nodeName: 'node-a', ipFamilies: ['IPv4'], log: recordingLogger(), startTime: new Date('2026-01-01T00:00:00Z') });
  ps.onService('add', dns({ externalIPs: ['192.0.2.7'] }));
  ps.onEndpointSlice('add', dnsSlice());
  ps.takeChanges();
  return ps;
}

const stale = (ps: ProxyState) => {
  const t = ps.takeChanges();
  return staleFlowFilters(t.snapshot, t.changes).map(filterKey).sort();
};
const key = (f: Record<string, unknown>) => filterKey({ family: 4, protocol: 'udp', ...f });

test('deleted and created again before a sync with a new ClusterIP: the flows to the old ClusterIP are stale', () => {
  const ps = synced();
  ps.onService('delete', dns({ externalIPs: ['192.0.2.7'] }));
  ps.onService('add', dns({ clusterIP: '10.96.0.99', clusterIPs: ['10.96.0.99'], externalIPs: ['192.0.2.7'] }));
  assert.deepEqual(stale(ps), [key({ origDst: '10.96.0.10', origDstPort: 53 })]);
});

test('an externalIP removed, or the port renumbered, by an update: the flows to what is no longer served', () => {
  const ps = synced();
  ps.onService('update', dns());
  assert.deepEqual(stale(ps), [key({ origDst: '192.0.2.7', origDstPort: 53 })]);
  ps.onService('update', dns({ ports: [{ name: 'dns', port: 5300, protocol: 'UDP' }] }));
  assert.deepEqual(stale(ps), [key({ origDst: '10.96.0.10', origDstPort: 53 })]);
});

test('a NodePort released (type NodePort to ClusterIP): the flows to the old NodePort', () => {
  const ps = synced();
  ps.onService('update', dns({ type: 'NodePort', ports: [{ ...dnsPorts[0], nodePort: 30053 }], externalIPs: ['192.0.2.7'] }));
  assert.deepEqual(stale(ps), []);
  ps.onService('update', dns({ externalIPs: ['192.0.2.7'] }));
  assert.deepEqual(stale(ps), [key({ origDstPort: 30053 })]);
});

test('a change that keeps every frontend (a new endpoint, an affinity): no flow of it is stale', () => {
  const ps = synced();
  ps.onService('update', dns({ externalIPs: ['192.0.2.7'], sessionAffinity: 'ClientIP' }));
  assert.deepEqual(stale(ps), []);
});

test('removed by a sync that failed and back in the next: the flows to the old ClusterIP are still stale', () => {
  const ps = synced();
  ps.onService('delete', dns({ externalIPs: ['192.0.2.7'] }));
  const failed = ps.takeChanges();
  ps.requeue(failed);
  ps.onService('add', dns({ clusterIP: '10.96.0.99', clusterIPs: ['10.96.0.99'], externalIPs: ['192.0.2.7'] }));
  assert.deepEqual(stale(ps), [key({ origDst: '10.96.0.10', origDstPort: 53 })]);
});
