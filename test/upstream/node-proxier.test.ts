// Our proxy under upstream's own bootstrap identity: user system:kube-proxy, bound to the
// system:node-proxier ClusterRole by kube-apiserver's bootstrap RBAC, which does not grant Namespaces.
// docs/watching.md ("RBAC"): the Namespace list is refused (403) and the proxy says so in one warning,
// proxies every namespace (the opt-out label is not honoured), and retries only every 5-10 minutes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tier } from './harness';
import { auditedRequests } from './audit';
import { kubectl } from './kubectl';
import { writeKubeconfig } from './kubeconfig';
import { programmed, serviceWithEndpoints } from './objects';

const USER = 'system:kube-proxy';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('system:node-proxier: the Namespace list is refused once, one warning, every namespace proxied, nothing else refused', async (t) => {
  const since = new Date();
  const tt = tier(t);
  const [plain, optedOut] = tt.namespaces(2);
  kubectl(['label', 'namespace', optedOut, 'networking.k8s.io/kube-proxy=disabled']);
  const node = tt.node();
  const proxy = tt.proxy(node, { kubeconfig: writeKubeconfig({ token: tt.cp.proxyToken }) });
  await proxy.firstSync();
  await programmed(node, serviceWithEndpoints({ namespace: plain, name: 'web' }));
  // The opt-out cannot be honoured without the Namespace list: the labelled namespace is proxied too.
  await programmed(node, serviceWithEndpoints({ namespace: optedOut, name: 'web' }));
  await sleep(5000); // long enough for several retries at the ordinary backoff's start (1 s and up)

  const seen = auditedRequests(USER, since);
  const refused = seen.filter((e) => (e.responseStatus?.code ?? 0) >= 400).map((e) => `${e.responseStatus?.code} ${e.verb} ${e.requestURI.split('?')[0]}`);
  assert.deepEqual(refused, ['403 list /api/v1/namespaces'], 'the Namespace list, once; nothing else');
  assert.ok(!seen.some((e) => e.objectRef?.resource === 'namespaces' && e.verb === 'watch'), 'no Namespace watch without a list');
  const warnings = proxy.lines.filter((l) => l.includes('Namespace opt-out'));
  assert.equal(warnings.length, 1, warnings.join('\n'));
  const w = JSON.parse(warnings[0]);
  assert.equal(w.level, 40, 'a warning');
  assert.match(w.msg, /HTTP 403; upstream's system:node-proxier role does not grant it\). Proxying the Services of every namespace; retrying every 5 min to 10 min/);
  assert.equal(proxy.metric('kubeproxy_native_apiserver_connected', { resource: 'namespaces' }), 0);
  assert.equal(proxy.metric('kubeproxy_native_apiserver_connected', { resource: 'services' }), 1);
  assert.equal(proxy.metric('rest_client_requests_total', { code: '403' }), 1);
});
