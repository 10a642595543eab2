// Authentication, as upstream: --kubeconfig file, --master overriding its server, or in-cluster.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';

export interface ConnectionFlags {
  kubeconfig?: string;
  master?: string;
}

/** What deploy/configmap.yaml ships until the operator fills in the API server's address. */
export const PLACEHOLDER_SERVER_HOST = 'API_SERVER_ADDRESS';

const inCluster = (): boolean =>
  !!process.env.KUBERNETES_SERVICE_HOST && fs.existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token');

/**
 * client-go reads a user's token from `tokenFile` (kubeadm's kube-proxy kubeconfig uses it, with the
 * service account token the kubelet rotates); client-node knows only `token-file`, read once. Such
 * users get client-node's token-file authenticator instead, which re-reads the file every minute.
 */
function adoptTokenFiles(kc: KubeConfig, file: string): void {
  let raw: { users?: { name?: string; user?: { tokenFile?: unknown; token?: unknown } }[] };
  try {
    raw = parseYaml(fs.readFileSync(file, 'utf8')) ?? {};
  } catch {
    return; // loadFromFile already accepted it; a second parse failing changes nothing
  }
  const files = new Map<string, string>();
  for (const u of raw.users ?? []) {
    const tf = u?.user?.tokenFile;
    if (u?.name && typeof tf === 'string' && tf !== '' && !u.user?.token) files.set(u.name, path.resolve(path.dirname(file), tf));
  }
  if (files.size === 0) return;
  kc.users = kc.users.map((u) => {
    const tokenFile = files.get(u.name);
    if (!tokenFile || u.token || u.authProvider) return u;
    if (!fs.existsSync(tokenFile)) throw new Error(`--kubeconfig: user ${u.name}: tokenFile ${tokenFile} does not exist`);
    return { ...u, authProvider: { name: 'tokenFile', config: { tokenFile } } };
  });
}

function checkServer(kc: KubeConfig, file: string): void {
  const server = kc.getCurrentCluster()?.server ?? '';
  if (server.includes(PLACEHOLDER_SERVER_HOST)) {
    throw new Error(`--kubeconfig: ${file} still has the placeholder server ${server}: put your API server's address there (deploy/configmap.yaml explains why it is not the kubernetes Service)`);
  }
}

export function loadKubeConfig(flags: ConnectionFlags): KubeConfig {
  const kc = new KubeConfig();
  if (flags.kubeconfig) {
    if (!fs.existsSync(flags.kubeconfig)) throw new Error(`--kubeconfig: file ${flags.kubeconfig} does not exist`);
    kc.loadFromFile(flags.kubeconfig);
    if (!kc.getCurrentCluster()) throw new Error(`--kubeconfig: ${flags.kubeconfig} has no current cluster`);
    adoptTokenFiles(kc, flags.kubeconfig);
    if (!flags.master) checkServer(kc, flags.kubeconfig);
  } else if (inCluster()) {
    kc.loadFromCluster();
  } else if (!flags.master) {
    throw new Error('no API server configured: give --kubeconfig or --master, or run in a cluster');
  }
  if (flags.master) {
    let url: URL;
    try {
      url = new URL(flags.master);
    } catch {
      throw new Error(`--master: ${JSON.stringify(flags.master)} is not a URL`);
    }
    const server = url.toString().replace(/\/$/, '');
    // client-node refuses plain http unless verification is off; an http:// master has no TLS to verify.
    const plain = url.protocol === 'http:';
    const current = kc.getCurrentCluster();
    if (current) {
      // --master wins over the kubeconfig's server, as with client-go's BuildConfigFromFlags.
      kc.clusters = kc.clusters.map((c) => (c.name === current.name ? { ...c, server, skipTLSVerify: c.skipTLSVerify || plain } : c));
    } else {
      kc.loadFromClusterAndUser({ name: 'master', server, skipTLSVerify: plain }, { name: 'user' });
    }
  }
  return kc;
}
