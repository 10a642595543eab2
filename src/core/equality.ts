// Structural equality for model objects: how the trackers tell a real change from a no-op.
import type { Endpoint, ServicePort } from './types';

function sameList<T>(a: readonly T[] | undefined, b: readonly T[] | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((v, i) => v === b[i]);
}

export function servicePortEqual(a: ServicePort, b: ServicePort): boolean {
  return (
    a.key === b.key &&
    a.clusterIP === b.clusterIP &&
    a.port === b.port &&
    a.nodePort === b.nodePort &&
    a.affinityTimeoutSeconds === b.affinityTimeoutSeconds &&
    a.externalPolicyLocal === b.externalPolicyLocal &&
    a.internalPolicyLocal === b.internalPolicyLocal &&
    a.healthCheckNodePort === b.healthCheckNodePort &&
    a.trafficDistribution === b.trafficDistribution &&
    a.created === b.created &&
    a.uid === b.uid &&
    a.clusterIPRefused === b.clusterIPRefused &&
    sameList(a.externalIPs, b.externalIPs) &&
    sameList(a.loadBalancerIPs, b.loadBalancerIPs) &&
    sameList(a.loadBalancerSourceRanges, b.loadBalancerSourceRanges)
  );
}

export function endpointEqual(a: Endpoint, b: Endpoint): boolean {
  return (
    a.ip === b.ip &&
    a.port === b.port &&
    a.ready === b.ready &&
    a.serving === b.serving &&
    a.terminating === b.terminating &&
    a.isLocal === b.isLocal &&
    a.nodeName === b.nodeName &&
    a.zone === b.zone &&
    sameList(a.zoneHints, b.zoneHints) &&
    sameList(a.nodeHints, b.nodeHints)
  );
}

export function endpointListEqual(a: readonly Endpoint[] | undefined, b: readonly Endpoint[] | undefined): boolean {
  if (a === b) return true;
  if ((a?.length ?? 0) !== (b?.length ?? 0)) return false;
  if (!a || !b) return true;
  return a.every((ep, i) => endpointEqual(ep, b[i]));
}

/**
 * Whether `wanted` is exactly what `applied` holds under `keys` (one Service's entries, as the
 * trackers record them), compared with `equal`.
 */
export function sameAsApplied<V>(wanted: ReadonlyMap<string, V>, keys: readonly string[], applied: ReadonlyMap<string, V>, equal: (a: V, b: V) => boolean): boolean {
  if (wanted.size !== keys.length) return false;
  for (const [key, v] of wanted) {
    const had = keys.includes(key) ? applied.get(key) : undefined;
    if (had === undefined || !equal(v, had)) return false;
  }
  return true;
}
