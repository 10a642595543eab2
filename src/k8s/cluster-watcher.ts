// Everything kube-proxy watches, wired to one sink: Services, EndpointSlices, this Node, the
// ServiceCIDRs, and the Namespaces labelled `networking.k8s.io/kube-proxy=disabled`, whose Services and
// EndpointSlices are never requested (see docs/watching.md for the design and its cost).
import type { KubernetesObject, V1EndpointSlice, V1Namespace, V1Node, V1Service, V1ServiceCIDR } from '@kubernetes/client-node';
import type { ApiCredentials } from './api-credentials';
import { ApiConnection, type RequestObserver } from './api-request';
import { BackoffOptions } from './backoff';
import { RequestDeadlines } from './deadlines';
import { silentLog, type Log } from '../base/log';
import { Reflector, type ReflectorStatus, type SharedReflectorOptions } from './reflector';
import { forbiddenFor } from './reflector-state';
import { type ResourceClient, type ResourceClients, resourceClients } from './resources';
import { ServiceCIDRWatch } from './service-cidr-watch';
import { DISABLED_NAMESPACES_SELECTOR, excludeNamespacesSelector, nodeFieldSelector, SERVICE_LABEL_SELECTOR } from './selectors';
import { ClusterEventSink, EventKind } from './sink';

const SELECTOR_WARN_BYTES = 512 * 1024;

export interface ClusterWatcherOptions {
  /** The API server and how to authenticate to it (loadKubeConfig). */
  kubeConfig: ApiCredentials;
  nodeName: string;
  sink: ClusterEventSink;
  log?: Log;
  backoff?: BackoffOptions;
  pageSize?: number;
  watchTimeoutSeconds?: () => number;
  /** How long a request may stay silent, phase by phase (defaults: DEFAULT_DEADLINES, see docs/watching.md). */
  deadlines?: Partial<RequestDeadlines>;
  /** Told of every request (rest_client_* metrics). */
  requestObserver?: RequestObserver;
  /** Honour the disabled-namespace label (needs RBAC list/watch on namespaces). Default true. */
  namespaceOptOut?: boolean;
  /** While listing Namespaces is forbidden (HTTP 403), retry after this long plus up to as much again
   *  at random. Default NAMESPACES_FORBIDDEN_RETRY_MS. */
  namespacesForbiddenRetryMs?: number;
  /** How long Namespaces must keep being refused with 403 before it is taken as RBAC's answer.
   *  Default NAMESPACES_FORBIDDEN_CONFIRM_MS. */
  namespacesForbiddenConfirmMs?: number;
  /** Watch `networking.k8s.io/v1` ServiceCIDRs and give their ranges to the sink. Default true. */
  serviceCIDRs?: boolean;
  /** Told whenever a watch connects or fails (for metrics). */
  onStatus?: (s: ReflectorStatus) => void;
  /** Injectable for tests; defaults to our requests to the kubeconfig's API server. */
  clients?: ResourceClients;
}

export interface WatcherStatus {
  /** Every watch is connected (a resource the API server does not serve is not watched, so not counted). */
  connected: boolean;
  /** Services and EndpointSlices completed their first list. */
  synced: boolean;
  lastError?: string;
  /**
   * The oldest `staleSince` of the views the proxy relies on: every watched resource except one failing
   * with HTTP 403 that the proxy works without by design (Namespaces: the opt-out label is not honoured;
   * ServiceCIDRs: no drop rule), which is logged instead. Undefined when all are current.
   */
  staleSince?: Date;
  resources: ReflectorStatus[];
}

/** 5 to 10 minutes between tries while upstream's system:node-proxier role (no Namespace access) is
 *  in force: granting the permission is rare, and a refused request costs the API server an audit entry. */
export const NAMESPACES_FORBIDDEN_RETRY_MS = 5 * 60_000;

/**
 * A 403 on Namespaces counts as "not granted" only once every try for this long has been refused.
 * kube-apiserver v1.37.2 answers 403 to allowed requests for a moment after it starts (its RBAC rules
 * not loaded yet: seen on the first request after 2 of 3 restarts, allowed ~0.1 s later); taking that
 * for RBAC's answer turned the opt-out off and slowed the retries to 5-10 minutes. With the backoff
 * (0.8-1.6 s, then 1.6-3.2 s) this is two or three more tries; it delays the first sync by as much
 * only where Namespaces are really not granted.
 */
export const NAMESPACES_FORBIDDEN_CONFIRM_MS = 3_000;

/** The grant that turns the Namespace opt-out on (deploy/rbac.yaml has it). */
export const NAMESPACES_RBAC_RULE = 'apiGroups: [""], resources: ["namespaces"], verbs: ["list", "watch"]';

/** Resources the proxy runs without when RBAC forbids them (logged once, retried quietly). */
const OPTIONAL_WHEN_FORBIDDEN = new Set(['namespaces', 'servicecidrs']);

/** Does this resource's staleness make the proxy's view stale? */
function countsForStaleness(r: ReflectorStatus, forbiddenConfirmMs: number): boolean {
  if (r.notServed) return false;
  return !(OPTIONAL_WHEN_FORBIDDEN.has(r.resource) && !r.connected && r.lastErrorCode === 403 && forbiddenFor(r, forbiddenConfirmMs));
}

type Shared = SharedReflectorOptions & { log: Log };

const humanMs = (ms: number): string => (ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`);

export class ClusterWatcher {
  private readonly services: Reflector<V1Service>;
  private readonly slices: Reflector<V1EndpointSlice>;
  private readonly node: Reflector<V1Node>;
  private readonly namespaces?: Reflector<V1Namespace>;
  private readonly serviceCIDRs?: ServiceCIDRWatch;
  /** The first ServiceCIDR list has succeeded or failed (or is not asked for): onSynced no longer waits for it. */
  private cidrsSettled: boolean;
  private syncedReported = false;
  private readonly disabled = new Set<string>();
  /** Namespaces that opted back in are merged one at a time, in order. */
  private merges: Promise<void> = Promise.resolve();
  private servicesStarted = false;
  /** The opt-out is off because listing Namespaces is forbidden, and that has been said. */
  private namespacesForbiddenSaid = false;
  /** How many of Services and EndpointSlices have completed their first list. */
  private modelListsDone = 0;
  private readonly log: Log;
  /** See NAMESPACES_FORBIDDEN_CONFIRM_MS. */
  private readonly forbiddenConfirmMs: number;

  constructor(private readonly o: ClusterWatcherOptions) {
    this.log = o.log ?? silentLog;
    this.forbiddenConfirmMs = o.namespacesForbiddenConfirmMs ?? NAMESPACES_FORBIDDEN_CONFIRM_MS;
    const clients = o.clients ?? resourceClients(new ApiConnection(o.kubeConfig, o.deadlines, o.requestObserver));
    const shared: Shared = { backoff: o.backoff, pageSize: o.pageSize, watchTimeoutSeconds: o.watchTimeoutSeconds, log: this.log, onStatus: o.onStatus };
    this.services = this.modelReflector(clients.services, shared, (k, s) => o.sink.onService(k, s));
    this.slices = this.modelReflector(clients.endpointSlices, shared, (k, s) => o.sink.onEndpointSlice(k, s));
    this.node = this.nodeReflector(clients.nodes, shared);
    this.serviceCIDRs = o.serviceCIDRs === false ? undefined : this.serviceCIDRWatch(clients.serviceCIDRs, shared);
    this.cidrsSettled = this.serviceCIDRs === undefined;
    this.namespaces = o.namespaceOptOut === false ? undefined : this.namespaceReflector(clients.namespaces, shared);
  }

  start(): void {
    this.node.start();
    // Before Services: the ranges are usually known by the first sync, which waits for this first list.
    this.serviceCIDRs?.start();
    if (this.namespaces) this.namespaces.start();
    else this.startServices();
  }

  stop(): void {
    for (const r of this.reflectors()) r.stop();
  }

  /** Namespaces currently opted out. */
  disabledNamespaces(): string[] {
    return [...this.disabled].sort();
  }

  /** Resolves when the namespaces that opted back in so far have been merged (for tests and orderly shutdown). */
  settled(): Promise<void> {
    return this.merges;
  }

  /** Each view the proxy relies on (see WatcherStatus.staleSince) that is stale now, and since when. */
  staleResources(): { resource: string; since: Date }[] {
    return this.reflectors().map((r) => r.status).filter((r) => countsForStaleness(r, this.forbiddenConfirmMs))
      .filter((r) => r.staleSince !== undefined).map((r) => ({ resource: r.resource, since: r.staleSince! }));
  }

  status(): WatcherStatus {
    const resources = this.reflectors().map((r) => r.status);
    const watched = resources.filter((r) => !r.notServed);
    const failing = watched.filter((r) => r.lastError && !r.connected);
    const stale = resources.filter((r) => countsForStaleness(r, this.forbiddenConfirmMs)).map((r) => r.staleSince).filter((d): d is Date => d !== undefined);
    return {
      connected: watched.every((r) => r.connected),
      synced: this.modelListsDone >= 2,
      lastError: failing[0]?.lastError,
      staleSince: stale.length > 0 ? new Date(Math.min(...stale.map((d) => d.getTime()))) : undefined,
      resources,
    };
  }

  private reflectors(): Reflector<KubernetesObject>[] {
    const all = [this.services, this.slices, this.node, this.namespaces, this.serviceCIDRs?.reflector] as Array<Reflector<KubernetesObject> | undefined>;
    return all.filter((r): r is Reflector<KubernetesObject> => r !== undefined);
  }

  /** Services or EndpointSlices: those of opted-out namespaces are never asked for, nor accepted. */
  private modelReflector<T extends KubernetesObject>(client: ResourceClient<T>, shared: Shared, to: (kind: EventKind, obj: T) => void): Reflector<T> {
    return new Reflector<T>({
      ...shared,
      client,
      labelSelector: SERVICE_LABEL_SELECTOR,
      accept: (obj) => !this.disabled.has(obj.metadata?.namespace ?? ''),
      handler: {
        add: (obj) => to('add', obj),
        update: (obj) => to('update', obj),
        delete: (obj) => to('delete', obj),
        synced: () => {
          ++this.modelListsDone;
          this.maybeSynced();
        },
      },
    });
  }

  private nodeReflector(client: ResourceClient<V1Node>, shared: Shared): Reflector<V1Node> {
    return new Reflector<V1Node>({
      ...shared,
      client,
      fieldSelector: nodeFieldSelector(this.o.nodeName),
      handler: {
        add: (n) => this.o.sink.onNode(n),
        update: (n) => this.o.sink.onNode(n),
        delete: () => this.o.sink.onNode(undefined),
      },
    });
  }

  private serviceCIDRWatch(client: ResourceClient<V1ServiceCIDR>, shared: Shared): ServiceCIDRWatch {
    return new ServiceCIDRWatch({
      client,
      shared,
      deliver: (cidrs) => this.o.sink.onServiceCIDRs?.(cidrs),
      firstListEnded: () => this.settleCIDRs(),
    });
  }

  /** The namespaces labelled disabled; Services are requested once they are known. */
  private namespaceReflector(client: ResourceClient<V1Namespace>, shared: Shared): Reflector<V1Namespace> {
    return new Reflector<V1Namespace>({
      ...shared,
      onStatus: (s) => {
        this.o.onStatus?.(s);
        if (s.connected) this.namespacesAllowed();
        // A 403 that does not last is an API server just started, not RBAC: the next tries tell.
        else if (s.lastErrorCode === 403 && forbiddenFor(s, this.forbiddenConfirmMs)) this.namespacesForbidden(s.lastError);
      },
      // Said once, with the reason and the fix, by namespacesForbidden; then retried rarely.
      quietErrorCodes: [403],
      forbiddenRetryMs: this.o.namespacesForbiddenRetryMs ?? NAMESPACES_FORBIDDEN_RETRY_MS,
      forbiddenConfirmMs: this.forbiddenConfirmMs,
      client,
      labelSelector: DISABLED_NAMESPACES_SELECTOR,
      handler: {
        add: (ns) => this.setDisabled(ns.metadata!.name!, true),
        update: () => undefined,
        // Label removed (the watch's selector no longer matches) or namespace deleted.
        delete: (ns) => this.setDisabled(ns.metadata!.name!, false),
        // Services are requested only once the disabled set is known, so none of theirs is ever asked for.
        synced: () => this.startServices(),
      },
    });
  }

  /**
   * onSynced fires once Services and EndpointSlices are listed and the first ServiceCIDR list has
   * ended either way, so the first sync already has the ranges when they can be had (upstream waits
   * for that informer too), but never waits on a ServiceCIDR API that fails.
   */
  private maybeSynced(): void {
    if (this.syncedReported || this.modelListsDone < 2 || !this.cidrsSettled) return;
    this.syncedReported = true;
    this.o.sink.onSynced();
  }

  private settleCIDRs(): void {
    if (this.cidrsSettled) return;
    this.cidrsSettled = true;
    this.maybeSynced();
  }

  /**
   * Upstream's system:node-proxier role grants no access to Namespaces. Rather than never proxying
   * anything, proxy every namespace, say once why the opt-out label is not honoured and what grants it,
   * and retry rarely (NAMESPACES_FORBIDDEN_RETRY_MS): once access is granted, the opted-out namespaces
   * are dropped as they are learnt.
   */
  private namespacesForbidden(err: string | undefined): void {
    if (!this.namespacesForbiddenSaid) {
      this.namespacesForbiddenSaid = true;
      const retry = this.o.namespacesForbiddenRetryMs ?? NAMESPACES_FORBIDDEN_RETRY_MS;
      this.log.warn({ resource: 'namespaces', err, rbacRule: NAMESPACES_RBAC_RULE },
        `the Namespace opt-out (label networking.k8s.io/kube-proxy=disabled) is inactive: the API server refused to list Namespaces (HTTP 403; upstream's system:node-proxier role does not grant it). Proxying the Services of every namespace; retrying every ${humanMs(retry)} to ${humanMs(2 * retry)}. Grant list and watch on namespaces to enable it`);
    }
    this.startServices();
  }

  private namespacesAllowed(): void {
    if (!this.namespacesForbiddenSaid) return;
    this.namespacesForbiddenSaid = false;
    this.log.info({ resource: 'namespaces' }, 'listing Namespaces is now allowed: the Namespace opt-out is active');
  }

  private startServices(): void {
    if (this.servicesStarted) return;
    this.servicesStarted = true;
    this.applySelector();
    this.services.start();
    this.slices.start();
  }

  private applySelector(): void {
    const sel = excludeNamespacesSelector(this.disabled);
    if (sel && sel.length > SELECTOR_WARN_BYTES) {
      // The API server (Go net/http) accepts about 1 MiB of request line and headers.
      this.log.warn({ disabledNamespaces: this.disabled.size, selectorBytes: sel.length }, 'namespace exclusion selector is approaching the API server request-size limit');
    }
    this.services.setFieldSelector(sel);
    this.slices.setFieldSelector(sel);
  }

  private setDisabled(namespace: string, disabled: boolean): void {
    if (this.disabled.has(namespace) === disabled) return;
    if (disabled) {
      // Synchronous, so the Services are gone from the sink within this very event.
      this.disabled.add(namespace);
      const inNs = (o: KubernetesObject): boolean => o.metadata?.namespace === namespace;
      this.services.abortMerge(namespace);
      this.slices.abortMerge(namespace);
      const gone = this.services.drop(inNs) + this.slices.drop(inNs);
      this.log.info({ namespace, objectsDropped: gone }, 'namespace opted out of kube-proxy');
      if (this.servicesStarted) this.applySelector();
      this.o.sink.onNamespaceDisabledChange?.(namespace, true);
      return;
    }
    this.disabled.delete(namespace);
    this.o.sink.onNamespaceDisabledChange?.(namespace, false);
    if (!this.servicesStarted) return;
    // Widen the watches (from the current version, no relist) while holding this namespace's events,
    // list just this namespace, then release the held events newer than the list.
    this.services.beginMerge(namespace);
    this.slices.beginMerge(namespace);
    this.applySelector();
    this.merges = this.merges.then(() => this.mergeReenabled(namespace));
  }

  /** Lists a namespace that opted back in, retrying; a relist of everything when that keeps failing. */
  private async mergeReenabled(namespace: string): Promise<void> {
    for (let attempt = 1; !this.disabled.has(namespace); attempt++) {
      try {
        await Promise.all([this.services.mergeNamespace(namespace), this.slices.mergeNamespace(namespace)]);
        this.log.info({ namespace }, 'namespace opted back in to kube-proxy');
        return;
      } catch (err) {
        if (attempt >= 5) {
          // A watch replays changes, not unchanged objects: only a full relist can bring them back now.
          this.log.warn({ namespace, err: String(err) }, 'listing re-enabled namespace failed; relisting everything');
          this.services.relistNow();
          this.slices.relistNow();
          return;
        }
        await new Promise((r) => setTimeout(r, (this.o.backoff?.initialMs ?? 800) * attempt));
      }
    }
  }
}
