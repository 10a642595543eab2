// The five resources kube-proxy watches, each as: a paged list call, a watch call, and the model type
// client-node deserialises it to (lists and watch events both arrive as raw JSON over ApiConnection).
import type { KubernetesObject, V1EndpointSlice, V1Namespace, V1Node, V1Service, V1ServiceCIDR } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { ApiConnection } from './api-request';
import { shapeProblem } from './shape-check';
import { openWatch, WatchRequest, WatchStream } from './watch-stream';

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continueToken?: string;
}

export interface ListPage<T> {
  items: T[];
  resourceVersion: string;
  continueToken?: string;
  /** Items the model deserialiser refused (a field of the wrong shape): left out of `items`. */
  rejected: RejectedItem[];
}

/** An object the API server sent that cannot be turned into its model type. */
export interface RejectedItem {
  /** `namespace/name` when the raw object says so ('' when it does not). */
  key: string;
  error: string;
}

/** `namespace/name` of a raw object, as far as it can be read. */
export function rawKey(raw: unknown): string {
  const md = (raw as { metadata?: { namespace?: unknown; name?: unknown } })?.metadata;
  const part = (v: unknown) => (typeof v === 'string' ? v : '');
  return md && typeof md === 'object' ? `${part(md.namespace)}/${part(md.name)}` : '';
}

export interface ResourceClient<T extends KubernetesObject> {
  /** Plural resource name, for logs and metrics. */
  readonly name: string;
  /** One page of a list; `signal` abandons it. */
  list(opts: ListOptions, signal?: AbortSignal): Promise<ListPage<T>>;
  /** A watch of every namespace. */
  watch(req: Omit<WatchRequest, 'path'>): WatchStream;
  /** Turns a raw watch-event object into the same typed model a list returns. */
  fromJSON(raw: unknown): T;
}

type ListMeta = { resourceVersion?: string; continue?: string };

/** One raw object as its model type; throws naming the first field of the wrong shape. */
function decode<T>(raw: unknown, modelType: string): T {
  const problem = shapeProblem(raw, modelType);
  if (problem) throw new Error(problem);
  return ObjectSerializer.deserialize(raw, modelType, '') as T;
}

/**
 * Checks the answer is a list before the model deserialiser sees it (it would turn garbage into an
 * empty list), then deserialises item by item: one object with a field of the wrong shape (which
 * makes the deserialiser throw) costs that object, not the whole list.
 */
function decodeList<T>(raw: unknown, modelType: string, path: string): ListPage<T> {
  const items = (raw as { items?: unknown })?.items;
  if (items !== null && !Array.isArray(items)) {
    throw new Error(`GET ${path}: the answer is not a list (kind ${JSON.stringify((raw as { kind?: unknown })?.kind)})`);
  }
  const out: T[] = [];
  const rejected: RejectedItem[] = [];
  for (const item of (items as unknown[] | null) ?? []) {
    try {
      out.push(decode<T>(item, modelType));
    } catch (e) {
      rejected.push({ key: rawKey(item), error: e instanceof Error ? e.message : String(e) });
    }
  }
  const meta = ((raw as { metadata?: ListMeta })?.metadata ?? {}) as ListMeta;
  const rv = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '';
  return { items: out, resourceVersion: rv, continueToken: typeof meta.continue === 'string' && meta.continue ? meta.continue : undefined, rejected };
}

function client<T extends KubernetesObject>(conn: ApiConnection, name: string, modelType: string, path: (ns?: string) => string): ResourceClient<T> {
  return {
    name,
    list: async (o, signal) => {
      const query = { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: o.limit, continue: o.continueToken };
      return decodeList<T>(await conn.getJson(path(o.namespace), query, signal), modelType, path(o.namespace));
    },
    watch: (r) => openWatch(conn, { ...r, path: path() }),
    fromJSON: (raw) => decode<T>(raw, modelType),
  };
}

export interface ResourceClients {
  services: ResourceClient<V1Service>;
  endpointSlices: ResourceClient<V1EndpointSlice>;
  nodes: ResourceClient<V1Node>;
  namespaces: ResourceClient<V1Namespace>;
  serviceCIDRs: ResourceClient<V1ServiceCIDR>;
}

const namespaced = (group: string, res: string) => (ns?: string) => (ns ? `${group}/namespaces/${encodeURIComponent(ns)}/${res}` : `${group}/${res}`);

/** Cluster-scoped: a namespace is a caller's bug, not something to ignore. */
const clusterScoped = (p: string) => (ns?: string) => {
  if (ns !== undefined) throw new Error(`${p} is cluster-scoped: cannot list namespace ${ns}`);
  return p;
};

export function resourceClients(conn: ApiConnection): ResourceClients {
  return {
    services: client(conn, 'services', 'V1Service', namespaced('/api/v1', 'services')),
    endpointSlices: client(conn, 'endpointslices', 'V1EndpointSlice', namespaced('/apis/discovery.k8s.io/v1', 'endpointslices')),
    nodes: client(conn, 'nodes', 'V1Node', clusterScoped('/api/v1/nodes')),
    namespaces: client(conn, 'namespaces', 'V1Namespace', clusterScoped('/api/v1/namespaces')),
    serviceCIDRs: client(conn, 'servicecidrs', 'V1ServiceCIDR', clusterScoped('/apis/networking.k8s.io/v1/servicecidrs')),
  };
}
