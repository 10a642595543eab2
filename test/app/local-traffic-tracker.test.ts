// What the health-check node ports report as local endpoints, through the real model (ProxyState's
// endpoint selection): upstream's EndpointsMap.LocalReadyEndpoints (pkg/proxy/endpointsmap.go), which
// the nftables proxier passes to serviceHealthServer.SyncEndpoints. Only READY local endpoints count,
// by distinct IP over the Service's ports; serving-terminating ones, which still receive Local traffic
// when nothing local is ready, do not: the node must fail the check so load balancers drain it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { silentLog } from '../../src/base/log';
import { ProxyState } from '../../src/core';
import { LocalTrafficTracker } from '../../src/app/local-traffic-tracker';
import { endpointSlice, node, NODE_NAME, OTHER_NODE, service, type EndpointSpec } from '../traffic/fixtures';

const HC_PORT = 32100;
const PORTS = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }, { name: 'https', port: 443, targetPort: 8443, nodePort: 30443 }];

function localCount(endpoints: EndpointSpec[], opts: { dualStack?: EndpointSpec[] } = {}): { count: number | undefined; port: number | undefined } {
  const state = new ProxyState({ nodeName: NODE_NAME, ipFamilies: ['IPv4', 'IPv6'], log: silentLog });
  state.onNode(node(NODE_NAME, '198.18.0.1'));
  const families = opts.dualStack ? { clusterIPs: ['10.96.0.10', 'fd00:96::10'], ipFamilies: ['IPv4', 'IPv6'] as ('IPv4' | 'IPv6')[], ipFamilyPolicy: 'RequireDualStack' as const } : {};
  state.onService('add', service('web', { clusterIP: '10.96.0.10', ports: PORTS, type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: HC_PORT, ...families }));
  state.onEndpointSlice('add', endpointSlice('web', 'web-v4', { ports: PORTS, endpoints }));
  if (opts.dualStack) state.onEndpointSlice('add', endpointSlice('web', 'web-v6', { ports: PORTS, endpoints: opts.dualStack }));
  const taken = state.takeChanges();
  const tracker = new LocalTrafficTracker();
  tracker.update(taken.snapshot, taken.changes, true);
  const view = tracker.view();
  return { count: view.localEndpoints.get('default/web'), port: view.healthCheckPorts.get('default/web')?.port };
}

describe('health-check node port counts (upstream LocalReadyEndpoints)', () => {
  it('counts ready local endpoints once per IP, over all the Service ports, and not remote ones', () => {
    const r = localCount([{ ip: '10.244.1.5' }, { ip: '10.244.1.6' }, { ip: '10.244.2.7', nodeName: OTHER_NODE }]);
    assert.deepEqual(r, { count: 2, port: HC_PORT }, 'two local pods behind two ports are 2, not 4');
  });

  it('does not count not-ready local endpoints', () => {
    assert.equal(localCount([{ ip: '10.244.1.5' }, { ip: '10.244.1.6', ready: false, serving: false }]).count, 1);
  });

  it('counts 0 when the only local endpoints are serving and terminating (they still get traffic, the check fails)', () => {
    const r = localCount([{ ip: '10.244.1.5', ready: false, serving: true, terminating: true }, { ip: '10.244.2.7', nodeName: OTHER_NODE }]);
    assert.equal(r.count, 0);
  });

  it('ready local endpoints count while a terminating one is also present', () => {
    assert.equal(localCount([{ ip: '10.244.1.5' }, { ip: '10.244.1.6', ready: false, serving: true, terminating: true }]).count, 1);
  });

  it('counts a Service not reachable from outside yet (no node port, no load-balancer IP), as upstream counts every Service', () => {
    const state = new ProxyState({ nodeName: NODE_NAME, ipFamilies: ['IPv4'], log: silentLog });
    const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
    state.onService('add', service('web', { clusterIP: '10.96.0.10', ports, type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: HC_PORT }));
    state.onEndpointSlice('add', endpointSlice('web', 'web-v4', { ports, endpoints: [{ ip: '10.244.1.5' }] }));
    const taken = state.takeChanges();
    const tracker = new LocalTrafficTracker();
    tracker.update(taken.snapshot, taken.changes, true);
    assert.equal(tracker.view().localEndpoints.get('default/web'), 1);
  });

  it('a dual-stack Service reports a family count (pods with both addresses are not counted twice)', () => {
    const r = localCount([{ ip: '10.244.1.5' }, { ip: '10.244.1.6' }], { dualStack: [{ ip: 'fd00:244::5' }, { ip: 'fd00:244::6' }] });
    assert.equal(r.count, 2);
  });
});

describe('health-check node port claims', () => {
  it('carry the Service\'s age, so the older of two Services sharing a port gets it', () => {
    const state = new ProxyState({ nodeName: NODE_NAME, ipFamilies: ['IPv4'], log: silentLog });
    const ports = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }];
    const svc = service('web', { clusterIP: '10.96.0.10', ports, type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: HC_PORT });
    svc.metadata.creationTimestamp = '2024-05-01T10:00:00Z';
    svc.metadata.uid = 'uid-web';
    state.onService('add', svc);
    const taken = state.takeChanges();
    const tracker = new LocalTrafficTracker();
    tracker.update(taken.snapshot, taken.changes, true);
    assert.deepEqual(tracker.view().healthCheckPorts.get('default/web'), { port: HC_PORT, created: Date.parse('2024-05-01T10:00:00Z') / 1000, uid: 'uid-web' });
  });
});
