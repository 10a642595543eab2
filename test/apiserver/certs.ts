// A throwaway CA with a server certificate for 127.0.0.1 and a client certificate, made with the
// openssl command line, so the request layer is tested over real TLS with real verification.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TestCerts {
  ca: string;
  serverKey: string;
  serverCert: string;
  clientKey: string;
  clientCert: string;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** Signs a new key's certificate with the CA in `dir`; `ext` holds extensions (SANs) or is empty. */
function issue(dir: string, name: string, subject: string, ext: string): void {
  openssl(dir, 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`);
  openssl(dir, 'req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
  fs.writeFileSync(path.join(dir, `${name}.ext`), ext);
  openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', `${name}.ext`, '-out', `${name}.crt`);
}

export function makeTestCerts(): TestCerts {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-certs-'));
  try {
    openssl(dir, 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
    openssl(dir, 'req', '-x509', '-new', '-key', 'ca.key', '-subj', '/CN=kpn-test-ca', '-days', '1', '-out', 'ca.crt');
    issue(dir, 'server', '/CN=kube-apiserver', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
    issue(dir, 'client', '/CN=system:kube-proxy', 'extendedKeyUsage=clientAuth\n');
    const read = (f: string): string => fs.readFileSync(path.join(dir, f), 'utf8');
    return { ca: read('ca.crt'), serverKey: read('server.key'), serverCert: read('server.crt'), clientKey: read('client.key'), clientCert: read('client.crt') };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
