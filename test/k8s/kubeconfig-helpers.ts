// Kubeconfig files written field by field for the loader's tests, and what a loaded one puts into a
// request's options.
import * as fs from 'node:fs';
import type * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { stringify } from 'yaml';
import type { ApiCredentials } from '../../src/k8s/api-credentials';

export const tempDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-kc-'));

/** A kubeconfig in `dir` whose current context joins cluster `c` and user `u` (no user when `user` is null). */
export function writeKc(dir: string, cluster: Record<string, unknown>, user: Record<string, unknown> | null, name = 'kubeconfig'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'c', cluster }],
    users: user ? [{ name: 'u', user }] : [],
    contexts: [{ name: 'x', context: user ? { cluster: 'c', user: 'u' } : { cluster: 'c' } }],
    'current-context': 'x',
  }));
  return file;
}

/** The options one request would be sent with. */
export async function applied(creds: ApiCredentials): Promise<https.RequestOptions & { headers: Record<string, unknown> }> {
  const opts: https.RequestOptions = { headers: { Accept: 'application/json' } };
  await creds.applyTo(opts);
  return opts as https.RequestOptions & { headers: Record<string, unknown> };
}

export const b64 = (s: string): string => Buffer.from(s).toString('base64');

/** A clock the test moves by hand. */
export function fakeClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1000;
  return { now: () => t, advance: (ms) => { t += ms; } };
}
