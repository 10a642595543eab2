// The five resources kube-proxy watches, each as: its watch path, a paged list call, and the model type
// client-node deserialises it to (watch events arrive as raw JSON; lists arrive typed).
import { CoreV1Api, DiscoveryV1Api, KubeConfig, KubernetesObject, NetworkingV1Api } from '@kubernetes/client-node';
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';

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
  watchPath(namespace?: string): string;
  list(opts: ListOptions): Promise<ListPage<T>>;
  /** Turns a raw watch-event object into the same typed model a list returns. */
  fromJSON(raw: unknown): T;
}

type AnyList = { items: KubernetesObject[]; metadata?: { resourceVersion?: string; _continue?: string } };

function page<T extends KubernetesObject>(l: AnyList): ListPage<T> {
  return { items: l.items as T[], resourceVersion: l.metadata?.resourceVersion ?? '', continueToken: l.metadata?._continue || undefined };
}

function params(o: ListOptions): Record<string, unknown> {
  return { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: o.limit, _continue: o.continueToken };
}

function client<T extends KubernetesObject>(
  name: string,
  modelType: string,
  watchPath: (ns?: string) => string,
  list: (o: ListOptions) => Promise<AnyList>,
): ResourceClient<T> {
  return {
    name,
    watchPath,
    list: async (o) => page<T>(await list(o)),
    fromJSON: (raw) => ObjectSerializer.deserialize(raw, modelType, '') as T,
  };
}

export interface ResourceClients {
  services: ResourceClient<import('@kubernetes/client-node').V1Service>;
  endpointSlices: ResourceClient<import('@kubernetes/client-node').V1EndpointSlice>;
  nodes: ResourceClient<import('@kubernetes/client-node').V1Node>;
  namespaces: ResourceClient<import('@kubernetes/client-node').V1Namespace>;
  serviceCIDRs: ResourceClient<import('@kubernetes/client-node').V1ServiceCIDR>;
}

export function resourceClients(kc: KubeConfig): ResourceClients {
  const core = kc.makeApiClient(CoreV1Api);
  const discovery = kc.makeApiClient(DiscoveryV1Api);
  const networking = kc.makeApiClient(NetworkingV1Api);
  const nsPath = (group: string, res: string) => (ns?: string) => (ns ? `${group}/namespaces/${encodeURIComponent(ns)}/${res}` : `${group}/${res}`);
  return {
    services: client('services', 'V1Service', nsPath('/api/v1', 'services'), (o) =>
      o.namespace ? core.listNamespacedService({ namespace: o.namespace, ...params(o) }) : core.listServiceForAllNamespaces(params(o)),
    ),
    endpointSlices: client('endpointslices', 'V1EndpointSlice', nsPath('/apis/discovery.k8s.io/v1', 'endpointslices'), (o) =>
      o.namespace
        ? discovery.listNamespacedEndpointSlice({ namespace: o.namespace, ...params(o) })
        : discovery.listEndpointSliceForAllNamespaces(params(o)),
    ),
    nodes: client('nodes', 'V1Node', () => '/api/v1/nodes', (o) => core.listNode(params(o))),
    namespaces: client('namespaces', 'V1Namespace', () => '/api/v1/namespaces', (o) => core.listNamespace(params(o))),
    serviceCIDRs: client('servicecidrs', 'V1ServiceCIDR', () => '/apis/networking.k8s.io/v1/servicecidrs', (o) => networking.listServiceCIDR(params(o))),
  };
}
