// The cluster the datapath bench programs into both rulesets: N Services whose endpoint counts take
// exactly D distinct values, and the few Services whose connections are timed, with endpoints on
// loopback addresses where the bench's servers answer. Plain data and pure functions.
import { CLUSTER_CIDR, intToIp4, ip4ToInt, syntheticCluster, type SynthService } from '../lib/cluster';
import type { UpstreamOptions, UpstreamService } from '../../test/traffic/upstream-nftables';

/** The synthetic cluster's endpoint port (bench/lib/cluster.ts), where the servers listen. */
export const ENDPOINT_PORT = 8080;
/** A local, non-loopback address in the namespace: NodePorts are reached on it. */
export const NODE_IP = '192.0.2.1';
export const SERVICE_CIDR = '10.96.0.0/12';
/** Endpoints of the Service with session affinity (its chain's rules, in both rulesets, scale with them). */
export const AFFINITY_ENDPOINTS = 4;
/** The timed Services' indexes: `last` and `nodePort` have D endpoints, `first` one; the affinity Service is the last one. */
export const TIMED = { last: 0, first: 1, nodePort: 2 } as const;
/** Above the generator's NodePorts (30000 + N/10) for any N the bench runs. */
export const TIMED_NODE_PORT = 32767;
/**
 * Each timed case DNATs to endpoints of its own (127.<block>.0.1, ...), as the connect bench gives
 * each measurement its own server port: after one case's 10,000 connections to 127.0.0.1:8080, a
 * later case DNATed to the same endpoint measured ~+250 µs per connection more than an identical
 * path before it, in both rulesets alike (D = 1, N = 1k, two runs); with endpoints of its own, not.
 * The cause is not pinned down (the connections' leftover TIME_WAIT sockets and conntrack entries
 * share the endpoint's side of the tuple).
 */
const BLOCKS = { last: 1, first: 2, nodePort: 3, affinity: 4 } as const;

/**
 * One Service in NO_ENDPOINTS_EVERY (past those whose counts make D) has no endpoint, as in real
 * clusters: both rulesets then hold elements in their no-endpoint sets and maps, which every
 * connection's checks look up (an empty set would flatter whichever ruleset looks it up more).
 */
export const NO_ENDPOINTS_EVERY = 100;

export function withoutEndpoints(index: number, distinct: number): boolean {
  return index >= Math.max(distinct, TIMED.nodePort + 1) && index % NO_ENDPOINTS_EVERY === NO_ENDPOINTS_EVERY / 2;
}

export interface DatapathCluster {
  services: number;
  distinct: number;
  cluster: SynthService[];
  /** The Service with session affinity (index services - 1). */
  affinity: SynthService;
  /** Endpoints in the whole cluster: upstream's endpoint chains. */
  endpoints: number;
}

/** 127.b.0.1, 127.b.0.2, ..., 127.b.1.0, ...: n loopback endpoint addresses (127/8 is all on lo). */
export function loopbacks(block: number, n: number): string[] {
  if (n > 65_534) throw new RangeError(`at most 65534 loopback endpoints per block, got ${n}`);
  const base = ip4ToInt(`127.${block}.0.0`);
  return Array.from({ length: n }, (_, j) => intToIp4(base + j + 1));
}

/**
 * Service 0 has D endpoints (its select rule is last in ours); Services 1..D-1 have
 * 1..D-1 endpoints (so the counts 1..D all occur, Service 1's rule first); the rest have 1 to 4
 * (fewer if D < 4) so that the cluster stays as small as D allows: D(D+1)/2 endpoints at least.
 */
export function endpointCount(index: number, distinct: number): number {
  if (index === TIMED.last) return distinct;
  if (index < distinct) return index;
  return 1 + (index % Math.min(distinct, 4));
}

export function datapathCluster(services: number, distinct: number): DatapathCluster {
  if (!Number.isInteger(distinct) || distinct < 1) throw new RangeError(`distinct endpoint counts must be a positive integer, got ${distinct}`);
  const least = Math.max(distinct, TIMED.nodePort + 1) + 1;
  if (services < least) throw new RangeError(`${distinct} distinct endpoint counts need at least ${least} Services, got ${services}`);
  const cluster = syntheticCluster({ services, endpointsPerService: distinct, nodePortShare: 0.1, endpointCount: (i) => endpointCount(i, distinct) });
  const on = (ips: string[]) => ips.map((ip) => ({ ip, port: ENDPOINT_PORT }));
  cluster.forEach((s, i) => { if (withoutEndpoints(i, distinct)) cluster[i] = { ...s, endpoints: [] }; });
  cluster[TIMED.last] = { ...cluster[TIMED.last], endpoints: on(loopbacks(BLOCKS.last, distinct)) };
  cluster[TIMED.first] = { ...cluster[TIMED.first], endpoints: on(loopbacks(BLOCKS.first, 1)) };
  // D endpoints too (D is a count in use already): its NodePort's select rule is the last one.
  cluster[TIMED.nodePort] = { ...cluster[TIMED.nodePort], nodePort: TIMED_NODE_PORT, endpoints: on(loopbacks(BLOCKS.nodePort, distinct)) };
  const a = services - 1;
  // No NodePort on it (the generator gives every 10th one): its connections are ClusterIP ones.
  cluster[a] = { ...cluster[a], nodePort: 0, affinity: true, endpoints: on(loopbacks(BLOCKS.affinity, AFFINITY_ENDPOINTS)) };
  const endpoints = cluster.reduce((sum, s) => sum + s.endpoints.length, 0);
  return { services, distinct, cluster, affinity: cluster[a], endpoints };
}

/** The affinity timeout the bench's Service objects carry (bench/pipeline/k8s-objects.ts). */
const AFFINITY_SECONDS = 10800;

/** The same cluster as upstream's proxier would see it (Cluster policies, NodePorts on every local address). */
export function upstreamOptions(c: DatapathCluster): UpstreamOptions {
  return {
    family: 'ip', clusterCIDR: CLUSTER_CIDR, serviceCIDR: SERVICE_CIDR, nodePortIPs: 'all',
    services: c.cluster.map((s): UpstreamService => ({
      namespace: s.namespace, name: s.name, portName: 'http', clusterIP: s.clusterIP, port: s.port,
      ...(s.nodePort ? { nodePort: s.nodePort } : {}),
      endpoints: s.endpoints.map((e) => e.ip), targetPort: ENDPOINT_PORT,
      ...(s.affinity ? { affinitySeconds: AFFINITY_SECONDS } : {}),
    })),
  };
}
