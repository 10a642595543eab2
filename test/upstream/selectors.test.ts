// The selectors our proxy sends, as the real kube-apiserver answers them (docs/watching.md, "Against
// the real API server"): `!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless`
// on Services and EndpointSlices, and the namespace opt-out's `metadata.namespace!=NS` field
// selectors. Under a ServiceAccount of the test's own with deploy/'s rules (Namespaces granted, so the
// opt-out is honoured).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tier } from './harness';
import { auditedRequests } from './audit';
import { applyObjects, getJson, kubectl } from './kubectl';
import { programmed, serviceWithEndpoints } from './objects';
import { proxyServiceAccount } from './service-account';
import { eventually } from '../traffic/harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A Service with `labels` (and `clusterIP`, e.g. "None") and its EndpointSlice to `endpoint`. */
function labelledService(namespace: string, name: string, labels: Record<string, string>, endpoint: string, clusterIP?: string): string {
  applyObjects([{
    apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, labels },
    spec: { selector: { app: name }, ...(clusterIP ? { clusterIP } : {}), ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] },
  }]);
  const svc = getJson(['service', name, '-n', namespace]);
  applyObjects([{
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: {
      name: `${name}-abcde`, namespace,
      labels: { ...labels, 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name, uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: [{ addresses: [endpoint], conditions: { ready: true, serving: true, terminating: false } }],
  }]);
  return svc.spec.clusterIP as string;
}

test('selectors: service-proxy-name and headless Services get no rules, an opted-out namespace none; the real server answers our selectors 200', async (t) => {
  const since = new Date();
  const tt = tier(t);
  const [plain, optedOut] = tt.namespaces(2);
  kubectl(['label', 'namespace', optedOut, 'networking.k8s.io/kube-proxy=disabled']);
  const id = proxyServiceAccount(tt, plain);
  const node = tt.node();
  const proxy = tt.proxy(node, { kubeconfig: id.kubeconfig });
  await proxy.firstSync();

  const other = labelledService(plain, 'other', { 'service.kubernetes.io/service-proxy-name': 'other' }, '10.244.7.1');
  // A headless Service: the EndpointSlice controller labels its slices service.kubernetes.io/headless.
  labelledService(plain, 'headless', {}, '10.244.7.2', 'None');
  kubectl(['label', 'endpointslice', 'headless-abcde', '-n', plain, 'service.kubernetes.io/headless=']);
  const hidden = serviceWithEndpoints({ namespace: optedOut, name: 'web', endpoints: ['10.244.7.3'] });
  await programmed(node, serviceWithEndpoints({ namespace: plain, name: 'web', endpoints: ['10.244.7.4'] }));
  await sleep(1000); // several syncs at minSyncPeriod 100ms
  const ruleset = node.ns.nft('list', 'ruleset');
  assert.ok(ruleset.includes('10.244.7.4'), 'the plain Service\'s endpoint');
  for (const [what, s] of [['service-proxy-name: other', other], ['its endpoint', '10.244.7.1'], ['the headless endpoint', '10.244.7.2'],
    ['the opted-out namespace\'s ClusterIP', hidden], ['its endpoint', '10.244.7.3']]) {
    assert.ok(!ruleset.includes(s), `no rules for ${what} (${s})`);
  }

  kubectl(['label', 'service', 'other', '-n', plain, 'service.kubernetes.io/service-proxy-name-']);
  kubectl(['label', 'endpointslice', 'other-abcde', '-n', plain, 'service.kubernetes.io/service-proxy-name-']);
  await eventually(() => { const r = node.ns.nft('list', 'ruleset'); return r.includes(other) && r.includes('10.244.7.1'); },
    'the unlabelled Service\'s rules', 3000);

  const seen = auditedRequests(id.user, since).filter((e) => e.verb === 'list' || e.verb === 'watch');
  const query = (uri: string) => new URLSearchParams(uri.split('?')[1] ?? '');
  for (const resource of ['services', 'endpointslices']) {
    const asked = seen.filter((e) => e.objectRef?.resource === resource);
    assert.ok(asked.length >= 2, `${resource}: a list and a watch`);
    for (const e of asked) {
      const q = query(e.requestURI);
      assert.equal(q.get('labelSelector'), '!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless', e.requestURI);
      assert.equal(e.responseStatus?.code, 200, `${e.verb} ${e.requestURI}`);
    }
    const excluding = asked.filter((e) => (query(e.requestURI).get('fieldSelector') ?? '').split(',').includes(`metadata.namespace!=${optedOut}`));
    assert.ok(excluding.some((e) => e.verb === 'list') && excluding.some((e) => e.verb === 'watch'),
      `${resource}: a list and a watch with metadata.namespace!=${optedOut}: ${asked.map((e) => e.requestURI).join('\n')}`);
  }
});
