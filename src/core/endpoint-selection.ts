// Which endpoints a ServicePort sends to from this node: upstream's CategorizeEndpoints
// (pkg/proxy/topology.go). Ready endpoints by default; serving-and-terminating ones when no
// endpoint is ready (KEP-1669), decided separately for the Cluster and the Local sets; topology
// hints narrow the Cluster set when they apply to this node.
import { EMPTY, keptFilter } from './compact';
import { endpointKey } from './keys';
import type { Endpoint, SelectedEndpoints, ServicePort } from './types';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';

export type TopologyMode = '' | 'PreferSameZone' | 'PreferSameNode';

/** Where this node sits, for topology: its name and its `topology.kubernetes.io/zone` label. */
export interface NodeTopology {
  nodeName: string;
  zone: string;
}

type PolicyFields = Pick<
  ServicePort,
  'nodePort' | 'externalIPs' | 'loadBalancerIPs' | 'externalPolicyLocal' | 'internalPolicyLocal' | 'key'
>;

export function externallyAccessible(sp: PolicyFields): boolean {
  return sp.nodePort !== 0 || sp.loadBalancerIPs.length > 0 || sp.externalIPs.length > 0;
}

/** Cluster endpoints are needed for Cluster internal policy, and for short-circuiting external traffic. */
export function usesClusterEndpoints(sp: PolicyFields): boolean {
  return !sp.internalPolicyLocal || externallyAccessible(sp);
}

export function usesLocalEndpoints(sp: PolicyFields): boolean {
  return sp.internalPolicyLocal || (sp.externalPolicyLocal && externallyAccessible(sp));
}

const isServingTerminating = (ep: Endpoint): boolean => ep.serving && ep.terminating;

/** No endpoint: one object for every ServicePort that has none (frozen: shared, never mutated). */
const NONE: SelectedEndpoints = Object.freeze({ cluster: EMPTY, local: EMPTY, allReachable: EMPTY, hasAny: false });

/**
 * Upstream's CategorizeEndpoints. `cluster` is empty when the ServicePort never uses Cluster
 * policy and `local` when it never uses Local policy (upstream returns nil for those). A list that
 * filters nothing out is `endpoints` itself (the model's list, replaced on change, never mutated),
 * so the common case (all ready, no topology) costs one small object (docs/memory.md).
 */
export function selectEndpoints(
  endpoints: readonly Endpoint[],
  sp: PolicyFields,
  node: NodeTopology,
): SelectedEndpoints {
  if (endpoints.length === 0) return NONE;
  const useCluster = usesClusterEndpoints(sp);
  const useLocal = usesLocalEndpoints(sp);
  let cluster: readonly Endpoint[] = EMPTY;
  let mode: TopologyMode = '';
  let hasAny = false;
  if (useCluster) {
    mode = topologyModeFromHints(endpoints, node);
    cluster = keptFilter(endpoints, (ep) => ep.ready && availableForTopology(ep, mode, node));
    // Topology was already abandoned if the node's zone had no ready endpoint, so an empty list
    // here means nothing is ready anywhere.
    if (cluster.length === 0) cluster = keptFilter(endpoints, isServingTerminating);
    hasAny = cluster.length > 0;
  }
  if (!useLocal) return { cluster, local: EMPTY, allReachable: cluster, hasAny };

  const local = localEndpoints(endpoints);
  hasAny ||= endpoints.some((ep) => ep.ready || isServingTerminating(ep));
  if (!useCluster) return { cluster: EMPTY, local: local.endpoints, allReachable: local.endpoints, hasAny };
  // With no topology and only ready local endpoints, cluster already contains every local endpoint.
  if (mode === '' && !local.servingTerminating) return { cluster, local: local.endpoints, allReachable: cluster, hasAny };
  return { cluster, local: local.endpoints, allReachable: union(cluster, local.endpoints), hasAny };
}

function localEndpoints(endpoints: readonly Endpoint[]): { endpoints: readonly Endpoint[]; servingTerminating: boolean } {
  const ready = keptFilter(endpoints, (ep) => ep.isLocal && ep.ready);
  if (ready.length > 0) return { endpoints: ready, servingTerminating: false };
  const fallback = keptFilter(endpoints, (ep) => ep.isLocal && isServingTerminating(ep));
  return { endpoints: fallback, servingTerminating: fallback.length > 0 };
}

function union(a: readonly Endpoint[], b: readonly Endpoint[]): readonly Endpoint[] {
  const seen = new Set(a.map((ep) => endpointKey(ep.ip, ep.port)));
  const extra = b.filter((ep) => !seen.has(endpointKey(ep.ip, ep.port)));
  return extra.length === 0 ? a : [...a, ...extra].slice();
}

/**
 * PreferSameNode when every ready endpoint has a node hint and one names this node; else
 * PreferSameZone when every ready endpoint has a zone hint and one names this node's zone; else
 * no topology. The EndpointSlice controller writes those hints for `trafficDistribution`
 * PreferClose/PreferSameZone (zones) and PreferSameNode (nodes and zones), and for the
 * topology-mode annotation; kube-proxy reads only the hints.
 */
export function topologyModeFromHints(endpoints: readonly Endpoint[], node: NodeTopology): TopologyMode {
  let anyReady = false;
  let allNode = true;
  let forNode = false;
  let allZone = true;
  let forZone = false;
  for (const ep of endpoints) {
    if (!ep.ready) continue;
    anyReady = true;
    if (!ep.nodeHints?.length) allNode = false;
    else if (ep.nodeHints.includes(node.nodeName)) forNode = true;
    if (!ep.zoneHints?.length) allZone = false;
    else if (ep.zoneHints.includes(node.zone)) forZone = true;
  }
  if (!anyReady) return '';
  if (allNode && forNode) return 'PreferSameNode';
  if (allZone && forZone && node.zone !== '') return 'PreferSameZone';
  return '';
}

function availableForTopology(ep: Endpoint, mode: TopologyMode, node: NodeTopology): boolean {
  if (mode === 'PreferSameNode') return ep.nodeHints?.includes(node.nodeName) ?? false;
  if (mode === 'PreferSameZone') return ep.zoneHints?.includes(node.zone) ?? false;
  return true;
}
