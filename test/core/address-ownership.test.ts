// One owner per dispatch key (issue 36), through ProxyState as proxy modes see it: the snapshot
// serves each ServicePort without the keys it lost, the change set names those whose served keys
// flip, and claims.refused / claims.ended report each refusal once, when it starts and when it ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import { ProxyState, type TakenChanges } from '../../src/core/proxy-state';
import type { RefusedClaim } from '../../src/core/address-ownership';
import type { ServicePort } from '../../src/core/types';
import { recordingLogger, service } from './fixtures';

const VICTIM_IP = '10.96.100.36';

function state(families: ('IPv4' | 'IPv6')[] = ['IPv4']): ProxyState {
  return new ProxyState({ nodeName: 'node-a', ipFamilies: families, log: recordingLogger(), startTime: new Date('2026-01-01T00:00:00Z') });
}

interface Opts {
  clusterIP?: string;
  /** Dual-stack: clusterIPs by family order. */
  clusterIPs?: string[];
  families?: ('IPv4' | 'IPv6')[];
  externalIPs?: string[];
  lbIPs?: string[];
  ports?: V1ServicePort[];
  /** creationTimestamp, ISO. */
  created?: string;
  uid?: string;
}

function svc(name: string, o: Opts = {}): V1Service {
  const clusterIPs = o.clusterIPs ?? [o.clusterIP ?? '10.96.0.10'];
  const s = service(name, {
    type: o.lbIPs ? 'LoadBalancer' : 'ClusterIP',
    clusterIP: clusterIPs[0],
    clusterIPs,
    ipFamilies: o.families ?? ['IPv4'],
    ports: o.ports ?? [{ name: 'http', port: 80, protocol: 'TCP' }],
    ...(o.externalIPs ? { externalIPs: o.externalIPs } : {}),
  }, o.lbIPs ? { status: { loadBalancer: { ingress: o.lbIPs.map((ip) => ({ ip, ipMode: 'VIP' })) } } } : {});
  s.metadata!.creationTimestamp = new Date(o.created ?? '2026-01-01T00:00:00Z');
  s.metadata!.uid = o.uid ?? `uid-${name}`;
  return s;
}

const key = (name: string, port = 'http', proto = 'TCP', family = 'IPv4') => `ns/${name}:${port}/${proto}/${family}`;
const served = (t: TakenChanges, k: string): ServicePort => {
  const sp = t.snapshot.services.get(k);
  assert.ok(sp, `${k} is served`);
  return sp;
};

/** The fields a refusal is identified by (the reason is words for people: checked where it matters). */
const brief = (r: RefusedClaim) => `${r.claimant} ${r.claimantKind} lost ${r.family} ${r.protocol} ${r.address || '*'}:${r.port} to ${r.owner} ${r.ownerKind}`;
const briefs = (rs: readonly RefusedClaim[]) => rs.map(brief).sort();

test('an external IP equal to a ClusterIP: the external claim loses that key, the ClusterIP keeps it', () => {
  const ps = state();
  ps.onService('add', svc('victim', { clusterIP: VICTIM_IP }));
  ps.onService('add', svc('claimer', { externalIPs: [VICTIM_IP], created: '2025-01-01T00:00:00Z' }));
  const t = ps.takeChanges();
  assert.deepEqual(served(t, key('claimer')).externalIPs, []);
  assert.equal(served(t, key('victim')).clusterIPRefused, undefined);
  assert.deepEqual(briefs(t.claims.refused), [`${key('claimer')} externalIP lost IPv4 TCP ${VICTIM_IP}:80 to ${key('victim')} clusterIP`]);
  assert.equal(t.claims.refused[0].reason, 'a ClusterIP beats an external or load-balancer IP', 'even though the external claim is the older Service');
});

test('a LoadBalancer ingress IP equal to a ClusterIP loses that key', () => {
  const ps = state();
  ps.onService('add', svc('victim', { clusterIP: VICTIM_IP, created: '2026-06-01T00:00:00Z' }));
  ps.onService('add', svc('lb', { lbIPs: [VICTIM_IP, '192.0.2.7'], created: '2025-01-01T00:00:00Z' }));
  const t = ps.takeChanges();
  assert.deepEqual(served(t, key('lb')).loadBalancerIPs, ['192.0.2.7'], 'only the contested address is taken away');
  assert.deepEqual(briefs(t.claims.refused), [`${key('lb')} loadBalancerIP lost IPv4 TCP ${VICTIM_IP}:80 to ${key('victim')} clusterIP`]);
});

test('a duplicate ClusterIP: the newer Service loses it (refused, not served), the older keeps it', () => {
  const ps = state();
  ps.onService('add', svc('dup', { clusterIP: VICTIM_IP, created: '2026-01-01T00:00:05Z' }));
  ps.onService('add', svc('victim', { clusterIP: VICTIM_IP, created: '2026-01-01T00:00:01Z' }));
  const t = ps.takeChanges();
  assert.equal(served(t, key('dup')).clusterIPRefused, true);
  assert.equal(served(t, key('dup')).clusterIP, VICTIM_IP, 'the address stays on the object (conntrack and affinity name it)');
  assert.equal(served(t, key('victim')).clusterIPRefused, undefined);
  assert.deepEqual(briefs(t.claims.refused), [`${key('dup')} clusterIP lost IPv4 TCP ${VICTIM_IP}:80 to ${key('victim')} clusterIP`]);
  assert.equal(t.claims.refused[0].reason, 'the older Service wins');
});

test('between external IPs the older Service wins, whichever arrived first; the newer one is reported changed when it loses', () => {
  const ps = state();
  ps.onService('add', svc('newer', { clusterIP: '10.96.0.11', externalIPs: ['192.0.2.7'], created: '2026-03-01T00:00:00Z' }));
  const first = ps.takeChanges();
  assert.deepEqual(served(first, key('newer')).externalIPs, ['192.0.2.7'], 'alone, it owns the address');
  ps.onService('add', svc('older', { clusterIP: '10.96.0.12', externalIPs: ['192.0.2.7'], created: '2026-02-01T00:00:00Z' }));
  const t = ps.takeChanges();
  assert.deepEqual(served(t, key('older')).externalIPs, ['192.0.2.7']);
  assert.deepEqual(served(t, key('newer')).externalIPs, []);
  assert.ok(t.changes.services.has(key('newer')), 'its object did not change, its served keys did: a proxy mode must rewrite it');
  assert.deepEqual(briefs(t.claims.refused), [`${key('newer')} externalIP lost IPv4 TCP 192.0.2.7:80 to ${key('older')} externalIP`]);
});

test('created in the same second: the lower UID wins (creationTimestamp has seconds precision)', () => {
  const ps = state();
  ps.onService('add', svc('a', { clusterIP: '10.96.0.11', externalIPs: ['192.0.2.7'], created: '2026-01-01T00:00:00.100Z', uid: 'ffff' }));
  ps.onService('add', svc('b', { clusterIP: '10.96.0.12', externalIPs: ['192.0.2.7'], created: '2026-01-01T00:00:00.900Z', uid: '0000' }));
  const t = ps.takeChanges();
  assert.deepEqual(served(t, key('b')).externalIPs, ['192.0.2.7'], 'b: same second, lower UID');
  assert.deepEqual(served(t, key('a')).externalIPs, []);
  assert.equal(t.claims.refused[0].reason, 'created in the same second: the lower UID wins');
});

test('the loser loses that key only: its other addresses, other ports, NodePort and ClusterIP stay', () => {
  const ps = state();
  ps.onService('add', svc('victim', { clusterIP: VICTIM_IP }));
  ps.onService('add', svc('claimer', {
    clusterIP: '10.96.0.20',
    externalIPs: [VICTIM_IP, '192.0.2.7'],
    ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 }, { name: 'alt', port: 81, protocol: 'TCP' }, { name: 'dns', port: 80, protocol: 'UDP' }],
  }));
  const t = ps.takeChanges();
  const http = served(t, key('claimer'));
  assert.deepEqual(http.externalIPs, ['192.0.2.7']);
  assert.equal(http.nodePort, 30080);
  assert.equal(http.clusterIPRefused, undefined);
  assert.deepEqual(served(t, key('claimer', 'alt')).externalIPs, [VICTIM_IP, '192.0.2.7'], 'port 81 is another key');
  assert.deepEqual(served(t, key('claimer', 'dns', 'UDP')).externalIPs, [VICTIM_IP, '192.0.2.7'], 'UDP 80 is another key');
  assert.equal(t.claims.refused.length, 1);
});

test('a refusal ends when the owner goes: the claimant gets the key, is reported changed, and the end is reported', () => {
  const ps = state();
  ps.onService('add', svc('victim', { clusterIP: VICTIM_IP }));
  ps.onService('add', svc('claimer', { externalIPs: [VICTIM_IP] }));
  ps.onService('add', svc('dup', { clusterIP: VICTIM_IP, created: '2026-05-01T00:00:00Z' }));
  const before = ps.takeChanges();
  assert.equal(before.claims.refused.length, 2);
  ps.onService('delete', svc('victim', { clusterIP: VICTIM_IP }));
  const t = ps.takeChanges();
  assert.equal(served(t, key('dup')).clusterIPRefused, undefined, 'the duplicate ClusterIP is the owner now');
  assert.deepEqual(served(t, key('claimer')).externalIPs, [], 'the ClusterIP that owns it now still beats the external IP');
  assert.ok(t.changes.services.has(key('dup')));
  assert.deepEqual(briefs(t.claims.ended), briefs(before.claims.refused));
  assert.deepEqual(briefs(t.claims.refused), [`${key('claimer')} externalIP lost IPv4 TCP ${VICTIM_IP}:80 to ${key('dup')} clusterIP`], 'the same claim, refused by another owner');
  ps.onService('delete', svc('dup', { clusterIP: VICTIM_IP, created: '2026-05-01T00:00:00Z' }));
  const last = ps.takeChanges();
  assert.deepEqual(served(last, key('claimer')).externalIPs, [VICTIM_IP]);
  assert.ok(last.changes.services.has(key('claimer')), 'its object did not change, its served keys did');
  assert.deepEqual(briefs(last.claims.ended), briefs(t.claims.refused));
  assert.deepEqual(last.claims.refused, []);
  assert.deepEqual(ps.refusedClaims(), []);
});

test('NodePorts collide per family and protocol: TCP and UDP on one NodePort do not', () => {
  const ps = state(['IPv4', 'IPv6']);
  const dual = { families: ['IPv4', 'IPv6'] as ('IPv4' | 'IPv6')[] };
  ps.onService('add', svc('old', { ...dual, clusterIPs: ['10.96.0.11', 'fd00:96::11'], created: '2026-01-01T00:00:00Z', ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 }] }));
  ps.onService('add', svc('new', { ...dual, clusterIPs: ['10.96.0.12', 'fd00:96::12'], created: '2026-01-02T00:00:00Z', ports: [{ name: 'http', port: 81, protocol: 'TCP', nodePort: 30080 }] }));
  ps.onService('add', svc('udp', { ...dual, clusterIPs: ['10.96.0.13', 'fd00:96::13'], created: '2026-01-03T00:00:00Z', ports: [{ name: 'http', port: 80, protocol: 'UDP', nodePort: 30080 }] }));
  ps.onService('add', svc('v6only', { families: ['IPv6'], clusterIPs: ['fd00:96::14'], created: '2025-01-01T00:00:00Z', ports: [{ name: 'http', port: 82, protocol: 'TCP', nodePort: 30081 }] }));
  ps.onService('add', svc('v4only', { clusterIP: '10.96.0.15', created: '2026-12-01T00:00:00Z', ports: [{ name: 'http', port: 82, protocol: 'TCP', nodePort: 30081 }] }));
  const t = ps.takeChanges();
  for (const family of ['IPv4', 'IPv6']) {
    assert.equal(served(t, key('old', 'http', 'TCP', family)).nodePort, 30080);
    assert.equal(served(t, key('new', 'http', 'TCP', family)).nodePort, 0, `${family}: the newer TCP claim loses`);
    assert.deepEqual(served(t, key('new', 'http', 'TCP', family)).externalIPs, []);
    assert.equal(served(t, key('new', 'http', 'TCP', family)).clusterIPRefused, undefined, 'its ClusterIP stays');
    assert.equal(served(t, key('udp', 'http', 'UDP', family)).nodePort, 30080, `${family}: UDP is another key`);
  }
  assert.equal(served(t, key('v4only', 'http', 'TCP', 'IPv4')).nodePort, 30081, 'IPv4 and IPv6 are other keys');
  assert.equal(served(t, key('v6only', 'http', 'TCP', 'IPv6')).nodePort, 30081);
  assert.deepEqual(briefs(t.claims.refused), [
    `${key('new', 'http', 'TCP', 'IPv4')} nodePort lost IPv4 TCP *:30080 to ${key('old', 'http', 'TCP', 'IPv4')} nodePort`,
    `${key('new', 'http', 'TCP', 'IPv6')} nodePort lost IPv6 TCP *:30080 to ${key('old', 'http', 'TCP', 'IPv6')} nodePort`,
  ]);
});

test('a refusal is reported once: an unrelated later change reports nothing again, the state still lists it', () => {
  const ps = state();
  ps.onService('add', svc('victim', { clusterIP: VICTIM_IP }));
  ps.onService('add', svc('claimer', { externalIPs: [VICTIM_IP] }));
  assert.equal(ps.takeChanges().claims.refused.length, 1);
  ps.onService('add', svc('other', { clusterIP: '10.96.0.30', externalIPs: ['192.0.2.9'] }));
  const t = ps.takeChanges();
  assert.deepEqual(t.claims, { refused: [], ended: [] });
  assert.deepEqual([...t.changes.services], [key('other')], 'nothing else to rewrite');
  assert.deepEqual(served(t, key('claimer')).externalIPs, [], 'still refused');
  // An update of the loser that leaves the contested claim as it was reports nothing either.
  ps.onService('update', svc('claimer', { externalIPs: [VICTIM_IP, '192.0.2.10'] }));
  const u = ps.takeChanges();
  assert.deepEqual(u.claims, { refused: [], ended: [] });
  assert.deepEqual(served(u, key('claimer')).externalIPs, ['192.0.2.10']);
  assert.deepEqual(briefs(ps.refusedClaims()), [`${key('claimer')} externalIP lost IPv4 TCP ${VICTIM_IP}:80 to ${key('victim')} clusterIP`]);
});

test('order independence: the same Services give the same owners whichever arrives first, in one take or one by one', () => {
  const all = [
    svc('a', { clusterIP: VICTIM_IP, created: '2026-01-01T00:00:00Z', ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 }] }),
    svc('b', { clusterIP: '10.96.0.11', externalIPs: [VICTIM_IP, '192.0.2.7'], created: '2025-12-01T00:00:00Z', ports: [{ name: 'http', port: 80, protocol: 'TCP', nodePort: 30080 }] }),
    svc('c', { clusterIP: VICTIM_IP, lbIPs: ['192.0.2.7'], created: '2026-01-02T00:00:00Z', uid: 'b' }),
    svc('d', { clusterIP: '10.96.0.12', lbIPs: ['192.0.2.7'], created: '2026-01-02T00:00:00Z', uid: 'a' }),
  ];
  const outcome = (order: number[], oneByOne: boolean): string => {
    const ps = state();
    for (const i of order) {
      ps.onService('add', all[i]);
      if (oneByOne) ps.takeChanges();
    }
    const t = ps.takeChanges();
    const sps = [...t.snapshot.services.values()].sort((x, y) => (x.key < y.key ? -1 : 1));
    return JSON.stringify([sps.map((s) => [s.key, s.externalIPs, s.loadBalancerIPs, s.nodePort, s.clusterIPRefused ?? false]), briefs(ps.refusedClaims())]);
  };
  const orders = permutations([0, 1, 2, 3]);
  const expected = outcome([0, 1, 2, 3], false);
  for (const order of orders) for (const oneByOne of [false, true]) assert.equal(outcome(order, oneByOne), expected, `order ${order} ${oneByOne ? 'one by one' : 'in one take'}`);
  // And the outcome is the rule's: a owns the ClusterIP (older than c), b's external IP loses to
  // it; b (oldest) owns 192.0.2.7 and the NodePort; c loses its ClusterIP; d loses 192.0.2.7.
  assert.deepEqual(JSON.parse(expected), [[
    [key('a'), [], [], 0, false],
    [key('b'), ['192.0.2.7'], [], 30080, false],
    [key('c'), [], [], 0, true],
    [key('d'), [], [], 0, false],
  ], [
    `${key('a')} nodePort lost IPv4 TCP *:30080 to ${key('b')} nodePort`,
    `${key('b')} externalIP lost IPv4 TCP ${VICTIM_IP}:80 to ${key('a')} clusterIP`,
    `${key('c')} clusterIP lost IPv4 TCP ${VICTIM_IP}:80 to ${key('a')} clusterIP`,
    `${key('c')} loadBalancerIP lost IPv4 TCP 192.0.2.7:80 to ${key('b')} externalIP`,
    `${key('d')} loadBalancerIP lost IPv4 TCP 192.0.2.7:80 to ${key('b')} externalIP`,
  ]]);
});

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}
