// Upstream's kubectl against the tier's kube-apiserver, run inside the control plane's network
// namespace (where https://10.99.0.1:6443 is): as the admin, or with any kubeconfig a test writes.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { controlPlane } from './control-plane';

export interface KubectlResult { code: number | null; out: string; err: string }

export interface KubectlOptions {
  /** Default: the admin's kubeconfig (system:masters). */
  kubeconfig?: string;
  /** Standard input (a manifest for `apply -f -`). */
  input?: string;
}

/** Runs kubectl; never throws (the caller asserts on the result). */
export function kubectlRun(args: string[], o: KubectlOptions = {}): KubectlResult {
  const cp = controlPlane();
  const kubeconfig = o.kubeconfig ?? path.join(cp.dir, 'admin.kubeconfig');
  const r = spawnSync('ip', ['netns', 'exec', cp.netns, cp.kubectl, '--kubeconfig', kubeconfig, ...args],
    { encoding: 'utf8', input: o.input, timeout: 60_000, maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout ?? '', err: r.stderr ?? String(r.error ?? '') };
}

/** Runs kubectl and returns its stdout; throws with its stderr when it fails. */
export function kubectl(args: string[], o: KubectlOptions = {}): string {
  const r = kubectlRun(args, o);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.err.trim()}`);
  return r.out;
}

/** `kubectl get ... -o json`, parsed. */
export function getJson<T = any>(args: string[], o: KubectlOptions = {}): T {
  return JSON.parse(kubectl(['get', ...args, '-o', 'json'], o)) as T;
}

/** `kubectl apply -f -` of objects (JSON is YAML), as the admin unless told otherwise. */
export function applyObjects(objects: object[], o: KubectlOptions = {}): string {
  return kubectl(['apply', '-f', '-'], { ...o, input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) });
}
