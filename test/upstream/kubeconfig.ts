// Kubeconfig files for the tier's API server, in the shapes people run with: a token, a tokenFile, a
// client certificate, a CA file or data, insecure-skip-tls-verify. Client certificates are signed
// with openssl by the control plane's CA, which kube-apiserver trusts (--client-ca-file).
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { controlPlane } from './control-plane';

export interface KubeconfigSpec {
  /** Default: the control plane's CA file. */
  caFile?: string;
  caData?: Buffer;
  insecure?: boolean;
  token?: string;
  tokenFile?: string;
  certFile?: string;
  keyFile?: string;
}

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-up-kc-'));
}

/** Writes a kubeconfig for the tier's server; returns its path. */
export function writeKubeconfig(s: KubeconfigSpec): string {
  const cp = controlPlane();
  const cluster: Record<string, unknown> = { server: cp.server };
  if (s.insecure) cluster['insecure-skip-tls-verify'] = true;
  else if (s.caData) cluster['certificate-authority-data'] = s.caData.toString('base64');
  else cluster['certificate-authority'] = s.caFile ?? cp.caFile;
  const user: Record<string, unknown> = {};
  if (s.token) user.token = s.token;
  if (s.tokenFile) user.tokenFile = s.tokenFile;
  if (s.certFile) user['client-certificate'] = s.certFile;
  if (s.keyFile) user['client-key'] = s.keyFile;
  const doc = {
    apiVersion: 'v1', kind: 'Config', 'current-context': 'tier',
    clusters: [{ name: 'tier', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'tier', context: { cluster: 'tier', user: 'u' } }],
  };
  const file = path.join(tmpDir(), 'kubeconfig');
  fs.writeFileSync(file, JSON.stringify(doc, null, 2)); // JSON is YAML
  return file;
}

/** A client certificate for user `cn` in `groups`, signed by the control plane's CA: {certFile, keyFile}. */
export function clientCertificate(cn: string, groups: string[] = []): { certFile: string; keyFile: string } {
  const cp = controlPlane();
  const dir = tmpDir();
  const keyFile = path.join(dir, 'client.key');
  const certFile = path.join(dir, 'client.crt');
  const subj = `/CN=${cn}${groups.map((g) => `/O=${g}`).join('')}`;
  execFileSync('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', `${dir}/client.csr`, '-subj', subj], { stdio: 'ignore' });
  fs.writeFileSync(`${dir}/client.ext`, 'extendedKeyUsage=clientAuth\n');
  execFileSync('openssl', ['x509', '-req', '-in', `${dir}/client.csr`, '-CA', cp.caFile, '-CAkey', cp.caKeyFile, '-CAcreateserial',
    '-CAserial', `${dir}/ca.srl`, '-out', certFile, '-days', '1', '-extfile', `${dir}/client.ext`], { stdio: 'ignore' });
  return { certFile, keyFile };
}

/** A CA the API server knows nothing of (for the wrong-CA case). */
export function unrelatedCa(): string {
  const dir = tmpDir();
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${dir}/ca.key`, '-out', `${dir}/ca.crt`, '-days', '1',
    '-subj', '/CN=kpn-unrelated-ca'], { stdio: 'ignore' });
  return `${dir}/ca.crt`;
}
