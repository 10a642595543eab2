import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ProxyState } from '../../src/core/proxy-state';
import { TRIGGER_TIME_ANNOTATION } from '../../src/core/endpoint-conversion';
import { ipPorts, node, recordingLogger, service, slice, sliceEndpoint } from './fixtures';

const KEY = 'ns/web:http/TCP/IPv4';

function state(families: ('IPv4' | 'IPv6')[] = ['IPv4']) {
  const log = recordingLogger();
  const ps = new ProxyState({ nodeName: 'node-a', ipFamilies: families, log, startTime: new Date('2026-01-01T00:00:00Z') });
  return { ps, log };
}

const web = () => service('web');
const webSlice = (...ips: string[]) => slice('web-1', 'web', ips.map((ip) => sliceEndpoint(ip)));

test('a Service and its slice become a ServicePort with selected endpoints', () => {
  const { ps } = state();
  assert.equal(ps.onService('add', web()), true);
  assert.equal(ps.onEndpointSlice('add', webSlice('10.0.0.1', '10.0.0.2')), true);
  assert.deepEqual(ps.pending(), { services: 1, endpoints: 1 });
  const t = ps.takeChanges();
  assert.deepEqual([...t.changes.services], [KEY]);
  assert.equal(t.snapshot.services.get(KEY)?.clusterIP, '10.96.0.10');
  const sel = t.snapshot.endpoints.get(KEY)!;
  assert.deepEqual(ipPorts(sel.cluster), ['10.0.0.1:8080', '10.0.0.2:8080']);
  assert.equal(sel.hasAny, true);
  assert.deepEqual([...(t.changes.newlyActive ?? [])], [KEY]);
  assert.equal(t.serviceChanges, 1);
  assert.equal(t.endpointChanges, 1);
  assert.deepEqual(ps.pending(), { services: 0, endpoints: 0 });
  const again = ps.takeChanges();
  assert.equal(again.changes.services.size, 0, 'nothing pending: empty change set');
});

test('a Service without endpoints is selected as having none (reject)', () => {
  const { ps } = state();
  ps.onService('add', web());
  const sel = ps.takeChanges().snapshot.endpoints.get(KEY)!;
  assert.deepEqual(sel, { cluster: [], local: [], allReachable: [], hasAny: false });
});

test('no-op updates are not changes: same object, irrelevant fields, add-then-delete', () => {
  const { ps } = state();
  ps.onService('add', web());
  ps.onEndpointSlice('add', webSlice('10.0.0.1'));
  ps.takeChanges();
  assert.equal(ps.onService('update', web()), false);
  const relabelled = web();
  relabelled.metadata!.labels = { team: 'x' };
  relabelled.spec!.selector = { app: 'other' };
  assert.equal(ps.onService('update', relabelled), false);
  const s = webSlice('10.0.0.1');
  s.metadata!.resourceVersion = '42';
  assert.equal(ps.onEndpointSlice('update', s), false);
  ps.onService('add', service('tmp'));
  ps.onService('delete', service('tmp'));
  ps.onEndpointSlice('add', slice('tmp-1', 'tmp', [sliceEndpoint('10.0.0.9')]));
  ps.onEndpointSlice('delete', slice('tmp-1', 'tmp', [sliceEndpoint('10.0.0.9')]));
  assert.deepEqual(ps.pending(), { services: 0, endpoints: 0 });
  const t = ps.takeChanges();
  assert.equal(t.changes.services.size, 0);
  assert.equal(t.serviceChanges, 4, 'events are still counted for *_changes_total');
  assert.equal(t.endpointChanges, 3);
});

test('an update that is later reverted before the sync is not a change', () => {
  const { ps } = state();
  ps.onService('add', web());
  ps.takeChanges();
  assert.equal(ps.onService('update', service('web', { sessionAffinity: 'ClientIP' })), true);
  assert.deepEqual(ps.pending(), { services: 1, endpoints: 0 });
  assert.equal(ps.onService('update', web()), false);
  assert.deepEqual(ps.pending(), { services: 0, endpoints: 0 });
});

test('deleting a Service removes its ServicePorts and reports them as removed', () => {
  const { ps } = state();
  ps.onService('add', web());
  ps.onEndpointSlice('add', webSlice('10.0.0.1'));
  ps.takeChanges();
  ps.onService('delete', web());
  const t = ps.takeChanges();
  assert.deepEqual([...t.changes.services], [KEY]);
  assert.equal(t.changes.removedServices?.get(KEY)?.clusterIP, '10.96.0.10');
  assert.equal(t.snapshot.services.has(KEY), false);
  assert.equal(t.snapshot.endpoints.has(KEY), false);
});

test('endpoints that go away or stop serving are reported for conntrack cleanup', () => {
  const { ps } = state();
  ps.onService('add', web());
  ps.onEndpointSlice('add', webSlice('10.0.0.1', '10.0.0.2', '10.0.0.3'));
  ps.takeChanges();
  ps.onEndpointSlice('update', slice('web-1', 'web', [
    sliceEndpoint('10.0.0.1'),
    sliceEndpoint('10.0.0.2', { conditions: { ready: false, serving: false, terminating: true } }),
  ]));
  const t = ps.takeChanges();
  assert.deepEqual([...t.changes.services], [KEY]);
  assert.deepEqual(ipPorts(t.changes.removedEndpoints.get(KEY)!), ['10.0.0.2:8080', '10.0.0.3:8080']);
  assert.equal(t.changes.newlyActive?.size, 0);
  assert.deepEqual(ipPorts(t.snapshot.endpoints.get(KEY)!.cluster), ['10.0.0.1:8080']);
});

test('newlyActive: a Service going from no usable endpoint to one', () => {
  const { ps } = state();
  ps.onService('add', web());
  ps.onEndpointSlice('add', slice('web-1', 'web', [sliceEndpoint('10.0.0.1', { conditions: { ready: false, serving: false } })]));
  assert.equal(ps.takeChanges().changes.newlyActive?.size, 0);
  ps.onEndpointSlice('update', webSlice('10.0.0.1'));
  assert.deepEqual([...(ps.takeChanges().changes.newlyActive ?? [])], [KEY]);
});

test('slices of one Service merge; an endpoint moving between slices in one window is a no-op', () => {
  const { ps } = state();
  ps.onService('add', web());
  ps.onEndpointSlice('add', slice('web-1', 'web', [sliceEndpoint('10.0.0.1'), sliceEndpoint('10.0.0.2')]));
  ps.onEndpointSlice('add', slice('web-2', 'web', [sliceEndpoint('10.0.0.3')]));
  assert.deepEqual(ps.pending(), { services: 1, endpoints: 1 }, 'pending counts Services, not events');
  assert.deepEqual(ipPorts(ps.takeChanges().snapshot.endpoints.get(KEY)!.cluster), ['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080']);
  ps.onEndpointSlice('update', slice('web-2', 'web', [sliceEndpoint('10.0.0.3'), sliceEndpoint('10.0.0.2')]));
  assert.equal(ps.onEndpointSlice('update', slice('web-1', 'web', [sliceEndpoint('10.0.0.1')])), false);
  assert.equal(ps.takeChanges().changes.services.size, 0);
});

test('endpoints that arrive before their Service are used when it arrives', () => {
  const { ps } = state();
  ps.onEndpointSlice('add', webSlice('10.0.0.1'));
  const first = ps.takeChanges();
  assert.equal(first.changes.services.size, 0, 'no ServicePort to program yet');
  ps.onService('add', web());
  const t = ps.takeChanges();
  assert.deepEqual(ipPorts(t.snapshot.endpoints.get(KEY)!.cluster), ['10.0.0.1:8080']);
});

test('a Service change alone re-selects its endpoints (externalTrafficPolicy Local)', () => {
  const { ps } = state();
  ps.onService('add', service('web', { type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080 }] }));
  ps.onEndpointSlice('add', slice('web-1', 'web', [sliceEndpoint('10.0.0.1', { nodeName: 'node-a' }), sliceEndpoint('10.0.0.2', { nodeName: 'node-b' })]));
  assert.deepEqual(ps.takeChanges().snapshot.endpoints.get(KEY)!.local, []);
  ps.onService('update', service('web', { type: 'NodePort', externalTrafficPolicy: 'Local', ports: [{ name: 'http', port: 80, nodePort: 30080 }] }));
  const t = ps.takeChanges();
  assert.deepEqual([...t.changes.services], [KEY]);
  assert.deepEqual(ipPorts(t.snapshot.endpoints.get(KEY)!.local), ['10.0.0.1:8080']);
});

test('node zone changes flag topology, recompute every selection, and list every ServicePort', () => {
  const { ps } = state();
  ps.onService('add', web());
  ps.onService('add', service('other', { clusterIP: '10.96.0.11', clusterIPs: ['10.96.0.11'] }));
  ps.onEndpointSlice('add', slice('web-1', 'web', [
    sliceEndpoint('10.0.0.1', { hints: { forZones: [{ name: 'zone-a' }] } }),
    sliceEndpoint('10.0.0.2', { hints: { forZones: [{ name: 'zone-b' }] } }),
  ]));
  const first = ps.takeChanges();
  assert.equal(first.topologyChanged, false);
  assert.deepEqual(ipPorts(first.snapshot.endpoints.get(KEY)!.cluster), ['10.0.0.1:8080', '10.0.0.2:8080']);
  assert.equal(ps.onNode(node('node-a', { 'topology.kubernetes.io/zone': 'zone-b' })), true);
  const t = ps.takeChanges();
  assert.equal(t.topologyChanged, true);
  assert.deepEqual([...t.changes.services].sort(), ['ns/other:http/TCP/IPv4', KEY]);
  assert.deepEqual(ipPorts(t.snapshot.endpoints.get(KEY)!.cluster), ['10.0.0.2:8080']);
  assert.equal(ps.onNode(node('node-a', { 'topology.kubernetes.io/zone': 'zone-b', unrelated: 'x' })), false);
  assert.equal(ps.takeChanges().topologyChanged, false);
});

test('node info carries labels, primary IPs per family and pod CIDRs', () => {
  const { ps } = state(['IPv4', 'IPv6']);
  ps.onNode(node('node-a', { a: 'b' }, {
    spec: { podCIDRs: ['10.244.1.0/24', 'fd00:244::/64'] },
    status: { addresses: [
      { type: 'Hostname', address: 'node-a' },
      { type: 'ExternalIP', address: '203.0.113.7' },
      { type: 'InternalIP', address: '192.168.1.7' },
      { type: 'InternalIP', address: 'fd00::7' },
    ] },
  }));
  assert.deepEqual(ps.takeChanges().snapshot.node, {
    name: 'node-a', labels: { a: 'b' }, ips: ['192.168.1.7', 'fd00::7'], podCIDRs: ['10.244.1.0/24', 'fd00:244::/64'],
  });
  ps.onNode(undefined);
  assert.deepEqual(ps.snapshot().node, { name: 'node-a', labels: {}, ips: [], podCIDRs: [] });
});

test('trigger times: collected per change, dropped when the change reverts, old ones ignored', () => {
  const { ps } = state();
  ps.onService('add', web());
  const at = (t: string, ...ips: string[]) => slice('web-1', 'web', ips.map((ip) => sliceEndpoint(ip)), { annotations: { [TRIGGER_TIME_ANNOTATION]: t } });
  ps.onEndpointSlice('add', at('2026-05-01T00:00:01Z', '10.0.0.1'));
  ps.onEndpointSlice('add', slice('web-2', 'web', [sliceEndpoint('10.0.0.2')], { annotations: { [TRIGGER_TIME_ANNOTATION]: '2025-01-01T00:00:00Z' } }));
  const t = ps.takeChanges();
  assert.deepEqual(t.endpointTriggerTimes.map((d) => d.toISOString()), ['2026-05-01T00:00:01.000Z'], 'times before startTime are ignored');
  ps.onEndpointSlice('update', at('2026-05-01T00:00:02Z', '10.0.0.1', '10.0.0.5'));
  ps.onEndpointSlice('update', at('2026-05-01T00:00:03Z', '10.0.0.1'));
  assert.deepEqual(ps.takeChanges().endpointTriggerTimes, [], 'a reverted change programs nothing and measures nothing');
});

test('the snapshot is live and cheap: one change at 2,000 Services touches one entry', () => {
  const { ps } = state();
  for (let i = 0; i < 2000; i++) {
    const ip = `10.96.${i >> 8}.${i & 255}`;
    ps.onService('add', service(`s${i}`, { clusterIP: ip, clusterIPs: [ip] }));
    ps.onEndpointSlice('add', slice(`s${i}-1`, `s${i}`, [sliceEndpoint(`10.1.${i >> 8}.${i & 255}`)]));
  }
  const first = ps.takeChanges();
  assert.equal(first.snapshot.services.size, 2000);
  assert.equal(first.changes.services.size, 2000);
  const before = new Map(first.snapshot.endpoints);
  const spBefore = new Map(first.snapshot.services);
  ps.onEndpointSlice('update', slice('s7-1', 's7', [sliceEndpoint('10.1.0.7'), sliceEndpoint('10.2.0.7')]));
  const t = ps.takeChanges();
  assert.equal(t.snapshot.services, first.snapshot.services, 'same live map, not a copy');
  assert.equal(t.snapshot.endpoints, first.snapshot.endpoints);
  assert.deepEqual([...t.changes.services], ['ns/s7:http/TCP/IPv4']);
  let replaced = 0;
  for (const [k, v] of t.snapshot.endpoints) if (before.get(k) !== v) replaced++;
  assert.equal(replaced, 1, 'only the changed selection object is new');
  for (const [k, v] of t.snapshot.services) assert.equal(spBefore.get(k), v);
});

test('IPv6 slices are ignored by an IPv4-only proxy and served by a dual-stack one', () => {
  const dual = service('web', { ipFamilies: ['IPv4', 'IPv6'], clusterIPs: ['10.96.0.10', 'fd00::10'] });
  const v6 = slice('web-6', 'web', [sliceEndpoint('fd00:1::1')], { addressType: 'IPv6' });
  const only4 = state(['IPv4']).ps;
  only4.onService('add', dual);
  assert.equal(only4.onEndpointSlice('add', v6), false);
  assert.deepEqual([...only4.takeChanges().snapshot.services.keys()], [KEY]);
  const both = state(['IPv4', 'IPv6']).ps;
  both.onService('add', dual);
  both.onEndpointSlice('add', v6);
  const t = both.takeChanges();
  assert.deepEqual(ipPorts(t.snapshot.endpoints.get('ns/web:http/TCP/IPv6')!.cluster), ['fd00:1::1:8080']);
  assert.deepEqual(t.snapshot.endpoints.get(KEY)!.hasAny, false);
});

test('requeue: a failed sync hands its changes to the next take', () => {
  const { ps } = state();
  ps.onService('add', web());
  ps.onEndpointSlice('add', webSlice('10.0.0.1', '10.0.0.2'));
  ps.takeChanges();
  ps.onEndpointSlice('update', webSlice('10.0.0.1'));
  const failed = ps.takeChanges();
  ps.requeue(failed);
  ps.onService('add', service('b', { clusterIP: '10.96.0.12', clusterIPs: ['10.96.0.12'] }));
  const t = ps.takeChanges();
  assert.deepEqual([...t.changes.services].sort(), ['ns/b:http/TCP/IPv4', KEY]);
  assert.deepEqual(ipPorts(t.changes.removedEndpoints.get(KEY)!), ['10.0.0.2:8080']);
  assert.equal(ps.takeChanges().changes.services.size, 0, 'requeued changes are reported once');
});

test('bad events are logged and change nothing; constructor arguments are checked', () => {
  const { ps, log } = state();
  const nameless = web();
  delete nameless.metadata!.namespace;
  assert.equal(ps.onService('add', nameless), false);
  const unlabeled = webSlice('10.0.0.1');
  unlabeled.metadata!.labels = {};
  assert.equal(ps.onEndpointSlice('add', unlabeled), false);
  assert.equal(log.lines.length, 2);
  assert.deepEqual(ps.pending(), { services: 0, endpoints: 0 });
  assert.throws(() => new ProxyState({ nodeName: '', ipFamilies: ['IPv4'], log }), /nodeName/);
  assert.throws(() => new ProxyState({ nodeName: 'n', ipFamilies: [], log }), /ipFamilies/);
});

test('a Service switching type: to ExternalName removes it, to NodePort changes it', () => {
  const { ps } = state();
  ps.onService('add', web());
  ps.takeChanges();
  ps.onService('update', service('web', { type: 'NodePort', ports: [{ name: 'http', port: 80, nodePort: 30080 }] }));
  const np = ps.takeChanges();
  assert.deepEqual([...np.changes.services], [KEY]);
  assert.equal(np.snapshot.services.get(KEY)?.nodePort, 30080);
  ps.onService('update', service('web', { type: 'ExternalName', externalName: 'example.com', clusterIP: undefined, clusterIPs: undefined }));
  const ext = ps.takeChanges();
  assert.equal(ext.snapshot.services.has(KEY), false);
  assert.equal(ext.changes.removedServices?.get(KEY)?.nodePort, 30080);
});

test('a slice relabelled to another Service, or losing its label, leaves its former Service', () => {
  const { ps, log } = state();
  ps.onService('add', web());
  ps.onService('add', service('api', { clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'] }));
  ps.onEndpointSlice('add', webSlice('10.0.0.1'));
  ps.takeChanges();
  assert.equal(ps.onEndpointSlice('update', slice('web-1', 'api', [sliceEndpoint('10.0.0.1')])), true);
  const moved = ps.takeChanges();
  assert.deepEqual([...moved.changes.services].sort(), ['ns/api:http/TCP/IPv4', KEY]);
  assert.equal(moved.snapshot.endpoints.get(KEY)!.hasAny, false);
  assert.deepEqual(ipPorts(moved.snapshot.endpoints.get('ns/api:http/TCP/IPv4')!.cluster), ['10.0.0.1:8080']);
  const unlabeled = slice('web-1', 'api', [sliceEndpoint('10.0.0.1')]);
  unlabeled.metadata!.labels = {};
  assert.equal(ps.onEndpointSlice('update', unlabeled), true);
  assert.equal(log.lines.length, 1, 'the missing label is still logged');
  assert.equal(ps.takeChanges().snapshot.endpoints.get('ns/api:http/TCP/IPv4')!.hasAny, false);
});

test('what the conversion drops or assumes is said when the Service arrives or changes, not on updates that change nothing', () => {
  const { ps, log } = state();
  const odd = (extra: Record<string, unknown> = {}) => service('odd', { internalTrafficPolicy: 'Sometimes', ...extra } as never);
  ps.onService('add', odd());
  const said = () => log.lines.filter((l) => /internalTrafficPolicy/.test(JSON.stringify(l))).length;
  assert.equal(said(), 1, JSON.stringify(log.lines));
  ps.takeChanges();
  for (let i = 0; i < 10; i++) {
    const again = odd();
    again.status = { loadBalancer: {} };
    again.metadata!.resourceVersion = String(100 + i);
    assert.equal(ps.onService('update', again), false);
  }
  assert.equal(said(), 1, 'ten updates that change nothing the proxy reads: not said again');
  ps.onService('update', odd({ sessionAffinity: 'ClientIP' }));
  assert.equal(said(), 2, 'a real change: said again, with the object as it now is');
});
