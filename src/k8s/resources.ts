// The five resources kube-proxy watches, each as: a paged list call, a watch call, and what is kept of
// each object (lists and watch events both arrive as raw JSON over ApiConnection). An object is
// checked against its client-node model type, then only the fields the proxy reads are copied out
// (kept-fields.ts): plain objects typed as the model, never the whole object.
import type { KubernetesObject, V1EndpointSlice, V1Namespace, V1Node, V1Service, V1ServiceCIDR } from '@kubernetes/client-node';
import { ApiConnection } from './api-request';
import { memberDropper } from './drop-members';
import { ENDPOINT_SLICE, NAMESPACE, NODE, SERVICE, SERVICE_CIDR, UNREAD_MEMBERS } from './kept-fields';
import { type Keep, pick } from './pick';
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
  /** Items refused by the shape check (a field of the wrong shape): left out of `items`. */
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
  /** Turns a raw watch-event object into what a list returns: its kept fields; throws naming a field of the wrong shape. */
  fromJSON(raw: unknown): T;
}

type ListMeta = { resourceVersion?: string; continue?: string };

/** What one resource's objects are checked against, and what is kept of them. */
interface Decoding {
  /** client-node's model type, for the shape check. */
  modelType: string;
  keep: Keep;
}

/** One raw object's kept fields; throws naming the first field of the wrong shape (anywhere in it). */
function decode<T>(raw: unknown, d: Decoding): T {
  const problem = shapeProblem(raw, d.modelType);
  if (problem) throw new Error(problem);
  return pick(raw, d.keep) as T;
}

/**
 * Checks the answer is a list (garbage must not read as an empty list), then decodes item by item:
 * one object with a field of the wrong shape costs that object, not the whole list. Empties the raw
 * list as it goes (see docs/memory.md, "The list's garbage").
 */
function decodeList<T>(raw: unknown, d: Decoding, path: string): ListPage<T> {
  const items = (raw as { items?: unknown })?.items;
  if (items !== null && !Array.isArray(items)) {
    throw new Error(`GET ${path}: the answer is not a list (kind ${JSON.stringify((raw as { kind?: unknown })?.kind)})`);
  }
  const out: T[] = [];
  const rejected: RejectedItem[] = [];
  const list = (items as unknown[] | null) ?? [];
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    // Let each raw object die as soon as it is decoded: held by the page until its end, the raw objects
    // outlived two scavenges and were promoted (44k list: ~110 MiB more RSS, 0.7 s more CPU).
    list[i] = undefined;
    try {
      out.push(decode<T>(item, d));
    } catch (e) {
      rejected.push({ key: rawKey(item), error: e instanceof Error ? e.message : String(e) });
    }
  }
  const meta = ((raw as { metadata?: ListMeta })?.metadata ?? {}) as ListMeta;
  const rv = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '';
  return { items: out, resourceVersion: rv, continueToken: typeof meta.continue === 'string' && meta.continue ? meta.continue : undefined, rejected };
}

/** A list page's unread members go before it is parsed: at 44k Services ~40% of its bytes. */
const dropUnread = memberDropper(UNREAD_MEMBERS);

function client<T extends KubernetesObject>(conn: ApiConnection, name: string, d: Decoding, path: (ns?: string) => string): ResourceClient<T> {
  return {
    name,
    list: async (o, signal) => {
      const query = { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: o.limit, continue: o.continueToken };
      return decodeList<T>(await conn.getJson(path(o.namespace), query, signal, dropUnread), d, path(o.namespace));
    },
    watch: (r) => openWatch(conn, { ...r, path: path() }),
    fromJSON: (raw) => decode<T>(raw, d),
  };
}

/** What each resource's objects are delivered as (their kept fields: see kept-fields.ts). */
export interface ResourceTypes {
  services: V1Service;
  endpointSlices: V1EndpointSlice;
  nodes: V1Node;
  namespaces: V1Namespace;
  serviceCIDRs: V1ServiceCIDR;
}

export type ResourceClients = { [K in keyof ResourceTypes]: ResourceClient<ResourceTypes[K]> };

const namespaced = (group: string, res: string) => (ns?: string) => (ns ? `${group}/namespaces/${encodeURIComponent(ns)}/${res}` : `${group}/${res}`);

/** Cluster-scoped: a namespace is a caller's bug, not something to ignore. */
const clusterScoped = (p: string) => (ns?: string) => {
  if (ns !== undefined) throw new Error(`${p} is cluster-scoped: cannot list namespace ${ns}`);
  return p;
};

const DECODING: Record<keyof ResourceTypes, Decoding> = {
  services: { modelType: 'V1Service', keep: SERVICE },
  endpointSlices: { modelType: 'V1EndpointSlice', keep: ENDPOINT_SLICE },
  nodes: { modelType: 'V1Node', keep: NODE },
  namespaces: { modelType: 'V1Namespace', keep: NAMESPACE },
  serviceCIDRs: { modelType: 'V1ServiceCIDR', keep: SERVICE_CIDR },
};

/** A raw object as the watchers deliver it (shape-checked, kept fields only); throws where a list would refuse it. */
export function decodeObject<K extends keyof ResourceTypes>(resource: K, raw: unknown): ResourceTypes[K] {
  return decode<ResourceTypes[K]>(raw, DECODING[resource]);
}

export function resourceClients(conn: ApiConnection): ResourceClients {
  return {
    services: client(conn, 'services', DECODING.services, namespaced('/api/v1', 'services')),
    endpointSlices: client(conn, 'endpointslices', DECODING.endpointSlices, namespaced('/apis/discovery.k8s.io/v1', 'endpointslices')),
    nodes: client(conn, 'nodes', DECODING.nodes, clusterScoped('/api/v1/nodes')),
    namespaces: client(conn, 'namespaces', DECODING.namespaces, clusterScoped('/api/v1/namespaces')),
    serviceCIDRs: client(conn, 'servicecidrs', DECODING.serviceCIDRs, clusterScoped('/apis/networking.k8s.io/v1/servicecidrs')),
  };
}
