// An identity of a test's own for our proxy: a ServiceAccount in one of the test's namespaces, bound
// to a ClusterRole with deploy/rbac.yaml's rules under a unique name, and a kubeconfig with its token
// (`kubectl create token`). What a test does to this user (an APF FlowSchema, say) touches no other
// test's proxy. The ServiceAccount goes with the namespace's objects; the role and binding are deleted
// at the end of the test.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../helpers/topology';
import type { Tier } from './harness';
import { applyObjects, kubectl, kubectlRun } from './kubectl';
import { writeKubeconfig } from './kubeconfig';

export interface TestIdentity {
  /** The audit log's username: system:serviceaccount:NS:NAME. */
  user: string;
  namespace: string;
  name: string;
  kubeconfig: string;
  /** The ServiceAccount's token (what the kubeconfig's tokenFile holds). */
  token: string;
}

export function proxyServiceAccount(tt: Tier, namespace: string, name = 'proxy'): TestIdentity {
  const docs = parseAllDocuments(fs.readFileSync(path.join(REPO_ROOT, 'deploy', 'rbac.yaml'), 'utf8')).map((d) => d.toJS());
  const role = docs.find((d) => d.kind === 'ClusterRole');
  const roleName = `kpn-test-${namespace}-${name}`;
  applyObjects([
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: roleName }, rules: role.rules },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: roleName },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: roleName },
      subjects: [{ kind: 'ServiceAccount', name, namespace }],
    },
  ]);
  tt.defer(() => { kubectlRun(['delete', '--ignore-not-found', '--wait=false', `clusterrolebinding/${roleName}`, `clusterrole/${roleName}`]); });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-up-sa-'));
  const tokenFile = path.join(dir, 'token');
  fs.writeFileSync(tokenFile, kubectl(['create', 'token', name, '-n', namespace, '--duration=1h']).trim());
  return { user: `system:serviceaccount:${namespace}:${name}`, namespace, name, kubeconfig: writeKubeconfig({ tokenFile }), token: fs.readFileSync(tokenFile, 'utf8') };
}
