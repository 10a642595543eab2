// What a test of the upstream tier gets: the shared control plane (control-plane.ts), namespaces of
// its own, nodes joined to the control plane, our proxy running on them, and everything it made
// removed when it ends. Namespaces are made unique per test and kept: without kube-controller-manager
// a deleted namespace is never finalized, so a test removes the objects in them instead.
import type { TestContext } from 'node:test';
import { randomBytes } from 'node:crypto';
import { controlPlane, type ControlPlane } from './control-plane';
import { applyObjects, kubectlRun } from './kubectl';
import { createNode, type TierNode } from './node';
import { startProxyProcess, type ProxyOptions, type ProxyProcess } from './proxy-process';

/** What a test may have created in its namespaces (kubectl's resource names). */
const NAMESPACED = 'services,endpointslices.discovery.k8s.io,events,configmaps,serviceaccounts';

export interface Tier {
  cp: ControlPlane;
  /** `n` namespaces made for this test (names unique in the control plane). */
  namespaces(n: number): string[];
  /** A node (namespace + link + Node object with its InternalIP). */
  node(): TierNode;
  /** Our proxy on `node`, stopped at the end of the test. */
  proxy(node: TierNode, o: ProxyOptions): ProxyProcess;
  /** Runs at the end of the test, before the built-in clean-up (newest first). */
  defer(fn: () => void | Promise<void>): void;
}

export function tier(t: TestContext): Tier {
  const cp = controlPlane();
  const cleanups: Array<() => void | Promise<void>> = [];
  const id = randomBytes(3).toString('hex');
  let made = 0;
  t.after(async () => {
    const errors: unknown[] = [];
    for (const fn of cleanups.reverse()) {
      try { await fn(); } catch (e) { errors.push(e); }
    }
    if (errors.length > 0) throw errors[0];
  });
  return {
    cp,
    namespaces(n) {
      const names = Array.from({ length: n }, () => `t-${id}-${made++}`);
      applyObjects(names.map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })));
      cleanups.push(() => {
        for (const ns of names) {
          const r = kubectlRun(['delete', NAMESPACED, '--all', '--wait=false', '-n', ns]);
          if (r.code !== 0) throw new Error(`cleaning namespace ${ns}: ${r.err}`);
        }
      });
      return names;
    },
    node() {
      const node = createNode();
      cleanups.push(() => node.destroy());
      applyObjects([{
        apiVersion: 'v1', kind: 'Node', metadata: { name: node.name, labels: { 'kubernetes.io/hostname': node.name } },
        status: { addresses: [{ type: 'InternalIP', address: node.ip }, { type: 'Hostname', address: node.name }] },
      }]);
      cleanups.push(() => { kubectlRun(['delete', 'node', node.name, '--wait=false']); });
      return node;
    },
    proxy(node, o) {
      const p = startProxyProcess(node, o);
      cleanups.push(() => p.stop());
      return p;
    },
    defer(fn) {
      cleanups.push(fn);
    },
  };
}
