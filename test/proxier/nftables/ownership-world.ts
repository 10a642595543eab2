// A small random cluster for the address-ownership property test: Services whose ClusterIPs,
// external IPs, LoadBalancer IPs and NodePorts come from pools so small that claims collide on most
// steps, with session affinity, Local traffic policies and loadBalancerSourceRanges on some of
// them; their EndpointSlices, whose endpoints run on this node or another and are ready,
// terminating (serving or not) or not ready; and the random edits a sequence applies. Kept as plain data (not as
// V1 objects) so that the test's oracle reads what the API server would hold, never the model's
// ServicePorts. Seeded: the same seed gives the same sequence.
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';

export type Fam = 'IPv4' | 'IPv6';
export type Proto = 'TCP' | 'UDP';

export interface PortModel { name: string; protocol: Proto; port: number; nodePort: number; target: number }

export interface ServiceModel {
  name: string;
  /** Pod pool index: this Service's pods are 10.1.<pool+1>.x and fd00:10:1:<pool+1>::x (canonical text: no zero group). */
  pool: number;
  uid: string;
  /** metadata.creationTimestamp in whole seconds (its precision on the API server). */
  created: number;
  families: Fam[];
  clusterIPs: Partial<Record<Fam, string>>;
  ports: PortModel[];
  externalIPs: string[];
  ingress: { ip: string; ipMode?: 'VIP' | 'Proxy' }[];
  /** sessionAffinity ClientIP with this timeout; 0: None. */
  affinity: number;
  /** externalTrafficPolicy Local (written only where the API server accepts it: externally accessible Services). */
  externalLocal: boolean;
  internalLocal: boolean;
  /** spec.loadBalancerSourceRanges (written for type LoadBalancer only). */
  sourceRanges: string[];
}

/** An endpoint's conditions as the EndpointSlice controller writes them (KEP-1669). */
export type EndpointState = 'ready' | 'terminating-serving' | 'terminating' | 'not-ready';

export interface EndpointModel { ip: string; node: string; state: EndpointState }

export interface SliceModel { service: string; family: Fam; endpoints: EndpointModel[]; ports: { name: string; protocol: Proto; target: number }[] }

/** The proxy's node: endpoints whose nodeName is this one are local. */
export const THIS_NODE = 'node-a';


export const NAMES = ['s0', 's1', 's2', 's3', 's4', 's5'];
const CLUSTER_IPS: Record<Fam, string[]> = { IPv4: ['10.96.100.36', '10.96.100.37', '10.96.100.38'], IPv6: ['fd00:96::36', 'fd00:96::37', 'fd00:96::38'] };
/** External and LB addresses: mostly the ClusterIP pool itself, so they collide with ClusterIPs. */
const OUTSIDE = ['10.96.100.36', '10.96.100.37', '192.0.2.10', 'fd00:96::36', 'fd00:96::37', '2001:db8::10'];
const PORTS = [80, 81];
/** Source ranges of both families; the fake node has no IP in them (no LB IP is added as a source). */
// Nested pairs too: firewall-allow (an interval set) holds only the outer one.
const SOURCE_RANGES = ['203.0.113.0/24', '203.0.113.128/25', '198.51.100.0/24', '2001:db8:1::/48', '2001:db8:1:2::/64'];
const STATES: EndpointState[] = ['ready', 'ready', 'ready', 'ready', 'terminating-serving', 'terminating-serving', 'terminating-serving', 'terminating', 'not-ready', 'not-ready'];
const NODE_PORTS = [30080, 30081];
const BASE_SECONDS = 1_780_000_000;

export const familyOf = (ip: string): Fam => (ip.includes(':') ? 'IPv6' : 'IPv4');

export function podIP(pool: number, family: Fam, j: number): string {
  return family === 'IPv4' ? `10.1.${pool + 1}.${j}` : `fd00:10:1:${pool + 1}::${j}`;
}

export class World {
  readonly services = new Map<string, ServiceModel>();
  /** `${service}/${family}` -> slice. A slice may outlive its Service (and precede it). */
  readonly slices = new Map<string, SliceModel>();
  private uids = 0;

  constructor(readonly r: () => number) {}

  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)];
  }

  chance(p: number): boolean {
    return this.r() < p;
  }

  newService(name: string): ServiceModel {
    const families: Fam[] = this.pick([['IPv4'], ['IPv6'], ['IPv4', 'IPv6'], ['IPv6', 'IPv4']] as Fam[][]);
    const clusterIPs: Partial<Record<Fam, string>> = {};
    for (const f of families) clusterIPs[f] = this.pick(CLUSTER_IPS[f]);
    const count = this.chance(0.7) ? 1 : 2;
    const ports: PortModel[] = [];
    for (let i = 0; i < count; i++) {
      ports.push({ name: ['a', 'b'][i], protocol: this.pick(['TCP', 'UDP'] as Proto[]), port: this.pick(PORTS), nodePort: 0, target: 8080 + i });
    }
    const svc: ServiceModel = {
      name, pool: NAMES.indexOf(name), families, clusterIPs, ports, externalIPs: [], ingress: [],
      // A few seconds apart at most, so that ties (then the UID decides) are frequent.
      created: BASE_SECONDS + Math.floor(this.r() * 3),
      // Random, not increasing: the UID order must not follow the creation order.
      uid: `${Math.floor(this.r() * 0xffff).toString(16).padStart(4, '0')}-${++this.uids}`,
      affinity: 0, externalLocal: false, internalLocal: false, sourceRanges: [],
    };
    this.randomizeExposure(svc);
    this.randomizePolicies(svc, 1);
    return svc;
  }

  /** Session affinity, traffic policies and source ranges, each redrawn with probability `p`. */
  randomizePolicies(svc: ServiceModel, p: number): void {
    if (this.chance(p)) svc.affinity = this.chance(0.35) ? this.pick([60, 10800]) : 0;
    if (this.chance(p)) svc.externalLocal = this.chance(0.5);
    if (this.chance(p)) svc.internalLocal = this.chance(0.4);
    if (this.chance(p)) svc.sourceRanges = this.chance(0.75) ? [...new Set([this.pick(SOURCE_RANGES), this.pick(SOURCE_RANGES)])] : [];
  }

  /** New external IPs, LB ingress and NodePorts, now and then a new port (what an update of the Service changes). */
  randomizeExposure(svc: ServiceModel): void {
    for (const p of svc.ports) if (this.chance(0.15)) p.port = this.pick(PORTS);
    svc.externalIPs = this.chance(0.6) ? [...new Set([this.pick(OUTSIDE), ...(this.chance(0.3) ? [this.pick(OUTSIDE)] : [])])] : [];
    svc.ingress = this.chance(0.5)
      ? [{ ip: this.pick(OUTSIDE), ...(this.chance(0.8) ? { ipMode: 'VIP' as const } : this.chance(0.5) ? {} : { ipMode: 'Proxy' as const }) }]
      : [];
    for (const p of svc.ports) p.nodePort = this.chance(0.45) ? this.pick(NODE_PORTS) : 0;
  }

  /**
   * A random subset of the Service's pods of one family (0 to 6: past 4 goes through the count's
   * chain), each on this node or another, mostly ready, else terminating or not ready.
   */
  randomPods(svc: ServiceModel | undefined, name: string, family: Fam): EndpointModel[] {
    const pool = svc?.pool ?? NAMES.indexOf(name);
    const n = this.pick([0, 0, 1, 1, 1, 2, 2, 3, 5, 6]);
    const all = [1, 2, 3, 4, 5, 6, 7, 8].map((j) => podIP(pool, family, j));
    const out: EndpointModel[] = [];
    while (out.length < n) {
      const ip = this.pick(all);
      if (!out.some((e) => e.ip === ip)) out.push({ ip, node: this.chance(0.5) ? THIS_NODE : 'node-b', state: this.randomState() });
    }
    return out;
  }

  randomState(): EndpointState {
    return this.pick(STATES);
  }
}

export function sliceName(service: string, family: Fam): string {
  return `${service}-${family.toLowerCase()}`;
}

export function serviceType(m: ServiceModel): 'LoadBalancer' | 'NodePort' | 'ClusterIP' {
  return m.ingress.length > 0 ? 'LoadBalancer' : m.ports.some((p) => p.nodePort !== 0) ? 'NodePort' : 'ClusterIP';
}

/** Upstream's ExternallyAccessible: where the API server accepts an externalTrafficPolicy. */
export function externallyAccessible(m: ServiceModel): boolean {
  return serviceType(m) !== 'ClusterIP' || m.externalIPs.length > 0;
}

export function toV1Service(m: ServiceModel): V1Service {
  const type = serviceType(m);
  const clusterIPs = m.families.map((f) => m.clusterIPs[f]!);
  return {
    metadata: { namespace: 'ns', name: m.name, uid: m.uid, creationTimestamp: new Date(m.created * 1000) },
    spec: {
      type,
      clusterIP: clusterIPs[0],
      clusterIPs,
      ipFamilies: [...m.families],
      ipFamilyPolicy: m.families.length > 1 ? 'RequireDualStack' : 'SingleStack',
      ports: m.ports.map((p) => ({ name: p.name, protocol: p.protocol, port: p.port, targetPort: p.target, ...(p.nodePort ? { nodePort: p.nodePort } : {}) })),
      ...(m.externalIPs.length > 0 ? { externalIPs: [...m.externalIPs] } : {}),
      ...(m.affinity > 0 ? { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: m.affinity } } } : { sessionAffinity: 'None' }),
      ...(externallyAccessible(m) ? { externalTrafficPolicy: m.externalLocal ? 'Local' : 'Cluster' } : {}),
      internalTrafficPolicy: m.internalLocal ? 'Local' : 'Cluster',
      ...(type === 'LoadBalancer' && m.sourceRanges.length > 0 ? { loadBalancerSourceRanges: [...m.sourceRanges] } : {}),
    },
    status: { loadBalancer: { ingress: m.ingress.map((i) => ({ ...i })) } },
  };
}

export function toV1Slice(s: SliceModel): V1EndpointSlice {
  return {
    metadata: { namespace: 'ns', name: sliceName(s.service, s.family), labels: { 'kubernetes.io/service-name': s.service } },
    addressType: s.family,
    ports: s.ports.map((p) => ({ name: p.name, protocol: p.protocol, port: p.target })),
    endpoints: s.endpoints.map((e) => ({ addresses: [e.ip], nodeName: e.node, conditions: conditionsOf(e.state) })),
  };
}

export function conditionsOf(state: EndpointState): { ready: boolean; serving: boolean; terminating: boolean } {
  switch (state) {
    case 'ready': return { ready: true, serving: true, terminating: false };
    case 'terminating-serving': return { ready: false, serving: true, terminating: true };
    case 'terminating': return { ready: false, serving: false, terminating: true };
    case 'not-ready': return { ready: false, serving: false, terminating: false };
  }
}

/** An endpoint in a step log: `10.1.1.2@a~` (on node-a, terminating and serving). */
export function describeEndpoint(e: EndpointModel): string {
  const mark = { ready: '', 'terminating-serving': '~', terminating: '~x', 'not-ready': 'x' }[e.state];
  return `${e.ip}@${e.node === THIS_NODE ? 'here' : 'there'}${mark}`;
}
