// The synthetic cluster every bench uses: N Services x up to E endpoints, plain data. Addresses are
// laid out arithmetically so any N up to a few million gets unique, valid IPv4 addresses.
export interface SynthEndpoint { ip: string; port: number }
export interface SynthService {
  index: number;
  namespace: string;
  name: string;
  clusterIP: string;
  port: number;
  /** 0 when the Service has no NodePort. */
  nodePort: number;
  endpoints: SynthEndpoint[];
  /** What the realistic mix (ClusterSpec.mix) adds; absent in the plain cluster. */
  secondPort?: { port: number; targetPort: number; nodePort: number };
  /** A LoadBalancer Service's ingress IP (it has a NodePort too). */
  loadBalancerIP?: string;
  /** externalTrafficPolicy: Local; endpoint slot `localSlot` runs on the bench's node. */
  externalLocal?: boolean;
  localSlot?: number;
  /** sessionAffinity: ClientIP (upstream's per-Service chains). */
  affinity?: boolean;
}

export interface ClusterSpec {
  services: number;
  endpointsPerService: number;
  /** Share of Services with a NodePort, 0..1 (every round(1/share)-th Service). */
  nodePortShare: number;
  /** Endpoints of Service `index`, 1..endpointsPerService (which still spaces the addresses); default endpointsPerService. */
  endpointCount?: (index: number) => number;
  /**
   * A realistic mix instead of one plain TCP port each: a second port (https) on every 4th Service,
   * a LoadBalancer IP on every 20th (externalTrafficPolicy Local on every 40th, one endpoint on
   * this node), ClientIP session affinity on 5 in every 100 (AFFINITY_RESIDUES). NodePorts then
   * come two per Service.
   */
  mix?: boolean;
}

export const CLUSTER_CIDR = '10.128.0.0/9';
const SERVICE_BASE = ip4ToInt('10.96.0.0');
const POD_BASE = ip4ToInt('10.128.0.0');
const NODEPORT_BASE = 30000;
const LB_BASE = ip4ToInt('172.16.0.0');

export function ip4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

export function intToIp4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function hasNodePort(index: number, share: number): boolean {
  if (share <= 0) return false;
  return index % Math.max(1, Math.round(1 / share)) === 0;
}

/** Endpoint IPs of Service `index`, generation `gen` (a new generation = every pod replaced). */
export function endpointIp(index: number, slot: number, perService: number, gen = 0): string {
  return intToIp4(POD_BASE + 1 + gen * 262_144 + index * perService + slot);
}

function endpointCount(index: number, spec: ClusterSpec): number {
  const n = spec.endpointCount?.(index) ?? spec.endpointsPerService;
  if (!Number.isInteger(n) || n < 1 || n > spec.endpointsPerService) {
    throw new RangeError(`endpointCount(${index}) must be an integer in 1..${spec.endpointsPerService}, got ${n}`);
  }
  return n;
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * The mix's Services with ClientIP session affinity: index % 100 in this list, 5% of all, as in the
 * cluster of issue 32's reporter. None is a LoadBalancer (index % 20 === 0) or Local; with NodePorts
 * on every 10th Service, 50 has one (and two ports, as every affinity Service had when the mix put
 * affinity on index % 100 === 50 alone), 5, 26, 65 and 73 are ClusterIP only, 26 with a second port.
 */
export const AFFINITY_RESIDUES = [5, 26, 50, 65, 73];

/** The mix's extras for Service `index` (ClusterSpec.mix); `nodePort` of its first port, 0 for none. */
function mixOf(index: number, nodePort: number): Partial<SynthService> {
  const out: Partial<SynthService> = {};
  if (index % 4 === 2) out.secondPort = { port: 443, targetPort: 8443, nodePort: nodePort ? nodePort + 1 : 0 };
  if (index % 20 === 0) out.loadBalancerIP = intToIp4(LB_BASE + 1 + index / 20);
  if (index % 40 === 0) { out.externalLocal = true; out.localSlot = 0; }
  if (AFFINITY_RESIDUES.includes(index % 100)) out.affinity = true;
  return out;
}

export function syntheticService(index: number, spec: ClusterSpec): SynthService {
  const e = spec.endpointsPerService;
  // NodePorts past 32767 are outside the API server's default range, but the kernel does not care
  // and a 50k-Service bench needs 5,000 of them. With the mix, every LoadBalancer (each 20th) has one
  // too, and they come two apart (a second port may need one): index / gcd(period, 20) is unique.
  const period = spec.nodePortShare > 0 ? Math.max(1, Math.round(1 / spec.nodePortShare)) : 0;
  const lb = !!spec.mix && index % 20 === 0;
  const step = spec.mix ? gcd(period, 20) : period;
  const nodePort = hasNodePort(index, spec.nodePortShare) || lb
    ? NODEPORT_BASE + (spec.mix ? 2 : 1) * Math.floor(index / step)
    : 0;
  return {
    ...(spec.mix ? mixOf(index, nodePort) : {}),
    index,
    namespace: `ns-${index % 100}`,
    name: `svc-${index}`,
    clusterIP: intToIp4(SERVICE_BASE + 1 + index),
    port: 80,
    nodePort,
    endpoints: Array.from({ length: endpointCount(index, spec) }, (_, slot) => ({ ip: endpointIp(index, slot, e), port: 8080 })),
  };
}

export function syntheticCluster(spec: ClusterSpec): SynthService[] {
  if (!Number.isInteger(spec.services) || spec.services < 1) {
    throw new RangeError(`services must be a positive integer, got ${spec.services}`);
  }
  if (!Number.isInteger(spec.endpointsPerService) || spec.endpointsPerService < 1) {
    throw new RangeError(`endpointsPerService must be a positive integer, got ${spec.endpointsPerService}`);
  }
  return Array.from({ length: spec.services }, (_, i) => syntheticService(i, spec));
}
