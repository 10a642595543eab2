// The synthetic cluster as the API server would send it: one V1Service and one V1EndpointSlice per
// Service, so the bench exercises the real model (src/core) from its input format.
import type { V1EndpointSlice, V1Service } from '@kubernetes/client-node';
import { SynthService } from '../lib/cluster';

export const BENCH_NODE = 'bench-node';

function servicePorts(s: SynthService) {
  const ports = [{ name: 'http', protocol: 'TCP', port: s.port, targetPort: 8080, ...(s.nodePort ? { nodePort: s.nodePort } : {}) }];
  const p2 = s.secondPort;
  if (p2) ports.push({ name: 'https', protocol: 'TCP', port: p2.port, targetPort: p2.targetPort, ...(p2.nodePort ? { nodePort: p2.nodePort } : {}) });
  return ports;
}

export function serviceObject(s: SynthService): V1Service {
  const type = s.loadBalancerIP ? 'LoadBalancer' : s.nodePort ? 'NodePort' : 'ClusterIP';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: s.namespace, name: s.name, uid: `svc-uid-${s.index}`, resourceVersion: '1' },
    spec: {
      type,
      clusterIP: s.clusterIP,
      clusterIPs: [s.clusterIP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: servicePorts(s),
      sessionAffinity: s.affinity ? 'ClientIP' : 'None',
      ...(s.affinity ? { sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } } : {}),
      externalTrafficPolicy: s.nodePort ? (s.externalLocal ? 'Local' : 'Cluster') : undefined,
      ...(s.externalLocal ? { healthCheckNodePort: 32000 + (s.index % 30000) } : {}),
      internalTrafficPolicy: 'Cluster',
    },
    ...(s.loadBalancerIP ? { status: { loadBalancer: { ingress: [{ ip: s.loadBalancerIP }] } } } : {}),
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
    ports: [
      { name: 'http', protocol: 'TCP', port: s.endpoints[0]?.port ?? 8080 },
      ...(s.secondPort ? [{ name: 'https', protocol: 'TCP', port: s.secondPort.targetPort }] : []),
    ],
    endpoints: s.endpoints.map((ep, i) => ({
      addresses: [ep.ip],
      conditions: { ready: true, serving: true, terminating: false },
      nodeName: i === s.localSlot ? BENCH_NODE : `node-${(s.index + i) % 500}`,
    })),
  } as V1EndpointSlice;
}
