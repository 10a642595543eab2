// What one ServicePort needs programmed, decided once from its endpoints (compile-service.ts,
// affinity-chains.ts): which endpoint lists it uses, which addresses it has, what it serves.
import type { Endpoint, SelectedEndpoints, ServicePort } from '../../core/types';
import type { L4Proto } from '../../native';
import type { FamilyContext } from './context';
import type { KeyPart } from './desired';
import { ipFamilyOf } from './ip-util';

function sortedUnique(eps: readonly Endpoint[]): Endpoint[] {
  const seen = new Map<string, Endpoint>();
  for (const ep of eps) seen.set(`${ep.ip}|${ep.port}`, ep);
  return [...seen.values()].sort((a, b) => (a.ip === b.ip ? a.port - b.port : a.ip < b.ip ? -1 : 1));
}

export interface Plan {
  sp: ServicePort;
  proto: L4Proto;
  cluster: Endpoint[];
  local: Endpoint[];
  reachable: Endpoint[];
  hasEndpoints: boolean;
  hasInternal: boolean;
  hasExternal: boolean;
  externallyAccessible: boolean;
  usesClusterChain: boolean;
  usesLocalChain: boolean;
  /** False when another ServicePort owns this one's ClusterIP and port (core/address-ownership). */
  servesClusterIP: boolean;
}

export function plan(sp: ServicePort, eps: SelectedEndpoints | undefined): Plan {
  const externallyAccessible = sp.nodePort !== 0 || sp.externalIPs.length > 0 || sp.loadBalancerIPs.length > 0;
  const usesCluster = !sp.internalPolicyLocal || externallyAccessible;
  const usesLocal = sp.internalPolicyLocal || (sp.externalPolicyLocal && externallyAccessible);
  const cluster = usesCluster ? sortedUnique(eps?.cluster ?? []) : [];
  const local = usesLocal ? sortedUnique(eps?.local ?? []) : [];
  const hasEndpoints = (eps?.hasAny ?? false) || cluster.length > 0 || local.length > 0;
  return {
    sp, proto: sp.protocol.toLowerCase() as L4Proto, cluster, local,
    reachable: sortedUnique([...cluster, ...local]),
    hasEndpoints,
    hasInternal: (sp.internalPolicyLocal ? local : cluster).length > 0,
    hasExternal: (sp.externalPolicyLocal ? local : cluster).length > 0,
    externallyAccessible,
    usesClusterChain: cluster.length > 0,
    usesLocalChain: local.length > 0,
    servesClusterIP: sp.clusterIPRefused !== true,
  };
}

export const vip = (p: Plan, ip: string): KeyPart[] => [ip, p.proto, p.sp.port];

/**
 * The external and LB addresses dispatched on the external path. Its own ClusterIP listed again is
 * left out: that key is claimed once, as a ClusterIP (core/address-ownership), and served by the
 * ClusterIP path alone; both would write one key's endpoint slots and verdict with different values
 * (internalTrafficPolicy Local, affinity, more than 4 endpoints) and the external one could win.
 */
export function externalAddresses(p: Plan, ctx: FamilyContext): string[] {
  return [...new Set([...p.sp.externalIPs, ...p.sp.loadBalancerIPs].filter((ip) => ipFamilyOf(ip) === ctx.family && ip !== p.sp.clusterIP))];
}

