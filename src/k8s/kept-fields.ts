// What the proxy keeps of each object it watches: every field something in src/ reads, nothing else
// (docs/watching.md, "What is kept of an object"). Adding a reader of another field means adding the
// field here; test/k8s/kept-fields.test.ts proves the model's output from a kept object equals its
// output from the whole one.
import type { KubernetesObject, V1ObjectMeta } from '@kubernetes/client-node';
import { date, fields, keys, list, type Keep, value } from './pick';
import { DISABLED_NAMESPACE_LABEL } from './selectors';

/**
 * The annotations read, and by whom. src/k8s may not import src/core, so the names are spelled here
 * again; the test checks they equal the model's constants.
 */
export const KEPT_ANNOTATIONS = {
  /** Service: the legacy form of spec.loadBalancerSourceRanges (core/service-conversion.ts). */
  loadBalancerSourceRanges: 'service.beta.kubernetes.io/load-balancer-source-ranges',
  /** EndpointSlice: network_programming_duration_seconds (core/endpoint-conversion.ts). */
  lastChangeTriggerTime: 'endpoints.kubernetes.io/last-change-trigger-time',
} as const;

/**
 * The labels read, and by whom. Not kept: `service.kubernetes.io/service-proxy-name` and
 * `service.kubernetes.io/headless`, which only the API server evaluates (selectors.ts).
 */
export const KEPT_LABELS = {
  /** EndpointSlice: the Service it belongs to (core/endpoint-conversion.ts). */
  serviceName: 'kubernetes.io/service-name',
  /** Namespace: not read (the API server selects on it), kept as the reason the object is watched. */
  namespaceOptOut: DISABLED_NAMESPACE_LABEL,
} as const;

/**
 * Members no resource's kept fields name, at any depth, and the bulk of what the API server sends:
 * a list page's bytes lose them before JSON.parse (drop-members.ts), and the shape check does not
 * look into them (a watch event's object still holds them). test/k8s/kept-fields.test.ts checks no
 * kept field has one of these names.
 */
export const UNREAD_MEMBERS: readonly string[] = ['managedFields', 'targetRef'];

/** The Reflector's own needs: the key, the version (update detection, merges). */
const identity = { name: value, namespace: value, resourceVersion: value };

/** core/service-conversion.ts reads all of these. */
export const SERVICE: Keep = fields({
  metadata: fields({
    ...identity,
    uid: value,
    creationTimestamp: date,
    annotations: keys(KEPT_ANNOTATIONS.loadBalancerSourceRanges),
  }),
  spec: fields({
    type: value,
    clusterIP: value,
    clusterIPs: value,
    ipFamilies: value,
    ports: list(fields({ name: value, protocol: value, port: value, nodePort: value })),
    externalIPs: value,
    loadBalancerSourceRanges: value,
    sessionAffinity: value,
    sessionAffinityConfig: fields({ clientIP: fields({ timeoutSeconds: value }) }),
    externalTrafficPolicy: value,
    internalTrafficPolicy: value,
    healthCheckNodePort: value,
    trafficDistribution: value,
  }),
  status: fields({ loadBalancer: fields({ ingress: list(fields({ ip: value, ipMode: value })) }) }),
});

/** core/endpoint-conversion.ts reads all of these. */
export const ENDPOINT_SLICE: Keep = fields({
  metadata: fields({
    ...identity,
    labels: keys(KEPT_LABELS.serviceName),
    annotations: keys(KEPT_ANNOTATIONS.lastChangeTriggerTime),
  }),
  addressType: value,
  ports: list(fields({ name: value, protocol: value, port: value })),
  endpoints: list(fields({
    addresses: value,
    conditions: fields({ ready: value, serving: value, terminating: value }),
    nodeName: value,
    zone: value,
    hints: fields({ forZones: list(fields({ name: value })), forNodes: list(fields({ name: value })) }),
  })),
});

/**
 * core/node-info.ts (addresses, pod CIDRs, labels) and health/health-reasons.ts (deletion, taints).
 * Every label: NodeInfo hands them all to the proxy modes (only the zone is read today), and this is
 * one object; what makes a Node big is its status (images, conditions) and managedFields.
 */
export const NODE: Keep = fields({
  metadata: fields({ ...identity, deletionTimestamp: date, labels: value }),
  spec: fields({ podCIDR: value, podCIDRs: value, taints: list(fields({ key: value })) }),
  status: fields({ addresses: list(fields({ type: value, address: value })) }),
});

/** cluster-watcher.ts reads the name only. */
export const NAMESPACE: Keep = fields({
  metadata: fields({ ...identity, labels: keys(KEPT_LABELS.namespaceOptOut) }),
});

/** service-cidrs.ts reads the name and the ranges. */
export const SERVICE_CIDR: Keep = fields({
  metadata: fields(identity),
  spec: fields({ cidrs: value }),
});

/**
 * What a Reflector's cache keeps of an object: name, namespace, resourceVersion and labels (already
 * only the kept ones). That is all the Reflector reads (keys, relist diffs, merges, `drop()`
 * predicates) and all an inferred delete needs (its receivers read the key and, for an EndpointSlice,
 * its Service's label). The model keeps its own parsed form of the rest: keeping the object too would
 * hold every Service and EndpointSlice twice. Typed as the object it stands for, which it is only as
 * far as a delete goes (sink.ts says so).
 */
export function cacheEntry<T extends KubernetesObject>(obj: T): T {
  const md = obj.metadata ?? {};
  const metadata: V1ObjectMeta = { name: md.name, resourceVersion: md.resourceVersion };
  if (md.namespace !== undefined) metadata.namespace = md.namespace;
  if (md.labels) metadata.labels = md.labels;
  return { metadata } as T;
}
