// The synthetic cluster as the API server would send it: one V1Service and one V1EndpointSlice per
// Service, so the bench exercises the real model (src/core) from its input format.
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { SynthService } from '../lib/cluster';

export const BENCH_NODE = 'bench-node';

export function serviceObject(s: SynthService): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: s.namespace, name: s.name, uid: `svc-uid-${s.index}`, resourceVersion: '1' },
    spec: {
      type: s.nodePort ? 'NodePort' : 'ClusterIP',
      clusterIP: s.clusterIP,
      clusterIPs: [s.clusterIP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [{ name: 'http', protocol: 'TCP', port: s.port, targetPort: 8080, ...(s.nodePort ? { nodePort: s.nodePort } : {}) }],
      sessionAffinity: 'None',
      externalTrafficPolicy: s.nodePort ? 'Cluster' : undefined,
      internalTrafficPolicy: 'Cluster',
    },
  } as V1Service;
}

/** Endpoints on other nodes than the bench node, like most endpoints of a large cluster. */
export function sliceObject(s: SynthService, generation = 0): V1EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace: s.namespace,
      name: `${s.name}-abcde`,
      uid: `slice-uid-${s.index}`,
      resourceVersion: String(generation + 1),
      labels: { 'kubernetes.io/service-name': s.name },
    },
    addressType: 'IPv4',
    ports: [{ name: 'http', protocol: 'TCP', port: s.endpoints[0]?.port ?? 8080 }],
    endpoints: s.endpoints.map((ep, i) => ({
      addresses: [ep.ip],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: `node-${(s.index + i) % 500}`,
    })),
  } as V1EndpointSlice;
}
