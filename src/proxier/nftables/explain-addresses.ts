// For `explain` (nftables mode): where one ServicePort is reachable from this node (ClusterIP,
// NodePort on the addresses nodePortAddresses accepts, external IPs, LoadBalancer IPs with their
// source ranges) and the policies in force, from the ServicePort and the family's context.
import type { Protocol, ServicePort } from '../../core/types';
import type { FamilyContext } from './context';
import type { ElementDef, KeyPart } from './desired';
import { cidrContains, ipFamilyOf, parseCidr } from './ip-util';
import { SET } from './names';

export type AddressKind = 'ClusterIP' | 'NodePort' | 'ExternalIP' | 'LoadBalancer';

export interface ReachableAddress {
  kind: AddressKind;
  /** The address; for a NodePort each node address that accepts it, '*' when they are not known. */
  ip: string;
  port: number;
  protocol: Protocol;
  /** NodePort: which addresses accept it (nodePortAddresses). */
  note?: string;
  /** LoadBalancer: the loadBalancerSourceRanges its firewall allows, when it has one. */
  sourceRanges?: string[];
}

export interface Policies {
  internalTrafficPolicy: 'Cluster' | 'Local';
  /** Absent when the ServicePort is not reachable from outside (no NodePort, external or LB IP). */
  externalTrafficPolicy?: 'Cluster' | 'Local';
  /** ClientIP session affinity: per-Service chains and the shared `affinity` set. */
  affinityTimeoutSeconds?: number;
  healthCheckNodePort?: number;
  trafficDistribution?: string;
  masqueradeAll: boolean;
  /** How a pod on this node is told apart (detect-local), or 'none'. */
  detectLocal: string;
}

/** A pod on this node, or a client outside the cluster whose packets reach this node. */
export function policiesOf(sp: ServicePort, ctx: FamilyContext): Policies {
  const external = sp.nodePort !== 0 || sp.externalIPs.length > 0 || sp.loadBalancerIPs.length > 0;
  const p: Policies = {
    internalTrafficPolicy: sp.internalPolicyLocal ? 'Local' : 'Cluster',
    masqueradeAll: ctx.masqueradeAll,
    detectLocal: detectLocalText(ctx),
  };
  if (external) p.externalTrafficPolicy = sp.externalPolicyLocal ? 'Local' : 'Cluster';
  if (sp.affinityTimeoutSeconds > 0) p.affinityTimeoutSeconds = sp.affinityTimeoutSeconds;
  if (sp.healthCheckNodePort > 0) p.healthCheckNodePort = sp.healthCheckNodePort;
  if (sp.trafficDistribution) p.trafficDistribution = sp.trafficDistribution;
  return p;
}

function detectLocalText(ctx: FamilyContext): string {
  const d = ctx.detector;
  switch (d.kind) {
    case 'none': return 'none';
    case 'cidr': return `source in ${d.cidr}`;
    case 'iifname': return `input interface ${d.name}`;
    case 'iifnamePrefix': return `input interface ${d.prefix}*`;
  }
}

const isLoopback = (ip: string): boolean => ip.startsWith('127.') || ip === '::1';

export function addressesOf(sp: ServicePort, ctx: FamilyContext, local: readonly string[] | undefined, elements: readonly ElementDef[]): ReachableAddress[] {
  const proto = sp.protocol;
  const ofFamily = (ips: readonly string[]) => [...new Set(ips.filter((ip) => ipFamilyOf(ip) === ctx.family))];
  // A ClusterIP another ServicePort owns is not reachable through this one (core/address-ownership).
  const out: ReachableAddress[] = sp.clusterIPRefused ? [] : [{ kind: 'ClusterIP', ip: sp.clusterIP, port: sp.port, protocol: proto }];
  if (sp.nodePort !== 0) {
    const note = ctx.nodePorts.kind === 'all'
      ? `every local ${ctx.family === 'ip' ? 'IPv4' : 'IPv6'} address but loopback`
      : `local addresses in ${ctx.nodePorts.cidrs.join(', ')} (nodePortAddresses)`;
    const accepted = ofFamily(local ?? []).filter((ip) => !isLoopback(ip) && acceptsNodePort(ctx, ip));
    for (const ip of local === undefined ? ['*'] : accepted) out.push({ kind: 'NodePort', ip, port: sp.nodePort, protocol: proto, note });
    if (local !== undefined && accepted.length === 0) out.push({ kind: 'NodePort', ip: '*', port: sp.nodePort, protocol: proto, note: `${note}: none on this node` });
  }
  for (const ip of ofFamily(sp.externalIPs)) out.push({ kind: 'ExternalIP', ip, port: sp.port, protocol: proto });
  const fw = elements.filter((e) => e.set === SET.firewallIPs);
  const ranges = sp.loadBalancerSourceRanges.filter((r) => parseCidr(r)?.family === ctx.family);
  for (const ip of ofFamily(sp.loadBalancerIPs)) {
    const a: ReachableAddress = { kind: 'LoadBalancer', ip, port: sp.port, protocol: proto };
    if (fw.some((e) => e.key[0] === ip)) a.sourceRanges = ranges;
    out.push(a);
  }
  return out;
}

function acceptsNodePort(ctx: FamilyContext, ip: string): boolean {
  if (ctx.nodePorts.kind === 'all') return true;
  return ctx.nodePorts.cidrs.some((c) => {
    const p = parseCidr(c);
    return p !== null && cidrContains(p, ip);
  });
}

export interface Destination {
  kind: AddressKind;
  ip: string;
  port: number;
  /** Set lookups' key: address . proto . port, or proto . port for a NodePort. */
  key: KeyPart[];
}

/** One destination per address, and one for a Service's NodePort (every accepting address behaves alike). */
export function destinations(addresses: readonly ReachableAddress[]): Destination[] {
  const out: Destination[] = [];
  for (const a of addresses) {
    const proto = a.protocol.toLowerCase();
    if (a.kind === 'NodePort') {
      if (!out.some((d) => d.kind === 'NodePort')) out.push({ kind: a.kind, ip: a.ip, port: a.port, key: [proto, a.port] });
    } else {
      out.push({ kind: a.kind, ip: a.ip, port: a.port, key: [a.ip, proto, a.port] });
    }
  }
  return out;
}

