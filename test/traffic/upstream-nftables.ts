// Upstream kube-proxy's nftables mode, as the `nft -f` script of one of its full syncs, for the
// migration tests and the datapath bench: the objects and rules of pkg/proxy/nftables/proxier.go
// (setupNFTables and syncProxyRules, v1.35: base chains filter-prerouting-pre-dnat /
// filter-output-pre-dnat at -110, filter-input/forward/output at 0), for ClusterIP and NodePort
// Services under the Cluster policy, with or without ClientIP session affinity.
// Written from upstream's behaviour, not copied; chain names use upstream's hashAndTruncate (ours is
// the same function) so the table looks exactly as upstream's would.
import { hashAndTruncate } from '../../src/proxier/nftables/names';

export interface UpstreamService {
  namespace: string;
  name: string;
  portName: string;
  clusterIP: string;
  port: number;
  nodePort?: number;
  /** Endpoint IPs, all on targetPort; none: rejected, as upstream's no-endpoint maps do. */
  endpoints: string[];
  targetPort: number;
  /** ClientIP session affinity's timeout: a dynamic set per endpoint, as upstream. */
  affinitySeconds?: number;
}

export interface UpstreamOptions {
  family: 'ip' | 'ip6';
  clusterCIDR: string;
  serviceCIDR: string;
  /**
   * Addresses in upstream's nodeport-ips set (nodePortAddresses given), or 'all' for upstream's
   * default (nodePortAddresses unset): every local address but loopback, by `fib daddr type local`.
   */
  nodePortIPs: string[] | 'all';
  services: UpstreamService[];
}

/** Upstream's base chains: name, type, hook, priority (nftablesBaseChains, v1.35). */
const BASE_CHAINS: [string, string, string, number][] = [
  ['filter-prerouting-pre-dnat', 'filter', 'prerouting', -110],
  ['filter-output-pre-dnat', 'filter', 'output', -110],
  ['filter-forward', 'filter', 'forward', 0],
  ['filter-input', 'filter', 'input', 0],
  ['filter-output', 'filter', 'output', 0],
  ['nat-prerouting', 'nat', 'prerouting', -100],
  ['nat-output', 'nat', 'output', -100],
  ['nat-postrouting', 'nat', 'postrouting', 100],
];

/** Upstream's jumps from base chains (nftablesJumpChains, v1.35): from, condition, to. */
const JUMPS: [string, string, string][] = [
  ['filter-input', 'ct state new', 'nodeport-endpoints-check'],
  ['filter-input', 'ct state new', 'service-endpoints-check'],
  ['filter-forward', 'ct state new', 'service-endpoints-check'],
  ['filter-output', 'ct state new', 'service-endpoints-check'],
  ['filter-prerouting-pre-dnat', 'ct state new', 'firewall-check'],
  ['filter-output-pre-dnat', 'ct state new', 'firewall-check'],
  ['nat-output', '', 'services'],
  ['nat-prerouting', '', 'services'],
  ['nat-postrouting', '', 'masquerading'],
  ['filter-forward', 'ct state new', 'cluster-ips-check'],
  ['filter-output', 'ct state new', 'cluster-ips-check'],
];

const REGULAR_CHAINS = ['nodeport-endpoints-check', 'service-endpoints-check', 'firewall-check', 'services',
  'masquerading', 'cluster-ips-check', 'mark-for-masquerade', 'reject-chain'];

export function upstreamServiceChain(s: UpstreamService): string {
  return `service-${hashAndTruncate(`${s.namespace}/${s.name}/tcp/${s.portName}`)}`;
}

export function upstreamExternalChain(s: UpstreamService): string {
  return `external-${hashAndTruncate(`${s.namespace}/${s.name}/tcp/${s.portName}`)}`;
}

function endpointBase(s: UpstreamService, ip: string): string {
  return `${s.namespace}/${s.name}/tcp/${s.portName}__${ip.replaceAll(':', '.')}/${s.targetPort}`;
}

export function upstreamEndpointChain(s: UpstreamService, ip: string): string {
  return `endpoint-${hashAndTruncate(endpointBase(s, ip))}`;
}

/** The endpoint's affinity set (servicePortEndpointAffinityNamePrefix + the endpoint chain's hash). */
export function upstreamAffinitySet(s: UpstreamService, ip: string): string {
  return `affinity-${hashAndTruncate(endpointBase(s, ip))}`;
}

/**
 * The transaction of upstream's first full sync after it starts: the base chains added and deleted
 * once (so that their properties can change), every chain added and flushed, the sets and maps added
 * and flushed, then the rules and elements. Loaded with `nft -f`, like upstream's knftables does.
 */
export function upstreamSyncScript(o: UpstreamOptions): string {
  const t = `${o.family} kube-proxy`;
  const ipX = o.family;
  const addr = o.family === 'ip' ? 'ipv4_addr' : 'ipv6_addr';
  const out = [`add table ${t} { comment "rules for kube-proxy" ; }`];
  for (const [name] of BASE_CHAINS) out.push(`add chain ${t} ${name}`, `delete chain ${t} ${name}`);
  for (const [name, type, hook, prio] of BASE_CHAINS) {
    out.push(`add chain ${t} ${name} { type ${type} hook ${hook} priority ${prio} ; }`, `flush chain ${t} ${name}`);
  }
  for (const name of REGULAR_CHAINS) out.push(`add chain ${t} ${name}`, `flush chain ${t} ${name}`);
  for (const [from, cond, to] of JUMPS) out.push(`add rule ${t} ${from} ${cond} jump ${to}`.replace('  ', ' '));
  out.push(
    `add rule ${t} mark-for-masquerade mark set mark or 0x4000`,
    `add rule ${t} masquerading mark and 0x4000 == 0 return`,
    `add rule ${t} masquerading mark set mark xor 0x4000`,
    `add rule ${t} masquerading masquerade fully-random`,
    `add set ${t} cluster-ips { type ${addr} ; comment "Active ClusterIPs" ; }`,
    `add rule ${t} cluster-ips-check ${ipX} daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"`,
    `add rule ${t} cluster-ips-check ${ipX} daddr { ${o.serviceCIDR} } drop comment "Drop traffic to unallocated ClusterIPs"`,
    `add set ${t} nodeport-ips { type ${addr} ; comment "IPs that accept NodePort traffic" ; }`,
    `flush set ${t} nodeport-ips`,
    ...(o.nodePortIPs === 'all' ? [] : o.nodePortIPs).map((ip) => `add element ${t} nodeport-ips { ${ip} }`),
    `add map ${t} no-endpoint-services { type ${addr} . inet_proto . inet_service : verdict ; }`,
    `add map ${t} no-endpoint-nodeports { type inet_proto . inet_service : verdict ; }`,
    `add rule ${t} reject-chain reject`,
    `add rule ${t} service-endpoints-check ${ipX} daddr . meta l4proto . th dport vmap @no-endpoint-services`,
    `add rule ${t} nodeport-endpoints-check ${nodePortMatch(o, false)} meta l4proto . th dport vmap @no-endpoint-nodeports`,
    `add map ${t} firewall-ips { type ${addr} . inet_proto . inet_service : verdict ; }`,
    `add rule ${t} firewall-check ${ipX} daddr . meta l4proto . th dport vmap @firewall-ips`,
    `add map ${t} service-ips { type ${addr} . inet_proto . inet_service : verdict ; }`,
    `add map ${t} service-nodeports { type inet_proto . inet_service : verdict ; }`,
    `add rule ${t} services ${ipX} daddr . meta l4proto . th dport vmap @service-ips`,
    `add rule ${t} services ${nodePortMatch(o, true)} meta l4proto . th dport vmap @service-nodeports`,
  );
  for (const set of ['cluster-ips', 'service-ips', 'firewall-ips', 'no-endpoint-services', 'no-endpoint-nodeports', 'service-nodeports']) {
    out.push(`flush ${set === 'cluster-ips' ? 'set' : 'map'} ${t} ${set}`);
  }
  for (const s of o.services) out.push(...serviceLines(t, ipX, o.clusterCIDR, s));
  return out.join('\n') + '\n';
}

/** Which destinations are NodePort addresses: the set, or (nodePortAddresses unset) local non-loopback ones. */
function nodePortMatch(o: UpstreamOptions, inServices: boolean): string {
  if (o.nodePortIPs !== 'all') return `${o.family} daddr @nodeport-ips`;
  const noLocalhost = o.family === 'ip' ? 'ip daddr != 127.0.0.0/8' : 'ip6 daddr != ::1';
  return inServices ? `fib daddr type local ${noLocalhost}` : noLocalhost;
}

/** Without endpoints: no chain, the ClusterIP (and NodePort) rejected through the no-endpoint verdict maps. */
function noEndpointLines(t: string, s: UpstreamService): string[] {
  const out = [`add element ${t} cluster-ips { ${s.clusterIP} }`,
    `add element ${t} no-endpoint-services { ${s.clusterIP} . tcp . ${s.port} : goto reject-chain }`];
  if (s.nodePort) out.push(`add element ${t} no-endpoint-nodeports { tcp . ${s.nodePort} : goto reject-chain }`);
  return out;
}

/** One ServicePort under the Cluster policy (syncProxyRules, writeServiceToEndpointRules). */
function serviceLines(t: string, ipX: string, clusterCIDR: string, s: UpstreamService): string[] {
  if (s.endpoints.length === 0) return noEndpointLines(t, s);
  const svc = upstreamServiceChain(s);
  const eps = s.endpoints.map((ip) => ({ ip, chain: upstreamEndpointChain(s, ip), affinity: upstreamAffinitySet(s, ip) }));
  const affinity = s.affinitySeconds !== undefined;
  const addr = ipX === 'ip' ? 'ipv4_addr' : 'ipv6_addr';
  const out: string[] = [];
  for (const e of eps) out.push(`add chain ${t} ${e.chain}`, `flush chain ${t} ${e.chain}`);
  if (affinity) {
    for (const e of eps) out.push(`add set ${t} ${e.affinity} { type ${addr} ; flags dynamic,timeout ; timeout ${s.affinitySeconds}s ; }`);
  }
  out.push(`add chain ${t} ${svc}`, `flush chain ${t} ${svc}`);
  out.push(`add element ${t} cluster-ips { ${s.clusterIP} }`);
  out.push(`add element ${t} service-ips { ${s.clusterIP} . tcp . ${s.port} : goto ${svc} }`);
  out.push(`add rule ${t} ${svc} ${ipX} daddr ${s.clusterIP} ${ipX} saddr != ${clusterCIDR} jump mark-for-masquerade`);
  if (affinity) for (const e of eps) out.push(`add rule ${t} ${svc} ${ipX} saddr @${e.affinity} goto ${e.chain}`);
  out.push(`add rule ${t} ${svc} numgen random mod ${eps.length} vmap { ${eps.map((e, i) => `${i} : goto ${e.chain}`).join(' , ')} }`);
  if (s.nodePort) {
    const ext = upstreamExternalChain(s);
    out.push(`add chain ${t} ${ext}`, `flush chain ${t} ${ext}`,
      `add rule ${t} ${ext} jump mark-for-masquerade`, `add rule ${t} ${ext} goto ${svc}`,
      `add element ${t} service-nodeports { tcp . ${s.nodePort} : goto ${ext} }`);
  }
  for (const e of eps) {
    const target = ipX === 'ip6' ? `[${e.ip}]:${s.targetPort}` : `${e.ip}:${s.targetPort}`;
    out.push(`add rule ${t} ${e.chain} ${ipX} saddr ${e.ip} jump mark-for-masquerade`);
    if (affinity) out.push(`add rule ${t} ${e.chain} update @${e.affinity} { ${ipX} saddr }`);
    out.push(`add rule ${t} ${e.chain} meta l4proto tcp dnat to ${target}`);
  }
  return out;
}
