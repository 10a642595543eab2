// Our proxy against the real kube-apiserver with each kubeconfig shape people run with: a token, a
// tokenFile, a client certificate (signed by the CA kube-apiserver trusts), the CA as a file or as
// data, insecure-skip-tls-verify, and a wrong CA (which must fail clearly, without a first sync).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { tier, type Tier } from './harness';
import { auditedRequests } from './audit';
import { applyObjects, kubectlRun } from './kubectl';
import { clientCertificate, unrelatedCa, writeKubeconfig, type KubeconfigSpec } from './kubeconfig';
import { programmed, serviceWithEndpoints } from './objects';
import { eventually } from '../traffic/harness';

/** Starts the proxy with `spec`, waits for its first sync and for a new Service to be programmed. */
async function runsWith(t: Tier, spec: KubeconfigSpec): Promise<void> {
  const [ns] = t.namespaces(1);
  const node = t.node();
  const proxy = t.proxy(node, { kubeconfig: writeKubeconfig(spec) });
  await proxy.firstSync();
  await programmed(node, serviceWithEndpoints({ namespace: ns, name: 'web' }));
}

test('token: the proxy syncs as system:kube-proxy and the API server saw that user', async (t) => {
  const since = new Date();
  const tt = tier(t);
  await runsWith(tt, { token: tt.cp.proxyToken });
  const seen = auditedRequests('system:kube-proxy', since);
  assert.ok(seen.some((e) => e.objectRef?.resource === 'endpointslices' && e.verb === 'list'), 'an EndpointSlice list as system:kube-proxy');
});

test('tokenFile: the token is read from the file', async (t) => {
  const since = new Date();
  const tt = tier(t);
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-up-token-')), 'token');
  fs.writeFileSync(file, `${tt.cp.proxyToken}\n`); // a trailing newline, as files usually end
  await runsWith(tt, { tokenFile: file });
  assert.ok(auditedRequests('system:kube-proxy', since).some((e) => e.verb === 'watch'), 'a watch as system:kube-proxy');
});

test('client certificate: the proxy authenticates as the certificate\'s CN', async (t) => {
  const since = new Date();
  const tt = tier(t);
  const user = `kpn-cert-${process.pid}-${Date.now()}`;
  // The same grants as user system:kube-proxy has: upstream's bootstrap role.
  applyObjects([{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: user },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:node-proxier' },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }] }]);
  tt.defer(() => { kubectlRun(['delete', 'clusterrolebinding', user]); });
  await runsWith(tt, clientCertificate(user));
  const seen = auditedRequests(user, since);
  assert.ok(seen.some((e) => e.objectRef?.resource === 'services' && e.verb === 'watch'), `a Service watch as ${user}: ${JSON.stringify(seen.map((e) => e.requestURI))}`);
});

test('certificate-authority-data: the CA given inline verifies the server', async (t) => {
  const tt = tier(t);
  await runsWith(tt, { caData: fs.readFileSync(tt.cp.caFile), token: tt.cp.proxyToken });
});

test('insecure-skip-tls-verify: syncs without any CA', async (t) => {
  const tt = tier(t);
  await runsWith(tt, { insecure: true, token: tt.cp.proxyToken });
});

test('a CA that did not sign the server\'s certificate: no sync, and the log says the certificate could not be verified', async (t) => {
  const since = new Date();
  const tt = tier(t);
  const node = tt.node();
  const proxy = tt.proxy(node, { kubeconfig: writeKubeconfig({ caFile: unrelatedCa(), token: tt.cp.proxyToken }) });
  const line = await eventually(() => proxy.lines.find((l) => /certificate/i.test(l)) ?? '', 'a log line about the certificate', 20_000);
  // Which server, that its certificate was refused, and what to check; not an "HTTP" error (no answer came).
  const err = String(JSON.parse(line).err);
  assert.match(err, /https:\/\/10\.99\.0\.1:6443: the server's TLS certificate was not accepted \(unable to verify the first certificate; UNABLE_TO_VERIFY_LEAF_SIGNATURE\): check the kubeconfig's certificate-authority/);
  assert.doesNotMatch(err, /^HTTP /);
  assert.equal(proxy.metric('kubeproxy_sync_proxy_rules_last_timestamp_seconds'), 0, 'no first sync');
  assert.ok(proxy.metric('kubeproxy_native_apiserver_errors_total') > 0, 'counted as API server errors');
  assert.deepEqual(auditedRequests('system:kube-proxy', since), [], 'no request got through');
});
