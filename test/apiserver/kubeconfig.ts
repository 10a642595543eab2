// Kubeconfig files pointing at a test API server, as a kube-proxy deployment would write them.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** How the kubeconfig authenticates and verifies: PEM strings, written inline as base64 *-data fields. */
export interface KubeconfigUser {
  token?: string;
  clientCert?: string;
  clientKey?: string;
  /** The CA that signed the server's certificate; without it, an https server is not verified. */
  ca?: string;
}

const b64 = (pem: string): string => Buffer.from(pem).toString('base64');

export function writeKubeconfig(server: string, dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-kubeconfig-')), user: KubeconfigUser = { token: 'test-token' }): string {
  const file = path.join(dir, 'kubeconfig');
  // client-node refuses plain http unless TLS verification is switched off (there is no TLS to verify).
  const cluster = user.ca ? { server, 'certificate-authority-data': b64(user.ca) } : { server, 'insecure-skip-tls-verify': true };
  const u: Record<string, string> = {};
  if (user.token) u.token = user.token;
  if (user.clientCert) u['client-certificate-data'] = b64(user.clientCert);
  if (user.clientKey) u['client-key-data'] = b64(user.clientKey);
  const cfg = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster }],
    users: [{ name: 'test', user: u }],
    contexts: [{ name: 'test', context: { cluster: 'test', user: 'test' } }],
    'current-context': 'test',
  };
  fs.writeFileSync(file, JSON.stringify(cfg, null, 2));
  return file;
}
