// Our proxy under upstream's own bootstrap identity: user system:kube-proxy, bound to the
// system:node-proxier ClusterRole by kube-apiserver's bootstrap RBAC, which does not grant Namespaces.
// docs/watching.md ("RBAC"): the Namespace list is refused (403); a refusal is taken for RBAC's answer
// once every try for NAMESPACES_FORBIDDEN_CONFIRM_MS has been refused (a starting API server refuses
// allowed requests for a moment), then the proxy says so in one warning, proxies every namespace (the
// opt-out label is not honoured), and retries only every 5-10 minutes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_BACKOFF, backoffDelay } from '../../src/k8s/backoff';
import { NAMESPACES_FORBIDDEN_CONFIRM_MS } from '../../src/k8s/cluster-watcher';
import { tier } from './harness';
import { auditedRequests } from './audit';
import { kubectl } from './kubectl';
import { writeKubeconfig } from './kubeconfig';
import { programmed, serviceWithEndpoints } from './objects';

const USER = 'system:kube-proxy';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('system:node-proxier: the Namespace list is refused for the confirmation window only, one warning, every namespace proxied, nothing else refused', async (t) => {
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
  const refusedEvents = seen.filter((e) => (e.responseStatus?.code ?? 0) >= 400);
  const refused = refusedEvents.map((e) => `${e.responseStatus?.code} ${e.verb} ${e.requestURI.split('?')[0]}`);
  assert.ok(refused.length >= 2 && refused.every((r) => r === '403 list /api/v1/namespaces'),
    `the Namespace list, retried at the ordinary backoff until the refusal is confirmed; nothing else: ${JSON.stringify(refused)}`);
  const at = refusedEvents.map((e) => new Date(e.requestReceivedTimestamp).getTime()).sort((a, b) => a - b);
  // The audit log's timestamps are in microseconds. The last try comes within the window plus one backoff
  // step: a try just inside the window (the second retry can come 2.4 s after the first refusal) is
  // followed by the third retry, 3.2-6.4 s later with the jitter; 1 s more for the requests themselves.
  const within = NAMESPACES_FORBIDDEN_CONFIRM_MS + backoffDelay(DEFAULT_BACKOFF, 3, () => 1) + 1000;
  assert.ok(at[at.length - 1] - at[0] <= within, `refusals spread over ${at[at.length - 1] - at[0]} ms (at most ${within}): not confirmed in time`);
  assert.ok(Date.now() - at[at.length - 1] >= 4000, 'then no retry for the seconds after: the 5-10 min period');
  assert.ok(!seen.some((e) => e.objectRef?.resource === 'namespaces' && e.verb === 'watch'), 'no Namespace watch without a list');
  const warnings = proxy.lines.filter((l) => l.includes('Namespace opt-out'));
  assert.equal(warnings.length, 1, warnings.join('\n'));
  const w = JSON.parse(warnings[0]);
  assert.equal(w.level, 40, 'a warning');
  assert.match(w.msg, /HTTP 403; upstream's system:node-proxier role does not grant it\). Proxying the Services of every namespace; retrying every 5 min to 10 min/);
  assert.equal(proxy.metric('kubeproxy_native_apiserver_connected', { resource: 'namespaces' }), 0);
  assert.equal(proxy.metric('kubeproxy_native_apiserver_connected', { resource: 'services' }), 1);
  assert.equal(proxy.metric('rest_client_requests_total', { code: '403' }), refused.length);
});
