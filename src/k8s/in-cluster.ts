// The pod's own service account, as client-go's InClusterConfig reads it: the API server from
// KUBERNETES_SERVICE_HOST and _PORT (always https, an IPv6 host in brackets), the mounted CA and the
// mounted token, which the kubelet rotates.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import type { KubeconfigSelection } from './kubeconfig-file';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export function runsInCluster(env: NodeJS.ProcessEnv, dir = SERVICE_ACCOUNT_DIR): boolean {
  return !!env.KUBERNETES_SERVICE_HOST && fs.existsSync(path.join(dir, 'token'));
}

export function inClusterConfig(env: NodeJS.ProcessEnv, dir = SERVICE_ACCOUNT_DIR): KubeconfigSelection {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  if (!host || !port) throw new Error('in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must both be set');
  const server = `https://${net.isIPv6(host) ? `[${host}]` : host}:${port}`;
  try {
    new URL(server);
  } catch {
    throw new Error(`in-cluster: KUBERNETES_SERVICE_HOST ${JSON.stringify(host)} and KUBERNETES_SERVICE_PORT ${JSON.stringify(port)} do not make a URL`);
  }
  // The CA is read for each request, the token at once: neither has to be checked here.
  return { cluster: { server, caFile: path.join(dir, 'ca.crt'), skipTLSVerify: false }, user: { tokenFile: path.join(dir, 'token') }, files: [] };
}
