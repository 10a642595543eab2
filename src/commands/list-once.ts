// The proxy's view of the cluster, listed once: the same ClusterWatcher the proxy runs (server-side
// selectors, the Namespace opt-out, this Node, the ServiceCIDRs) feeding the same model (ProxyState),
// until every initial list is in; then the watches stop. For the commands that show what the proxy
// would do without running it (`--dry-run`, `explain`). Nothing here touches the kernel.
import type { Log } from '../base/log';
import type { KubeProxyConfiguration } from '../config';
import { ProxyState } from '../core';
import type { IPFamily, ProxySnapshot } from '../core/types';
import type { ApiCredentials } from '../k8s/api-credentials';
import { ClusterWatcher } from '../k8s/cluster-watcher';
import { loadKubeConfig } from '../k8s/kubeconfig';
import type { ReflectorStatus } from '../k8s/reflector';
import type { ClusterEventSink } from '../k8s/sink';
import { servedFamilies } from '../app/families';
import { nodeNameOf } from '../app/proxy-app';

export interface ListOnceOptions {
  config: KubeProxyConfiguration;
  log: Log;
  /** --master: overrides the kubeconfig's server. */
  master?: string;
  /** How long the initial lists may take in all (default LIST_ONCE_TIMEOUT_MS). */
  timeoutMs?: number;
}

/** What the commands that list once and print (`--dry-run`, `explain`) are given. */
export interface ReadOnlyCommandOptions {
  config: KubeProxyConfiguration;
  log: Log;
  /** --master: overrides the kubeconfig's server. */
  master?: string;
  /** Read this network namespace's kernel (a path such as /run/netns/X; tests) instead of our own. */
  netns?: string;
  /** Where the answer goes (standard output). */
  out: { write(text: string): unknown };
  /** How long the API server's lists may take (default LIST_ONCE_TIMEOUT_MS). */
  listTimeoutMs?: number;
}

/** What the proxier would sync from, and who the proxy would be. */
export interface ListedModel {
  nodeName: string;
  /** The credentials the lists were made with (a command's further requests use them too). */
  kubeConfig: ApiCredentials;
  /** The families the proxy would serve, primary first. */
  families: IPFamily[];
  /** The model with every listed object applied (takeChanges done). */
  state: ProxyState;
  /** state's applied view: Services, selected endpoints, this Node, the Service CIDRs. */
  snapshot: ProxySnapshot;
  /** Namespaces labelled `networking.k8s.io/kube-proxy=disabled`, whose Services are left out. */
  disabledNamespaces: string[];
}

export const LIST_ONCE_TIMEOUT_MS = 30_000;

/** Throws when the kubeconfig cannot be loaded or the lists are not in within the time allowed. */
export async function listOnce(o: ListOnceOptions): Promise<ListedModel> {
  const nodeName = nodeNameOf(o.config);
  const families = servedFamilies(o.config);
  const state = new ProxyState({ nodeName, ipFamilies: families, log: o.log });
  const kubeConfig = loadKubeConfig({ kubeconfig: o.config.clientConnection.kubeconfig || undefined, master: o.master });
  const done = deferred();
  let synced = false;
  const check = (): void => { if (synced && nodeListed(watcher.status().resources)) done.resolve(); };
  const watcher: ClusterWatcher = new ClusterWatcher({
    kubeConfig, nodeName, log: o.log,
    sink: listingSink(state, () => { synced = true; check(); }),
    onStatus: () => { if (synced) check(); },
  });
  const timeoutMs = o.timeoutMs ?? LIST_ONCE_TIMEOUT_MS;
  const timer = setTimeout(() => done.reject(new Error(notListed(watcher, timeoutMs))), timeoutMs);
  try {
    watcher.start();
    await done.promise;
  } finally {
    clearTimeout(timer);
    watcher.stop();
  }
  const { snapshot } = state.takeChanges();
  return { nodeName, kubeConfig, families, state, snapshot, disabledNamespaces: watcher.disabledNamespaces() };
}

/** The model takes every object; onSynced says Services, EndpointSlices and ServiceCIDRs are listed. */
function listingSink(state: ProxyState, synced: () => void): ClusterEventSink {
  return {
    onService: (kind, svc) => { state.onService(kind, svc); },
    onEndpointSlice: (kind, slice) => { state.onEndpointSlice(kind, slice); },
    onNode: (node) => { state.onNode(node); },
    onServiceCIDRs: (cidrs) => { state.onServiceCIDRs(cidrs); },
    onSynced: synced,
  };
}

/** This Node's list is in (it may have found no Node), or the API server does not serve Nodes. */
function nodeListed(resources: readonly ReflectorStatus[]): boolean {
  return resources.some((r) => r.resource === 'nodes' && (r.synced || r.notServed === true));
}

function notListed(watcher: ClusterWatcher, timeoutMs: number): string {
  const s = watcher.status();
  const pending = s.resources.filter((r) => !r.synced && !r.notServed).map((r) => r.resource);
  const why = s.lastError ? `; last error: ${s.lastError}` : '';
  return `the API server's lists were not complete within ${timeoutMs / 1000} s (still listing: ${pending.join(', ') || 'none'})${why}`;
}

function deferred(): { promise: Promise<void>; resolve(): void; reject(e: Error): void } {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}
