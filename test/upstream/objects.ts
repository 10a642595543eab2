// Objects the tier's tests create through the real API server. EndpointSlices are written as
// kube-controller-manager's EndpointSlice controller writes them (no controller runs here): the
// service-name and managed-by labels, an owner reference to the Service, addressType IPv4.
import { applyObjects, getJson } from './kubectl';
import { eventually } from '../traffic/harness';
import type { TierNode } from './node';

export interface ServiceSpec { namespace: string; name: string; port?: number; endpoints?: string[] }

/** A ClusterIP Service (address allocated by kube-apiserver) and its EndpointSlice; returns the ClusterIP. */
export function serviceWithEndpoints(s: ServiceSpec): string {
  const port = s.port ?? 80;
  applyObjects([{
    apiVersion: 'v1', kind: 'Service', metadata: { name: s.name, namespace: s.namespace },
    spec: { selector: { app: s.name }, ports: [{ name: 'http', port, protocol: 'TCP', targetPort: 8080 }] },
  }]);
  const svc = getJson(['service', s.name, '-n', s.namespace]);
  applyObjects([{
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: {
      name: `${s.name}-abcde`, namespace: s.namespace,
      labels: { 'kubernetes.io/service-name': s.name, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: s.name, uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    addressType: 'IPv4',
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: (s.endpoints ?? ['10.244.1.5']).map((ip) => ({ addresses: [ip], conditions: { ready: true, serving: true, terminating: false } })),
  }]);
  return svc.spec.clusterIP as string;
}

/** Resolves once the node's nftables mention `clusterIP` (the proxy has programmed the Service). */
export function programmed(node: TierNode, clusterIP: string, timeoutMs = 15_000): Promise<boolean> {
  return eventually(() => node.ns.nft('list', 'ruleset').includes(clusterIP), `${clusterIP} in ${node.name}'s nftables`, timeoutMs);
}
