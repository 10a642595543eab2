// deploy/ against the real kube-apiserver: every manifest passes server-side validation (the
// DaemonSet with --dry-run=server: no kubelet runs it here), the RBAC and ConfigMap apply for real and
// read back as written, and our proxy running under exactly that identity and role (a real
// ServiceAccount token from `kubectl create token`, the ConfigMap's own kubeconfig) syncs, is refused
// nothing, and asks for nothing the ClusterRole does not grant -- and for everything it grants.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../helpers/topology';
import { tier } from './harness';
import { auditedRequests, grantKey } from './audit';
import { getJson, kubectl, kubectlRun } from './kubectl';
import { programmed, serviceWithEndpoints } from './objects';
import { eventually } from '../traffic/harness';

const DEPLOY = path.join(REPO_ROOT, 'deploy');
const SA_USER = 'system:serviceaccount:kube-system:kube-proxy-native';
const manifest = (f: string) => parseAllDocuments(fs.readFileSync(path.join(DEPLOY, f), 'utf8')).map((d) => d.toJS());

/** Applies rbac.yaml and configmap.yaml for real; deletes them when the test ends. */
function applyDeploy(t: ReturnType<typeof tier>): string {
  const out = kubectl(['apply', '-f', path.join(DEPLOY, 'rbac.yaml'), '-f', path.join(DEPLOY, 'configmap.yaml')]);
  t.defer(() => { kubectlRun(['delete', '--ignore-not-found', '-f', path.join(DEPLOY, 'rbac.yaml'), '-f', path.join(DEPLOY, 'configmap.yaml')]); });
  return out;
}

test('deploy/: every manifest passes the API server\'s validation (kubectl apply --dry-run=server, strict field validation)', async (t) => {
  tier(t);
  const r = kubectlRun(['apply', '--dry-run=server', '--validate=strict', '-f', `${DEPLOY}/`]);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err.trim(), '', 'no warnings (unknown or duplicate fields are warnings under --validate=warn, errors here)');
  const kinds = r.out.trim().split('\n').map((l) => l.replace(/ created \(server dry run\)$/, '')).sort();
  assert.deepEqual(kinds, [
    'clusterrole.rbac.authorization.k8s.io/kube-proxy-native', 'clusterrolebinding.rbac.authorization.k8s.io/kube-proxy-native',
    'configmap/kube-proxy-native', 'daemonset.apps/kube-proxy-native', 'serviceaccount/kube-proxy-native',
  ]);
});

test('deploy/: the RBAC and the ConfigMap apply for real and read back as written', async (t) => {
  const tt = tier(t);
  applyDeploy(tt);
  const [, role, binding] = manifest('rbac.yaml');
  assert.deepEqual(getJson(['clusterrole', 'kube-proxy-native']).rules, role.rules, 'the ClusterRole\'s rules, unchanged by defaulting');
  const b = getJson(['clusterrolebinding', 'kube-proxy-native']);
  assert.deepEqual(b.roleRef, binding.roleRef);
  assert.deepEqual(b.subjects, binding.subjects);
  const [cm] = manifest('configmap.yaml');
  assert.deepEqual(getJson(['configmap', 'kube-proxy-native', '-n', 'kube-system']).data, cm.data);
  // The ServiceAccount is the ClusterRoleBinding's subject: the API server says it may watch what the proxy watches.
  const can = (verb: string, what: string) => kubectlRun(['auth', 'can-i', verb, what, '--all-namespaces', `--as=${SA_USER}`]).out.trim();
  assert.equal(can('watch', 'endpointslices.discovery.k8s.io'), 'yes');
  assert.equal(can('create', 'events.events.k8s.io'), 'yes');
  assert.equal(can('list', 'secrets'), 'no');
});

test('deploy/: our proxy under the ServiceAccount and ClusterRole deploy/ grants: first sync, nothing refused, nothing asked beyond the role, every grant used', async (t) => {
  const tt = tier(t);
  applyDeploy(tt);
  const since = new Date();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-up-sa-'));
  // The files the ConfigMap's kubeconfig names, as a pod's projected volume has them.
  fs.writeFileSync(path.join(dir, 'token'), kubectl(['create', 'token', 'kube-proxy-native', '-n', 'kube-system', '--duration=1h']).trim());
  fs.copyFileSync(tt.cp.caFile, path.join(dir, 'ca.crt'));
  const [cm] = manifest('configmap.yaml');
  const kubeconfig = path.join(dir, 'kubeconfig.conf');
  fs.writeFileSync(kubeconfig, String(cm.data['kubeconfig.conf'])
    .replace('https://API_SERVER_ADDRESS:6443', tt.cp.server)
    .replaceAll('/var/run/secrets/kubernetes.io/serviceaccount/', `${dir}/`));

  const [ns] = tt.namespaces(1);
  const node = tt.node();
  const proxy = tt.proxy(node, { kubeconfig });
  await proxy.firstSync();
  await programmed(node, serviceWithEndpoints({ namespace: ns, name: 'web' }));
  // The "Starting" Event is the one create it makes on its own.
  await eventually(() => auditedRequests(SA_USER, since).some((e) => e.verb === 'create'), 'the Starting Event\'s create');

  const seen = auditedRequests(SA_USER, since);
  const refused = seen.filter((e) => (e.responseStatus?.code ?? 0) >= 400);
  assert.deepEqual(refused.map((e) => `${e.responseStatus?.code} ${e.verb} ${e.requestURI}`), [], 'no request refused');
  assert.equal(proxy.metric('rest_client_requests_total', { code: '403' }), 0, 'and none counted as 403 by the proxy');
  const [, role] = manifest('rbac.yaml');
  const granted = new Set<string>((role.rules as Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>)
    .flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`)))));
  const used = new Set(seen.map(grantKey));
  assert.deepEqual([...used].filter((k) => !granted.has(k)).sort(), [], 'asked for nothing the ClusterRole does not grant');
  assert.deepEqual([...granted].filter((k) => !used.has(k)).sort(), [], 'used every grant (the role is no wider than needed)');
});
