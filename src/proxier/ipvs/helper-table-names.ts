// The names and set shapes of the IPVS mode's own nftables table, one per family
// (`ip kube-proxy-ipvs`, `ip6 kube-proxy-ipvs`). Each set stands for one or two of upstream's
// ipsets (docs/ipvs-helper-table.md maps them).
import type { SetSpec } from '../../native/txn/set-spec';

export type HelperFamily = 'ip' | 'ip6';
export const HELPER_FAMILIES: readonly HelperFamily[] = ['ip', 'ip6'];
export const HELPER_TABLE = 'kube-proxy-ipvs';

export const CHAIN = {
  natPrerouting: 'nat-prerouting',
  natOutput: 'nat-output',
  natPostrouting: 'nat-postrouting',
  filterInput: 'filter-input',
  filterForward: 'filter-forward',
  filterOutput: 'filter-output',
  services: 'services',
  markForMasquerade: 'mark-for-masquerade',
  masquerading: 'masquerading',
  firewallCheck: 'firewall-check',
  endpointsCheck: 'endpoints-check',
  ipvsFilter: 'ipvs-filter',
} as const;

export const SET = {
  /** ClusterIP . proto . port: KUBE-CLUSTER-IP. */
  clusterIPs: 'cluster-ips',
  /** External and LB IP . proto . port of Cluster-policy Services (masqueraded): KUBE-EXTERNAL-IP, KUBE-LOAD-BALANCER minus -LOCAL. */
  externalIPs: 'external-ips',
  /** Every address . proto . port a Service serves: KUBE-IPVS-FILTER's RETURN sets. */
  serviceIPs: 'service-ips',
  /** Addresses bound to kube-ipvs0: KUBE-IPVS-IPS. */
  ipvsIPs: 'ipvs-ips',
  /** KUBE-HEALTH-CHECK-NODE-PORT. */
  healthCheckPorts: 'health-check-ports',
  /** The node addresses NodePorts are served on. */
  nodePortIPs: 'nodeport-ips',
  /** proto . NodePort of Cluster-policy Services (masqueraded): KUBE-NODE-PORT-* minus -LOCAL-*. */
  nodePorts: 'nodeports',
  /** endpoint IP . proto . port . endpoint IP of local endpoints: KUBE-LOOP-BACK. */
  hairpin: 'hairpin',
  /** LB IP . proto . port of Services with loadBalancerSourceRanges: KUBE-LOAD-BALANCER-FW. */
  firewallIPs: 'firewall-ips',
  /** LB IP . proto . port . allowed source CIDR: KUBE-LOAD-BALANCER-SOURCE-CIDR and -SOURCE-IP. */
  firewallAllow: 'firewall-allow',
  noEndpointServices: 'no-endpoint-services',
  noEndpointNodePorts: 'no-endpoint-nodeports',
  noLocalEndpointServices: 'no-local-endpoint-services',
  noLocalEndpointNodePorts: 'no-local-endpoint-nodeports',
} as const;

export type SetName = typeof SET[keyof typeof SET];

function freeze(spec: SetSpec): SetSpec {
  Object.freeze(spec.key);
  return Object.freeze(spec);
}

function familySets(addr: 'ipv4_addr' | 'ipv6_addr'): ReadonlyMap<SetName, SetSpec> {
  const vip = (name: SetName, comment: string): SetSpec => freeze({ name, key: [addr, 'inet_proto', 'inet_service'], comment });
  const port = (name: SetName, comment: string): SetSpec => freeze({ name, key: ['inet_proto', 'inet_service'], comment });
  const specs: SetSpec[] = [
    vip(SET.clusterIPs, 'ClusterIP . protocol . port'),
    vip(SET.externalIPs, 'external and load-balancer IPs of Cluster-policy Services'),
    vip(SET.serviceIPs, 'every Service address . protocol . port'),
    freeze({ name: SET.ipvsIPs, key: [addr], comment: 'addresses bound to kube-ipvs0' }),
    freeze({ name: SET.healthCheckPorts, key: ['inet_service'], comment: 'health-check node ports' }),
    freeze({ name: SET.nodePortIPs, key: [addr], comment: 'addresses NodePorts are served on' }),
    port(SET.nodePorts, 'NodePorts of Cluster-policy Services'),
    freeze({ name: SET.hairpin, key: [addr, 'inet_proto', 'inet_service', addr], comment: 'local endpoint . protocol . port . endpoint' }),
    vip(SET.firewallIPs, 'load-balancer IPs with source ranges'),
    freeze({ name: SET.firewallAllow, key: [addr, 'inet_proto', 'inet_service', addr], interval: true, comment: 'load-balancer IP . protocol . port . allowed source' }),
    vip(SET.noEndpointServices, 'Service addresses without endpoints (reject)'),
    port(SET.noEndpointNodePorts, 'NodePorts without endpoints (reject)'),
    vip(SET.noLocalEndpointServices, 'Local-policy addresses without local endpoints (drop)'),
    port(SET.noLocalEndpointNodePorts, 'Local-policy NodePorts without local endpoints (drop)'),
  ];
  return new Map(specs.map((s) => [s.name as SetName, s]));
}

export const SET_SPECS: Readonly<Record<HelperFamily, ReadonlyMap<SetName, SetSpec>>> = {
  ip: familySets('ipv4_addr'),
  ip6: familySets('ipv6_addr'),
};
