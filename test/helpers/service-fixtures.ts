// ServicePorts, endpoints, endpoint selections and snapshots as core hands them to a proxier: the
// test data every mode's tests build on (a mode's tests may not import another mode's).
import type { Endpoint, NodeInfo, ProxySnapshot, SelectedEndpoints, ServicePort } from '../../src/core/types';

/** A TCP port 80 ClusterIP ServicePort `ns1/<name>` with core's key (`ns1/<name>:p80/TCP/IPv4`), changed by `over`. */
export function servicePort(name: string, over: Partial<ServicePort> = {}): ServicePort {
  const base: ServicePort = {
    key: `ns1/${name}:p80/TCP/IPv4`, namespace: 'ns1', name, portName: 'p80', protocol: 'TCP', family: 'IPv4',
    clusterIP: '172.30.0.41', port: 80, nodePort: 0, externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [],
    affinityTimeoutSeconds: 0, externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0,
  };
  return { ...base, ...over };
}

/** A ready, serving, remote endpoint. */
export function ep(ip: string, port = 80, over: Partial<Endpoint> = {}): Endpoint {
  return { ip, port, ready: true, serving: true, terminating: false, isLocal: false, ...over };
}

/** Endpoint selection the way core does it for ready endpoints: Local policy sees the local ones. */
export function selected(eps: Endpoint[]): SelectedEndpoints {
  return { cluster: eps, local: eps.filter((e) => e.isLocal), allReachable: eps, hasAny: eps.length > 0 };
}

export const node: NodeInfo = { name: 'node1', labels: {}, ips: ['192.168.0.2', 'fd00::2'], podCIDRs: ['10.0.1.0/24', 'fd00:10:1::/64'] };

export type Entry = [ServicePort, Endpoint[]];

export function snapshot(entries: Entry[], n: NodeInfo = node): ProxySnapshot {
  return {
    services: new Map(entries.map(([s]) => [s.key, s])),
    endpoints: new Map(entries.map(([s, e]) => [s.key, selected(e)])),
    node: n,
  };
}
