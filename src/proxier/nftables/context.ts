// Everything the compiler needs to know about one IP family besides the Services themselves.
// Built from the proxier's options and the snapshot's node; a change in it means a full sync.
import type { NodeInfo } from '../../core/types';
import type { NftFamily } from './desired';
import { cidrFamily, detectorKey, resolveDetector, type LocalDetectorOptions, type ResolvedDetector } from '../../policy/local-detector';
import { cidrContains, ipFamilyOf, normalizeCidr, parseCidr } from './ip-util';

export type NodePortMatch = { kind: 'all' } | { kind: 'cidrs'; cidrs: string[] };

export interface FamilyContext {
  family: NftFamily;
  masqueradeMark: number;
  masqueradeAll: boolean;
  detector: ResolvedDetector;
  nodePorts: NodePortMatch;
  /** This node's IPs of this family (loadBalancerSourceRanges that contain the node). */
  nodeIPs: string[];
  /** Service CIDRs of this family: traffic to unallocated ClusterIPs in them is dropped. */
  serviceCIDRs: string[];
  /** The most entries the shared session-affinity set holds (see docs/nftables-ruleset.md). */
  affinitySetSize: number;
  /** Drop forwarded packets conntrack finds INVALID (upstream does unless nf_conntrack_tcp_be_liberal is set). */
  dropInvalid: boolean;
}

export interface ContextInputs {
  masqueradeBit: number;
  masqueradeAll: boolean;
  localDetector: LocalDetectorOptions;
  nodePortAddresses: string[];
  nodeIPs: string[];
  serviceCIDRs: string[];
  affinitySetSize?: number;
  /** nf_conntrack_tcp_be_liberal was set when the proxy started: no INVALID drop rule. */
  conntrackTCPLiberal?: boolean;
}

/**
 * Clients can create affinity entries at will (one per client address, Service and endpoint), so
 * the set is bounded. A full set makes the `update` rule stop without adding, and the connection
 * is load-balanced as if the Service had no affinity until entries time out (nothing is dropped).
 */
export const DEFAULT_AFFINITY_SET_SIZE = 262_144;

/** Upstream leaves a loopback node IP (its fallback when the Node has none) out of `primary`. */
function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1';
}

function hostCidr(ip: string): string {
  return ip.includes(':') ? `${ip}/128` : `${ip}/32`;
}

/**
 * Upstream's NewNodePortAddresses (pkg/proxy/util/nodeport_addresses.go) per family: the family's CIDRs,
 * and when there are none (an empty list, CIDRs of the other family only, or `primary` on a node without
 * an IP of this family) every local address of the family, as upstream's zero CIDR. `primary` is the
 * node's IP of the family, as upstream's server.go rewrites it.
 */
function nodePortMatch(list: readonly string[], family: NftFamily, nodeIPs: readonly string[]): NodePortMatch {
  const cidrs = new Set<string>();
  for (const entry of list) {
    if (entry === 'primary') {
      for (const ip of nodeIPs) if (ipFamilyOf(ip) === family && !isLoopback(ip)) cidrs.add(hostCidr(ip));
    } else if (cidrFamily(entry) === family) {
      const n = normalizeCidr(entry);
      if (n) cidrs.add(n);
    }
  }
  if (cidrs.size === 0) return { kind: 'all' };
  return { kind: 'cidrs', cidrs: withoutNested([...cidrs]).sort() };
}

/** An interval set refuses overlapping entries; CIDRs overlap only by nesting, so keep the outer ones. */
function withoutNested(cidrs: string[]): string[] {
  const parsed = cidrs.map((c) => ({ c, p: parseCidr(c)! }));
  return parsed.filter(({ c, p }) => !parsed.some((o) => o.c !== c && o.p.bits < p.bits && cidrContains(o.p, c.split('/')[0])))
    .map(({ c }) => c);
}

/** What a context reads of the Node: a cache of contexts compares exactly these (context-cache.ts). */
export type ContextNode = Pick<NodeInfo, 'ips' | 'podCIDRs'>;

export function buildContext(inputs: ContextInputs, family: NftFamily, node: ContextNode): FamilyContext {
  const nodeIPs = (inputs.nodeIPs.length > 0 ? inputs.nodeIPs : node.ips).filter((ip) => ipFamilyOf(ip) === family);
  return {
    family,
    masqueradeMark: 2 ** inputs.masqueradeBit,
    masqueradeAll: inputs.masqueradeAll,
    detector: resolveDetector(inputs.localDetector, family, node.podCIDRs),
    nodePorts: nodePortMatch(inputs.nodePortAddresses, family, nodeIPs),
    nodeIPs,
    // From the API server (ServiceCIDR objects): anything unparsable is left out, not programmed.
    serviceCIDRs: [...new Set(inputs.serviceCIDRs.map((c) => normalizeCidr(c)).filter((c): c is string => c !== null && cidrFamily(c) === family))],
    affinitySetSize: inputs.affinitySetSize ?? DEFAULT_AFFINITY_SET_SIZE,
    dropInvalid: inputs.conntrackTCPLiberal !== true,
  };
}

export function contextKey(ctx: FamilyContext): string {
  return JSON.stringify({ ...ctx, detector: detectorKey(ctx.detector) });
}
