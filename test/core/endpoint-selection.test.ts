// Table-driven cases for selectEndpoints, following upstream's TestCategorizeEndpoints
// (pkg/proxy/topology_test.go) with hint-driven topology (zones and nodes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { selectEndpoints, topologyModeFromHints } from '../../src/core/endpoint-selection';
import type { Endpoint, ServicePort } from '../../src/core/types';
import { endpoint, ipPorts, servicePort } from './fixtures';

const rdy = (ipPort: string, over: Partial<Endpoint> = {}): Endpoint =>
  endpoint(ipPort, { ready: true, serving: true, ...over });
const term = (ipPort: string, over: Partial<Endpoint> = {}): Endpoint =>
  endpoint(ipPort, { ready: false, serving: true, terminating: true, ...over });
const unready = (ipPort: string, over: Partial<Endpoint> = {}): Endpoint => endpoint(ipPort, over);
const zones = (...z: string[]): Partial<Endpoint> => ({ zoneHints: z });
const nodes = (...n: string[]): Partial<Endpoint> => ({ nodeHints: n });
const local: Partial<Endpoint> = { isLocal: true };

interface Case {
  name: string;
  zone?: string;
  sp?: Partial<ServicePort>;
  eps: Endpoint[];
  /** null: the ServicePort never uses this kind of endpoints (the list must be empty). */
  cluster: string[] | null;
  local: string[] | null;
  /** Needed only when both cluster and local are in use. */
  all?: string[];
  /** hasAny although nothing is reachable from this node. */
  onlyRemote?: boolean;
}

const zoneABCA = (ready = [true, true, true, true]): Endpoint[] =>
  [
    ['10.1.2.3:80', 'zone-a'],
    ['10.1.2.4:80', 'zone-b'],
    ['10.1.2.5:80', 'zone-c'],
    ['10.1.2.6:80', 'zone-a'],
  ].map(([ip, z], i) => (ready[i] ? rdy(ip, zones(z)) : unready(ip, zones(z))));

const NODE_PORT = { nodePort: 30080 };

const cases: Case[] = [
  // --- topology: zone hints
  { name: 'zone hints for this zone narrow the cluster set', zone: 'zone-a', eps: zoneABCA(), cluster: ['10.1.2.3:80', '10.1.2.6:80'], local: null },
  { name: 'node without zone label: hints ignored', eps: [rdy('10.1.2.3:80', zones('zone-a')), rdy('10.1.2.4:80', zones('zone-b'))], cluster: ['10.1.2.3:80', '10.1.2.4:80'], local: null },
  { name: 'empty zone label: hints ignored', zone: '', eps: [rdy('10.1.2.3:80', zones('zone-a'))], cluster: ['10.1.2.3:80'], local: null },
  { name: 'node in a zone no endpoint is hinted for: no filtering', zone: 'zone-b', eps: [rdy('10.1.2.3:80', zones('zone-a'))], cluster: ['10.1.2.3:80'], local: null },
  { name: 'unready endpoint in this zone is left out', zone: 'zone-a', eps: zoneABCA([true, true, true, false]), cluster: ['10.1.2.3:80'], local: null },
  { name: 'only unready endpoints in this zone: no filtering', zone: 'zone-a', eps: zoneABCA([false, true, true, false]), cluster: ['10.1.2.4:80', '10.1.2.5:80'], local: null },
  { name: 'one ready endpoint without hints: no filtering', zone: 'zone-a', eps: [rdy('10.1.2.3:80', zones('zone-a')), rdy('10.1.2.4:80', zones('zone-b')), rdy('10.1.2.5:80'), rdy('10.1.2.6:80', zones('zone-a'))], cluster: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.5:80', '10.1.2.6:80'], local: null },
  { name: 'an unready endpoint without hints does not disable hints', zone: 'zone-a', eps: [rdy('10.1.2.3:80', zones('zone-a')), rdy('10.1.2.4:80', zones('zone-b')), unready('10.1.2.5:80')], cluster: ['10.1.2.3:80'], local: null },
  { name: 'multiple hints per endpoint: any endpoint naming the zone', zone: 'zone-c', eps: [rdy('10.1.2.3:80', zones('zone-a', 'zone-b', 'zone-c')), rdy('10.1.2.4:80', zones('zone-b', 'zone-c')), rdy('10.1.2.5:80', zones('zone-b', 'zone-d')), rdy('10.1.2.6:80', zones('zone-c'))], cluster: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'], local: null },
  { name: 'eTP Local: topology ignored for local endpoints', zone: 'zone-a', sp: { externalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.1.2.3:80', { ...zones('zone-a'), ...local }), rdy('10.1.2.4:80', { ...zones('zone-b'), ...local }), rdy('10.1.2.5:80', zones('zone-c')), rdy('10.1.2.6:80', zones('zone-a'))], cluster: ['10.1.2.3:80', '10.1.2.6:80'], local: ['10.1.2.3:80', '10.1.2.4:80'], all: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'] },
  { name: 'iTP Local: topology ignored for local endpoints', zone: 'zone-a', sp: { internalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.1.2.3:80', { ...zones('zone-a'), ...local }), rdy('10.1.2.4:80', { ...zones('zone-b'), ...local }), rdy('10.1.2.5:80', zones('zone-c')), rdy('10.1.2.6:80', zones('zone-a'))], cluster: ['10.1.2.3:80', '10.1.2.6:80'], local: ['10.1.2.3:80', '10.1.2.4:80'], all: ['10.1.2.3:80', '10.1.2.4:80', '10.1.2.6:80'] },
  { name: 'conflicting topology and localness: allReachable is the union', zone: 'zone-a', sp: { externalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.0.0.0:80', { ...zones('zone-a'), ...local }), rdy('10.0.0.1:80', { ...zones('zone-b'), ...local }), rdy('10.0.0.2:80', zones('zone-a')), rdy('10.0.0.3:80', zones('zone-b'))], cluster: ['10.0.0.0:80', '10.0.0.2:80'], local: ['10.0.0.0:80', '10.0.0.1:80'], all: ['10.0.0.0:80', '10.0.0.1:80', '10.0.0.2:80'] },
  { name: 'zone hints with no ready endpoint at all: fall back to serving-terminating, no topology', zone: 'zone-a', eps: [term('10.0.0.1:80', zones('zone-a')), term('10.0.0.2:80', zones('zone-b'))], cluster: ['10.0.0.1:80', '10.0.0.2:80'], local: null },

  // --- topology: node hints (PreferSameNode)
  { name: 'node hints for this node: only those endpoints', zone: 'zone-a', eps: [rdy('10.0.0.1:80', { ...nodes('node-a'), ...zones('zone-a') }), rdy('10.0.0.2:80', { ...nodes('node-b'), ...zones('zone-a') }), rdy('10.0.0.3:80', { ...nodes('node-c'), ...zones('zone-b') })], cluster: ['10.0.0.1:80'], local: null },
  { name: 'node hints but none for this node: zone hints apply', zone: 'zone-a', eps: [rdy('10.0.0.1:80', { ...nodes('node-x'), ...zones('zone-a') }), rdy('10.0.0.2:80', { ...nodes('node-b'), ...zones('zone-a') }), rdy('10.0.0.3:80', { ...nodes('node-c'), ...zones('zone-b') })], cluster: ['10.0.0.1:80', '10.0.0.2:80'], local: null },
  { name: 'an endpoint without node hints: zone hints apply', zone: 'zone-a', eps: [rdy('10.0.0.1:80', { ...nodes('node-a'), ...zones('zone-a') }), rdy('10.0.0.2:80', zones('zone-a')), rdy('10.0.0.3:80', { ...nodes('node-c'), ...zones('zone-b') })], cluster: ['10.0.0.1:80', '10.0.0.2:80'], local: null },
  { name: 'node hints for this node without zone hints: PreferSameNode', zone: 'zone-a', eps: [rdy('10.0.0.1:80', nodes('node-a')), rdy('10.0.0.2:80', nodes('node-b'))], cluster: ['10.0.0.1:80'], local: null },
  { name: 'neither node nor zone hints match: all endpoints', zone: 'zone-z', eps: [rdy('10.0.0.1:80', { ...nodes('node-b'), ...zones('zone-a') }), rdy('10.0.0.2:80', { ...nodes('node-c'), ...zones('zone-b') })], cluster: ['10.0.0.1:80', '10.0.0.2:80'], local: null },
  { name: 'node hints on ready endpoints only matter; unready one hinted here is not used', zone: 'zone-a', eps: [unready('10.0.0.1:80', nodes('node-a')), rdy('10.0.0.2:80', nodes('node-b')), rdy('10.0.0.3:80', nodes('node-c'))], cluster: ['10.0.0.2:80', '10.0.0.3:80'], local: null },
  { name: 'PreferSameNode with eTP Local: local set ignores hints', zone: 'zone-a', sp: { externalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.0.0.1:80', nodes('node-b')), rdy('10.0.0.2:80', { ...nodes('node-a'), ...local }), rdy('10.0.0.3:80', { ...nodes('node-b'), ...local })], cluster: ['10.0.0.2:80'], local: ['10.0.0.2:80', '10.0.0.3:80'], all: ['10.0.0.2:80', '10.0.0.3:80'] },

  // --- internalTrafficPolicy Local
  { name: 'iTP Local with no endpoints', sp: { internalPolicyLocal: true }, eps: [], cluster: null, local: [] },
  { name: 'iTP Local, all endpoints remote', sp: { internalPolicyLocal: true }, eps: [rdy('10.0.0.0:80'), rdy('10.0.0.1:80')], cluster: null, local: [], onlyRemote: true },
  { name: 'iTP Local, all endpoints local', sp: { internalPolicyLocal: true }, eps: [rdy('10.0.0.0:80', local), rdy('10.0.0.1:80', local)], cluster: null, local: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'iTP Local, some endpoints local', sp: { internalPolicyLocal: true }, eps: [rdy('10.0.0.0:80', local), rdy('10.0.0.1:80')], cluster: null, local: ['10.0.0.0:80'] },
  { name: 'iTP Local internal-only: no cluster endpoints', sp: { internalPolicyLocal: true }, eps: [rdy('10.0.0.0:80'), rdy('10.0.0.1:80', local)], cluster: null, local: ['10.0.0.1:80'] },
  { name: 'iTP Local, only remote serving-terminating endpoints: hasAny', sp: { internalPolicyLocal: true }, eps: [term('10.0.0.0:80')], cluster: null, local: [], onlyRemote: true },
  { name: 'iTP Local, only remote unready non-serving endpoints: nothing at all', sp: { internalPolicyLocal: true }, eps: [unready('10.0.0.0:80')], cluster: null, local: [] },
  { name: 'iTP Local ignores zone hints for the local set', zone: 'zone-a', sp: { internalPolicyLocal: true }, eps: [rdy('10.0.0.0:80', { ...zones('zone-b'), ...local }), rdy('10.0.0.1:80', zones('zone-a'))], cluster: null, local: ['10.0.0.0:80'] },

  // --- ready / serving / terminating (KEP-1669), Cluster policy
  { name: 'Cluster, no endpoint ready', eps: [unready('10.0.0.0:80'), unready('10.0.0.1:80')], cluster: [], local: null },
  { name: 'Cluster, some endpoints ready', eps: [unready('10.0.0.0:80'), rdy('10.0.0.1:80')], cluster: ['10.0.0.1:80'], local: null },
  { name: 'Cluster, all endpoints serving-terminating: fall back to them', eps: [term('10.0.0.0:80', local), term('10.0.0.1:80')], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: null },
  { name: 'Cluster, terminating but not serving endpoints are never used', eps: [unready('10.0.0.0:80', { terminating: true }), unready('10.0.0.1:80', { terminating: true })], cluster: [], local: null },
  { name: 'Cluster, ready endpoints win over serving-terminating ones', eps: [rdy('10.0.0.0:80'), term('10.0.0.1:80')], cluster: ['10.0.0.0:80'], local: null },
  { name: 'Cluster, serving but neither ready nor terminating is not used', eps: [unready('10.0.0.0:80', { serving: true })], cluster: [], local: null },
  { name: 'Cluster, fallback takes only serving-terminating, not unready ones', eps: [term('10.0.0.0:80'), unready('10.0.0.1:80'), unready('10.0.0.2:80', { terminating: true })], cluster: ['10.0.0.0:80'], local: null },
  { name: 'no endpoints at all', eps: [], cluster: [], local: null },

  // --- combined policies
  { name: 'iTP Local, eTP Cluster, some local', sp: { internalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.0.0.0:80', local), rdy('10.0.0.1:80')], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: ['10.0.0.0:80'], all: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'iTP Cluster, eTP Local, some local', sp: { externalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.0.0.0:80', local), rdy('10.0.0.1:80')], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: ['10.0.0.0:80'], all: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'iTP Local, eTP Local, some local', sp: { internalPolicyLocal: true, externalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.0.0.0:80', local), rdy('10.0.0.1:80')], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: ['10.0.0.0:80'], all: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'iTP Local, eTP Local, all remote', sp: { internalPolicyLocal: true, externalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.0.0.0:80'), rdy('10.0.0.1:80')], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: [], all: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'iTP Local, eTP Local, all remote and serving-terminating', sp: { internalPolicyLocal: true, externalPolicyLocal: true, ...NODE_PORT }, eps: [term('10.0.0.0:80'), term('10.0.0.1:80')], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: [], all: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'iTP Cluster, eTP Local, local fallback to serving-terminating', sp: { externalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.0.0.0:80'), unready('10.0.0.1:80', local), term('10.0.0.2:80', local), term('10.0.0.3:80')], cluster: ['10.0.0.0:80'], local: ['10.0.0.2:80'], all: ['10.0.0.0:80', '10.0.0.2:80'] },
  { name: 'eTP Local, local ready endpoint wins over local serving-terminating', sp: { externalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.0.0.0:80', local), term('10.0.0.1:80', local), rdy('10.0.0.2:80')], cluster: ['10.0.0.0:80', '10.0.0.2:80'], local: ['10.0.0.0:80'], all: ['10.0.0.0:80', '10.0.0.2:80'] },
  { name: 'eTP Local, only unready local endpoints: local empty', sp: { externalPolicyLocal: true, ...NODE_PORT }, eps: [unready('10.0.0.0:80', local), rdy('10.0.0.1:80')], cluster: ['10.0.0.1:80'], local: [], all: ['10.0.0.1:80'] },
  { name: 'eTP Local ignored when not externally accessible', sp: { externalPolicyLocal: true }, eps: [rdy('10.0.0.0:80'), rdy('10.0.0.1:80', local)], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: null },
  { name: 'eTP Local applies with external IPs only', sp: { externalPolicyLocal: true, externalIPs: ['192.0.2.1'] }, eps: [rdy('10.0.0.0:80'), rdy('10.0.0.1:80', local)], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: ['10.0.0.1:80'], all: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'eTP Local applies with load balancer IPs only', sp: { externalPolicyLocal: true, loadBalancerIPs: ['192.0.2.2'] }, eps: [rdy('10.0.0.0:80'), rdy('10.0.0.1:80', local)], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: ['10.0.0.1:80'], all: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'iTP Local made externally accessible uses cluster endpoints too', sp: { internalPolicyLocal: true, loadBalancerIPs: ['192.0.2.2'] }, eps: [rdy('10.0.0.0:80'), rdy('10.0.0.1:80', local)], cluster: ['10.0.0.0:80', '10.0.0.1:80'], local: ['10.0.0.1:80'], all: ['10.0.0.0:80', '10.0.0.1:80'] },
  { name: 'eTP Local with zone hints and only a terminating local endpoint', zone: 'zone-a', sp: { externalPolicyLocal: true, ...NODE_PORT }, eps: [rdy('10.0.0.0:80', zones('zone-a')), rdy('10.0.0.1:80', zones('zone-b')), term('10.0.0.2:80', { ...zones('zone-b'), ...local })], cluster: ['10.0.0.0:80'], local: ['10.0.0.2:80'], all: ['10.0.0.0:80', '10.0.0.2:80'] },
];

for (const c of cases) {
  test(`selectEndpoints: ${c.name}`, () => {
    const sp = servicePort(c.sp);
    const got = selectEndpoints(c.eps, sp, { nodeName: 'node-a', zone: c.zone ?? '' });
    assert.deepEqual(ipPorts(got.cluster), [...(c.cluster ?? [])].sort(), 'cluster');
    assert.deepEqual(ipPorts(got.local), [...(c.local ?? [])].sort(), 'local');
    const all = c.cluster !== null && c.local === null ? c.cluster : c.local !== null && c.cluster === null ? c.local : c.all;
    assert.ok(all, 'case must give `all` when both sets are used');
    assert.deepEqual(ipPorts(got.allReachable), [...all].sort(), 'allReachable');
    assert.equal(new Set(ipPorts(got.allReachable)).size, got.allReachable.length, 'allReachable has no duplicates');
    assert.equal(got.hasAny, all.length > 0 || c.onlyRemote === true, 'hasAny');
  });
}

test('topologyModeFromHints names the mode chosen', () => {
  const node = { nodeName: 'node-a', zone: 'zone-a' };
  assert.equal(topologyModeFromHints([rdy('10.0.0.1:80', { ...nodes('node-a'), ...zones('zone-a') })], node), 'PreferSameNode');
  assert.equal(topologyModeFromHints([rdy('10.0.0.1:80', zones('zone-a'))], node), 'PreferSameZone');
  assert.equal(topologyModeFromHints([rdy('10.0.0.1:80', zones('zone-b'))], node), '');
  assert.equal(topologyModeFromHints([term('10.0.0.1:80', zones('zone-a'))], node), '', 'no ready endpoint: no topology');
  assert.equal(topologyModeFromHints([rdy('10.0.0.1:80', zones(''))], { nodeName: 'node-a', zone: '' }), '', 'empty zone never matches');
});

test('a list that filters nothing out is the given list itself; a filtered one is a new list, the given one untouched', () => {
  const node = { nodeName: 'node-a', zone: '' };
  const all = [rdy('10.0.0.1:80'), rdy('10.0.0.2:80', local)];
  const s = selectEndpoints(all, servicePort(), node);
  assert.equal(s.cluster, all);
  assert.equal(s.allReachable, all);
  const mixed = [rdy('10.0.0.1:80'), unready('10.0.0.2:80')];
  const f = selectEndpoints(mixed, servicePort(), node);
  assert.deepEqual(ipPorts(f.cluster), ['10.0.0.1:80']);
  assert.notEqual(f.cluster, mixed);
  assert.equal(mixed.length, 2);
  // No endpoint: one shared, frozen answer.
  assert.equal(selectEndpoints([], servicePort(), node), selectEndpoints([], servicePort({ internalPolicyLocal: true }), node));
  assert.ok(Object.isFrozen(selectEndpoints([], servicePort(), node)));
});
