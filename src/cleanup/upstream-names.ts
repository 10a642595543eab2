// What upstream kube-proxy's iptables and IPVS modes (v1.34/v1.35) leave in the kernel, by name:
// the chains --cleanup removes from the ip/ip6 tables nat, filter and mangle (iptables-nft keeps
// them there), and the IPVS mode's ipsets. Kubelet's chains (KUBE-KUBELET-CANARY, filter's
// KUBE-FIREWALL, KUBE-MARK-DROP) are not listed: kubelet owns them. Sources, upstream:
// pkg/proxy/iptables/proxier.go (iptablesJumpChains, CleanupLeftovers, isServiceChainName),
// pkg/proxy/ipvs/proxier.go (iptablesCleanupChains, ipsetInfo, cleanupLeftovers), pkg/proxy/ipvs/ipset.go
// (NewIPSet: "KUBE-" becomes "KUBE-6-" for IPv6, cut to 31 characters).

export const UPSTREAM_TABLES = ['nat', 'filter', 'mangle'] as const;
export type UpstreamTable = typeof UPSTREAM_TABLES[number];

const CANARY = 'KUBE-PROXY-CANARY';

/** Fixed chain names per table: both modes' (a node ran one or the other, or both over time). */
const CHAINS: Record<UpstreamTable, ReadonlySet<string>> = {
  nat: new Set([
    'KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ', CANARY,
    // IPVS mode; nat's KUBE-FIREWALL is the IPVS mode's of v1.12-v1.26 (kubelet's is in filter)
    'KUBE-NODE-PORT', 'KUBE-LOAD-BALANCER', 'KUBE-FIREWALL',
  ]),
  filter: new Set([
    'KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-FORWARD', 'KUBE-NODEPORTS', 'KUBE-PROXY-FIREWALL', CANARY,
    // IPVS mode
    'KUBE-NODE-PORT', 'KUBE-SOURCE-RANGES-FIREWALL', 'KUBE-IPVS-FILTER', 'KUBE-IPVS-OUT-FILTER',
  ]),
  mangle: new Set([CANARY]),
};

/** The iptables mode's per-Service and per-endpoint chains (nat only); KUBE-XLB- is pre-v1.24's KUBE-SVL-. */
const SERVICE_CHAIN_PREFIXES = ['KUBE-SVC-', 'KUBE-SVL-', 'KUBE-EXT-', 'KUBE-FW-', 'KUBE-SEP-', 'KUBE-XLB-'];

/** Whether upstream kube-proxy created a chain of this name in this table. */
export function isUpstreamChain(table: string, chain: string): boolean {
  const fixed = CHAINS[table as UpstreamTable];
  if (!fixed) return false;
  if (fixed.has(chain)) return true;
  return table === 'nat' && SERVICE_CHAIN_PREFIXES.some((p) => chain.startsWith(p) && chain.length > p.length);
}

const IPV4_IPSETS = [
  'KUBE-LOOP-BACK', 'KUBE-CLUSTER-IP', 'KUBE-EXTERNAL-IP', 'KUBE-EXTERNAL-IP-LOCAL',
  'KUBE-LOAD-BALANCER', 'KUBE-LOAD-BALANCER-FW', 'KUBE-LOAD-BALANCER-LOCAL',
  'KUBE-LOAD-BALANCER-SOURCE-IP', 'KUBE-LOAD-BALANCER-SOURCE-CIDR',
  'KUBE-NODE-PORT-TCP', 'KUBE-NODE-PORT-LOCAL-TCP', 'KUBE-NODE-PORT-UDP', 'KUBE-NODE-PORT-LOCAL-UDP',
  'KUBE-NODE-PORT-SCTP-HASH', 'KUBE-NODE-PORT-LOCAL-SCTP-HASH', 'KUBE-HEALTH-CHECK-NODE-PORT', 'KUBE-IPVS-IPS',
];

/** The IPVS mode's ipsets, IPv4 then IPv6 names (upstream's own cleanup tries the IPv4 names only). */
export const UPSTREAM_IPSETS: readonly string[] = [
  ...IPV4_IPSETS,
  ...IPV4_IPSETS.map((n) => n.replace('KUBE-', 'KUBE-6-').slice(0, 31)),
];
