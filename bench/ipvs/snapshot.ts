// The IPVS bench's cluster as the proxier receives it: the shared synthetic cluster (bench/lib/cluster.ts,
// N Services x 4 endpoints, ClusterIP TCP, a NodePort on every 10th) built straight into a ProxySnapshot,
// plus the one-endpoint change the partial syncs make. Plain data; the maps are the bench's to mutate.
import type { ChangeSet, Endpoint, NodeInfo, ProxySnapshot, SelectedEndpoints, ServicePort } from '../../src/core/types';
import { servicePortKey } from '../../src/core/keys';
import { endpointIp, syntheticCluster, type SynthService } from '../lib/cluster';

export const ENDPOINTS_PER_SERVICE = 4;
export const NODEPORT_SHARE = 0.1;
/** The node's one address (on a dummy link `node0` in the namespace): NodePorts are served on it. */
export const NODE_IP = '10.0.0.1';

export interface BenchCluster {
  synth: SynthService[];
  services: Map<string, ServicePort>;
  endpoints: Map<string, SelectedEndpoints>;
  snapshot: ProxySnapshot;
}

const node: NodeInfo = { name: 'bench-node', labels: {}, ips: [NODE_IP], podCIDRs: [] };

function servicePort(s: SynthService): ServicePort {
  return {
    key: servicePortKey(s.namespace, s.name, '', 'TCP', 'IPv4'), namespace: s.namespace, name: s.name, portName: '',
    protocol: 'TCP', family: 'IPv4', clusterIP: s.clusterIP, port: s.port, nodePort: s.nodePort,
    externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [], affinityTimeoutSeconds: 0,
    externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0,
  };
}

function endpoint(ip: string, port: number): Endpoint {
  return { ip, port, ready: true, serving: true, terminating: false, isLocal: false };
}

/** As core selects ready endpoints of a Cluster-policy Service: all of them, none local. */
function selected(eps: Endpoint[]): SelectedEndpoints {
  return { cluster: eps, local: [], allReachable: eps, hasAny: eps.length > 0 };
}

export function benchCluster(n: number): BenchCluster {
  const synth = syntheticCluster({ services: n, endpointsPerService: ENDPOINTS_PER_SERVICE, nodePortShare: NODEPORT_SHARE });
  const services = new Map<string, ServicePort>();
  const endpoints = new Map<string, SelectedEndpoints>();
  for (const s of synth) {
    const sp = servicePort(s);
    services.set(sp.key, sp);
    endpoints.set(sp.key, selected(s.endpoints.map((e) => endpoint(e.ip, e.port))));
  }
  return { synth, services, endpoints, snapshot: { services, endpoints, node } };
}

export interface EndpointSwap { service: SynthService; key: string; oldIp: string; newIp: string; port: number }

/**
 * Replaces the first pod of Service `index` by a new one (generation `gen`, a fresh address) in the
 * snapshot; returns what changed and the ChangeSet a partial sync gets for it.
 */
export function replaceOnePod(c: BenchCluster, index: number, gen: number): { swap: EndpointSwap; changes: ChangeSet } {
  const service = c.synth[index];
  const key = servicePortKey(service.namespace, service.name, '', 'TCP', 'IPv4');
  const old = c.endpoints.get(key)!.cluster;
  const oldEp = old[0];
  const newIp = endpointIp(index, 0, ENDPOINTS_PER_SERVICE, gen);
  c.endpoints.set(key, selected([endpoint(newIp, oldEp.port), ...old.slice(1)]));
  const changes: ChangeSet = { services: new Set([key]), removedEndpoints: new Map([[key, [oldEp]]]), removedServices: new Map() };
  return { swap: { service, key, oldIp: oldEp.ip, newIp, port: oldEp.port }, changes };
}

export const NO_CHANGES: ChangeSet = { services: new Set(), removedEndpoints: new Map(), removedServices: new Map() };
