// The Events our proxy records, created through the real kube-apiserver (events.k8s.io/v1) and read
// back as operators read them: `kubectl get events` (the core/v1 view of the same objects) and the
// events.k8s.io view. Upstream's kube-proxy records "Starting" on its Node at start (server.go birthCry).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as os from 'node:os';
import { tier } from './harness';
import { getJson } from './kubectl';
import { writeKubeconfig } from './kubeconfig';
import { eventually } from '../traffic/harness';

test('the Starting Event on the Node reads back with kubectl get events and as events.k8s.io/v1', async (t) => {
  const tt = tier(t);
  const node = tt.node();
  const proxy = tt.proxy(node, { kubeconfig: writeKubeconfig({ token: tt.cp.proxyToken }) });
  await proxy.firstSync();
  const core = await eventually(() => getJson(['events', '-n', 'default', '--field-selector', `involvedObject.name=${node.name}`]).items[0],
    `an Event about ${node.name} in kubectl get events`);
  assert.equal(core.reason, 'Starting');
  assert.equal(core.type, 'Normal');
  assert.equal(core.involvedObject.kind, 'Node');
  assert.equal(core.reportingComponent, 'kube-proxy');
  // As upstream's client-go events recorder: the controller and os.Hostname(), not --hostname-override.
  assert.equal(core.reportingInstance, `kube-proxy-${os.hostname()}`);
  const events = getJson(['events.events.k8s.io', '-n', 'default']).items.filter((e: any) => e.regarding?.name === node.name);
  assert.equal(events.length, 1, 'one Starting Event');
  assert.equal(events[0].action, 'StartKubeProxy');
  assert.equal(events[0].reportingController, 'kube-proxy');
  assert.ok(events[0].eventTime, 'eventTime set (events.k8s.io requires it)');
});
