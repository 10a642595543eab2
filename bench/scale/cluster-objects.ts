// The scale bench's cluster: N Services (service-objects.ts) and their EndpointSlices
// (slice-objects.ts), this node and the ServiceCIDR (node-objects.ts). Seeded: same spec, same
// objects, byte for byte.
import { newCluster, type KObject, type ScaleCluster, type ScaleSpec, type ServicePlan } from './cluster-state';
import { planService, serviceObject } from './service-objects';
import { sliceObject } from './slice-objects';

export * from './cluster-state';

/** A Service and its one EndpointSlice, drawn next. */
export function nextServiceObjects(c: ScaleCluster): { plan: ServicePlan; service: KObject; slice: KObject } {
  const plan = planService(c);
  return { plan, service: serviceObject(plan), slice: sliceObject(c, plan) };
}

/** The initial cluster: spec.services Services with their slices, in index order. */
export function generateCluster(spec: ScaleSpec): { cluster: ScaleCluster; services: KObject[]; slices: KObject[] } {
  const cluster = newCluster(spec);
  const services: KObject[] = [];
  const slices: KObject[] = [];
  for (let i = 0; i < spec.services; i++) {
    const o = nextServiceObjects(cluster);
    services.push(o.service);
    slices.push(o.slice);
  }
  return { cluster, services, slices };
}

/** What a set of generated objects holds, for the report and the tests. */
export interface ClusterMix {
  services: number;
  clusterIP: number;
  nodePort: number;
  loadBalancer: number;
  multiPort: number;
  udpPorts: number;
  servicePorts: number;
  sessionAffinity: number;
  externalLocal: number;
  internalLocal: number;
  healthCheckNodePorts: number;
  topologyHints: number;
  slices: number;
  readyEndpoints: number;
  terminatingEndpoints: number;
  /** Endpoints on this node (NODE_NAME). */
  localEndpoints: number;
}

export function mixOf(services: KObject[], slices: KObject[], nodeName: string): ClusterMix {
  const count = (f: (s: KObject) => boolean) => services.filter(f).length;
  const endpoints = slices.flatMap((s) => s.endpoints as KObject[]);
  return {
    services: services.length,
    clusterIP: count((s) => s.spec.type === 'ClusterIP'),
    nodePort: count((s) => s.spec.type === 'NodePort'),
    loadBalancer: count((s) => s.spec.type === 'LoadBalancer'),
    multiPort: count((s) => s.spec.ports.length > 1),
    udpPorts: services.reduce((n, s) => n + s.spec.ports.filter((p: KObject) => p.protocol === 'UDP').length, 0),
    servicePorts: services.reduce((n, s) => n + s.spec.ports.length, 0),
    sessionAffinity: count((s) => s.spec.sessionAffinity === 'ClientIP'),
    externalLocal: count((s) => s.spec.externalTrafficPolicy === 'Local'),
    internalLocal: count((s) => s.spec.internalTrafficPolicy === 'Local'),
    healthCheckNodePorts: count((s) => s.spec.healthCheckNodePort !== undefined),
    topologyHints: count((s) => s.metadata.annotations?.['service.kubernetes.io/topology-mode'] === 'Auto'),
    slices: slices.length,
    readyEndpoints: endpoints.filter((e) => e.conditions.ready).length,
    terminatingEndpoints: endpoints.filter((e) => e.conditions.terminating).length,
    localEndpoints: endpoints.filter((e) => e.nodeName === nodeName).length,
  };
}
