// The five resources kube-proxy watches, each as: a paged list call, a watch call, and the model type
// client-node deserialises it to (lists and watch events both arrive as raw JSON over ApiConnection).
import type { KubernetesObject, V1EndpointSlice, V1Namespace, V1Node, V1Service, V1ServiceCIDR } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import { ApiConnection } from './api-request';
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

type TypedList = { items: KubernetesObject[]; metadata?: { resourceVersion?: string; _continue?: string } };

/** Checks the answer is a list before the model deserialiser sees it (it would turn garbage into an empty list). */
function decodeList<T>(raw: unknown, modelType: string, path: string): ListPage<T> {
  const items = (raw as { items?: unknown })?.items;
  if (items !== null && !Array.isArray(items)) {
    throw new Error(`GET ${path}: the answer is not a list (kind ${JSON.stringify((raw as { kind?: unknown })?.kind)})`);
  }
  const l = ObjectSerializer.deserialize({ ...(raw as object), items: items ?? [] }, `${modelType}List`, '') as TypedList;
  return { items: l.items as T[], resourceVersion: l.metadata?.resourceVersion ?? '', continueToken: l.metadata?._continue || undefined };
}

function client<T extends KubernetesObject>(conn: ApiConnection, name: string, modelType: string, path: (ns?: string) => string): ResourceClient<T> {
  return {
    name,
    list: async (o, signal) => {
      const query = { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: o.limit, continue: o.continueToken };
      return decodeList<T>(await conn.getJson(path(o.namespace), query, signal), modelType, path(o.namespace));
    },
    watch: (r) => openWatch(conn, { ...r, path: path() }),
    fromJSON: (raw) => ObjectSerializer.deserialize(raw, modelType, '') as T,
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
