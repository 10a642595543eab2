// The upstream tier's control plane: etcd and kube-apiserver in a network namespace, shared by every
// test of the tier. scripts/test.sh starts one before the tier's files (scripts/upstream/control-plane.sh)
// and passes its coordinates in KPN_UPSTREAM_* variables; a tier file run alone (node --test FILE)
// starts its own with the same script and stops it when its process exits.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/topology';

const SCRIPT = path.join(REPO_ROOT, 'scripts', 'upstream', 'control-plane.sh');

export interface ControlPlane {
  /** Where its files are: certificates, token file, logs, admin.kubeconfig. */
  dir: string;
  /** The network namespace kube-apiserver and etcd run in. */
  netns: string;
  /** https://10.99.0.1:6443: reachable inside `netns` and from namespaces joined to it (node.ts). */
  server: string;
  /** The CA that signs the serving certificate and that kube-apiserver trusts for client certificates. */
  caFile: string;
  caKeyFile: string;
  adminToken: string;
  /** The token of user system:kube-proxy (bound to system:node-proxier by upstream's bootstrap RBAC). */
  proxyToken: string;
  /** One JSON audit event per line, every request at level Metadata. */
  auditLog: string;
  kubectl: string;
  kubeProxy: string;
}

const VARS = {
  dir: 'KPN_UPSTREAM_DIR', netns: 'KPN_UPSTREAM_NETNS', server: 'KPN_UPSTREAM_SERVER', caFile: 'KPN_UPSTREAM_CA',
  caKeyFile: 'KPN_UPSTREAM_CA_KEY', adminToken: 'KPN_UPSTREAM_ADMIN_TOKEN', proxyToken: 'KPN_UPSTREAM_PROXY_TOKEN',
  auditLog: 'KPN_UPSTREAM_AUDIT_LOG', kubectl: 'KPN_UPSTREAM_KUBECTL', kubeProxy: 'KPN_UPSTREAM_KUBE_PROXY',
} as const satisfies Record<keyof ControlPlane, string>;

let shared: ControlPlane | undefined;
/** `shared` was started by this process (startOwn). */
let own = false;

/** The tier's control plane: the one named by the environment, else one this process starts (once). */
export function controlPlane(): ControlPlane {
  if (!shared) {
    shared = fromEnv(process.env);
    if (!shared) { shared = startOwn(); own = true; }
  }
  return shared;
}

/**
 * A control plane of this process's own, which `controlPlane()` (and so the whole harness) returns
 * from now on, whatever the environment names: for a test file that restarts kube-apiserver or
 * compacts etcd, which must not touch the tier's shared one. Call it before anything else of the
 * harness. Stopped when the process exits. `apiserverFlags` are added to kube-apiserver's (and kept
 * across restartApiserver()).
 */
export function privateControlPlane(o: { apiserverFlags?: string[] } = {}): ControlPlane {
  if (shared && !own) throw new Error('privateControlPlane() after the shared control plane was used');
  shared ??= startOwn(o.apiserverFlags ?? []);
  own = true;
  return shared;
}

/**
 * kube-apiserver of a private control plane stopped (SIGTERM, its graceful shutdown) and started again
 * with the same flags; resolves once it is ready. Asynchronous, so a test can act while it restarts.
 */
export function restartApiserver(cp: ControlPlane): Promise<void> {
  if (!own) return Promise.reject(new Error('restartApiserver() on the shared control plane'));
  const child = spawn('bash', [SCRIPT, 'restart-apiserver', cp.dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  return new Promise((resolve, reject) => child.on('exit', (code) =>
    code === 0 ? resolve() : reject(new Error(`control-plane.sh restart-apiserver exited ${code}: ${err.trim()}`))));
}

/** etcd of a private control plane compacted at its current revision (returned), announced to kube-apiserver as its own compactor does (control-plane.sh). */
export function compactEtcd(cp: ControlPlane): number {
  if (!own) throw new Error('compactEtcd() on the shared control plane');
  const r = spawnSync('bash', [SCRIPT, 'compact', cp.dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0) throw new Error(`control-plane.sh compact exited ${r.status}: ${r.stderr.trim()}`);
  return Number(r.stdout.trim());
}

function fromEnv(env: NodeJS.ProcessEnv): ControlPlane | undefined {
  if (!env[VARS.dir]) return undefined;
  const missing = Object.values(VARS).filter((v) => !env[v]);
  if (missing.length > 0) throw new Error(`${VARS.dir} is set but ${missing.join(', ')} are not (scripts/upstream/control-plane.sh start prints them all)`);
  return Object.fromEntries(Object.entries(VARS).map(([k, v]) => [k, env[v]!])) as unknown as ControlPlane;
}

function startOwn(apiserverFlags: string[] = []): ControlPlane {
  const env = { ...process.env, KPN_UPSTREAM_APISERVER_FLAGS: apiserverFlags.join(' ') };
  const r = spawnSync('bash', [SCRIPT, 'start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
  if (r.status !== 0) throw new Error(`scripts/upstream/control-plane.sh start exited ${r.status}: ${r.stderr.trim()}`);
  const printed: NodeJS.ProcessEnv = {};
  for (const m of r.stdout.matchAll(/^export (\w+)=(.*)$/gm)) printed[m[1]] = m[2];
  const cp = fromEnv(printed);
  if (!cp) throw new Error(`control-plane.sh start printed no ${VARS.dir}: ${r.stdout}`);
  // Stopped when this process exits, passed or failed (a synchronous call: 'exit' allows nothing else).
  process.on('exit', () => { try { execFileSync('bash', [SCRIPT, 'stop', cp.dir], { stdio: 'ignore' }); } catch { /* reported by nothing: best effort */ } });
  return cp;
}
