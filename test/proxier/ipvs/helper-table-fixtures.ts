// Builders for the IPVS helper table's tests: ServicePorts, endpoints, snapshots, sync inputs.
import type { Endpoint, NodeInfo, ProxySnapshot, SelectedEndpoints, ServicePort } from '../../../src/core/types';
import type { HelperTableSyncInput } from '../../../src/proxier/ipvs/helper-table-api';

export function sp(name: string, over: Partial<ServicePort> = {}): ServicePort {
  const base: ServicePort = {
    key: `ns1/${name}:p80/TCP/IPv4`, namespace: 'ns1', name, portName: 'p80', protocol: 'TCP', family: 'IPv4',
    clusterIP: '172.30.0.41', port: 80, nodePort: 0, externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [],
    affinityTimeoutSeconds: 0, externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0,
  };
  return { ...base, ...over };
}

export function ep(ip: string, port = 80, over: Partial<Endpoint> = {}): Endpoint {
  return { ip, port, ready: true, serving: true, terminating: false, isLocal: false, ...over };
}

/** Selection as core makes it for ready endpoints: Local policy sees the local ones. */
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

export function fullInput(entries: Entry[], nodePortIPs: string[] = ['192.168.0.2', 'fd00::2'], n: NodeInfo = node): HelperTableSyncInput {
  return { snapshot: snapshot(entries, n), changed: new Set(), removed: new Map(), full: true, nodePortIPs };
}

export function partialInput(entries: Entry[], changed: string[], removed: ServicePort[] = [], nodePortIPs: string[] = ['192.168.0.2', 'fd00::2']): HelperTableSyncInput {
  return {
    snapshot: snapshot(entries), changed: new Set(changed), removed: new Map(removed.map((s) => [s.key, s])), full: false, nodePortIPs,
  };
}
