// What one ServicePort needs of IPVS: its virtual services (one per ClusterIP, externalIP,
// LoadBalancer IP and, with a NodePort, per node IP that serves NodePorts), each with its real
// servers, and the addresses to bind to kube-ipvs0. The snapshot's ServicePort already lacks the
// keys another ServicePort owns (core/address-ownership), and a refused ClusterIP is skipped. Pure: the same input always gives the same
// output, in the same order.
import type { Endpoint, SelectedEndpoints, ServicePort } from '../../core/types';
import { IPVS_SVC_F_PERSISTENT, type IpvsDestination, type IpvsService } from '../../native/ipvs/ipvs-types';
import { canonicalIP, familyOfIP, ipvsFamily, vsKey } from './addr';

/** IP_VS_SVC_F_SCHED2: with `mh`, hash the source port too (upstream's FlagSourceHash). */
export const IPVS_SVC_F_SCHED_MH_PORT = 0x0010;

export interface DesiredVS {
  key: string;
  service: IpvsService;
  dests: readonly IpvsDestination[];
  /** Made for a NodePort on a node address: an address's own Service comes first (ownership.ts). */
  viaNodePort: boolean;
}

export interface DesiredServicePort {
  key: string;
  /** By virtual-service key, in the order built. */
  services: ReadonlyMap<string, DesiredVS>;
  /** Addresses this ServicePort binds to kube-ipvs0. */
  bind: readonly string[];
  /** Addresses left out because they are in excludeCIDRs (or are not IPs), for the log. */
  skipped: readonly string[];
}

export interface DesiredContext {
  /** The scheduler to use ('' already replaced by rr). */
  scheduler: string;
  /** Node IPs that serve NodePorts, both families. */
  nodePortIPs: readonly string[];
  /** Addresses on links other than kube-ipvs0: an externalIP or LB IP among them is not bound. */
  localAddresses: ReadonlySet<string>;
  excluded(ip: string): boolean;
}

/** Upstream's syncEndpoint: a Local policy uses the local endpoints, or the Cluster ones when there are none. */
function endpointsFor(policyLocal: boolean, eps: SelectedEndpoints | undefined): readonly Endpoint[] {
  if (!eps) return [];
  if (policyLocal && eps.local.length > 0) return eps.local;
  return eps.cluster;
}

function dests(endpoints: readonly Endpoint[], sp: ServicePort): IpvsDestination[] {
  const out = new Map<string, IpvsDestination>();
  const family = ipvsFamily(sp.family);
  for (const ep of endpoints) {
    const address = canonicalIP(ep.ip);
    if (!address || familyOfIP(address) !== sp.family) continue;
    out.set(`${address} ${ep.port}`, { address, port: ep.port, family, weight: 1, forward: 'masq' });
  }
  return [...out.values()];
}

function serviceAt(sp: ServicePort, address: string, port: number, ctx: DesiredContext): IpvsService {
  const family = ipvsFamily(sp.family);
  let flags = sp.affinityTimeoutSeconds > 0 ? IPVS_SVC_F_PERSISTENT : 0;
  if (ctx.scheduler === 'mh') flags |= IPVS_SVC_F_SCHED_MH_PORT;
  return {
    family, protocol: sp.protocol, address, port, scheduler: ctx.scheduler, flags,
    timeout: sp.affinityTimeoutSeconds, prefixLength: family === 6 ? 128 : 32,
  };
}

export function desiredServicePort(sp: ServicePort, eps: SelectedEndpoints | undefined, ctx: DesiredContext): DesiredServicePort {
  const services = new Map<string, DesiredVS>();
  const bind = new Set<string>();
  const skipped: string[] = [];
  const internal = dests(endpointsFor(sp.internalPolicyLocal, eps), sp);
  const external = dests(endpointsFor(sp.externalPolicyLocal, eps), sp);
  const add = (raw: string, port: number, ds: IpvsDestination[], bindIt: (ip: string) => boolean, viaNodePort = false): void => {
    const ip = canonicalIP(raw);
    if (!ip || familyOfIP(ip) !== sp.family || ctx.excluded(ip)) { skipped.push(raw); return; }
    const service = serviceAt(sp, ip, port, ctx);
    const key = vsKey(service);
    if (!services.has(key)) services.set(key, { key, service, dests: ds, viaNodePort });
    if (bindIt(ip)) bind.add(ip);
  };
  // A ClusterIP and port another ServicePort owns (core/address-ownership): no virtual service and
  // no binding of ours; the owner binds the address, and unbinding follows the last one wanting it.
  if (!sp.clusterIPRefused) add(sp.clusterIP, sp.port, internal, () => true);
  for (const ip of sp.externalIPs) add(ip, sp.port, external, (a) => !ctx.localAddresses.has(a));
  for (const ip of sp.loadBalancerIPs) add(ip, sp.port, external, (a) => !ctx.localAddresses.has(a));
  if (sp.nodePort !== 0) {
    for (const ip of ctx.nodePortIPs) if (familyOfIP(ip) === sp.family) add(ip, sp.nodePort, external, () => false, true);
  }
  return { key: sp.key, services, bind: [...bind], skipped };
}
