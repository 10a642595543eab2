// Services made through the real kube-apiserver (its defaulting, ClusterIP allocation from the real
// ServiceCIDR, NodePort allocation and validation) and EndpointSlices written as
// kube-controller-manager's EndpointSlice controller writes them (pkg/controller/endpointslice and
// staging/src/k8s.io/endpointslice: reconciler.go, utils.go), since no controller runs in the tier:
// - a name the API server generates from `generateName: <service>-`;
// - the Service's labels plus `kubernetes.io/service-name` and
//   `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`, an owner reference
//   to the Service (controller, blockOwnerDeletion), the last-change-trigger-time annotation;
// - one port per Service port, named as the Service port (`""` when unnamed), numbered as the
//   resolved targetPort;
// - per endpoint: all three conditions set, nodeName, zone (the Node's topology label), a targetRef
//   to its Pod. The tier has no kubelet, so no Pod objects: the refs carry made-up UIDs, as nothing
//   reads them back (kube-proxy never does).
import { randomUUID } from 'node:crypto';
import { applyObjects, getJson, kubectl } from './kubectl';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';

/** One endpoint as the controller derives it from a Pod. */
export interface PodEndpoint {
  pod: string;
  ip: string;
  nodeName: string;
  zone: string;
  /** Pod Ready (default true). */
  ready?: boolean;
  /** deletionTimestamp set (default false). */
  terminating?: boolean;
}

/** Creates a Service from `spec` through the API server and returns it as the server stored it. */
export function createService(namespace: string, name: string, spec: Record<string, unknown>, labels: Record<string, string> = {}): any {
  applyObjects([{ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, labels }, spec }]);
  return getJson(['service', name, '-n', namespace]);
}

function sliceBody(svc: any, endpoints: PodEndpoint[]): any {
  return {
    addressType: 'IPv4',
    ports: svc.spec.ports.map((p: any) => ({ name: p.name ?? '', port: typeof p.targetPort === 'number' ? p.targetPort : p.port, protocol: p.protocol })),
    endpoints: endpoints.map((e) => {
      const ready = (e.ready ?? true) && !e.terminating;
      return {
        addresses: [e.ip],
        // utils.go podToEndpoint: ready excludes terminating pods; serving is the pod's readiness alone.
        conditions: { ready, serving: e.ready ?? true, terminating: e.terminating ?? false },
        nodeName: e.nodeName,
        zone: e.zone,
        targetRef: { kind: 'Pod', namespace: svc.metadata.namespace, name: e.pod, uid: randomUUID() },
      };
    }),
  };
}

/** Creates the Service's slice as the controller does (generated name); returns it as stored. */
export function createControllerSlice(svc: any, endpoints: PodEndpoint[]): any {
  const slice = {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: {
      generateName: `${svc.metadata.name}-`, namespace: svc.metadata.namespace,
      labels: {
        ...(svc.metadata.labels ?? {}),
        'kubernetes.io/service-name': svc.metadata.name,
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': new Date().toISOString() },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: svc.metadata.name, uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }],
    },
    ...sliceBody(svc, endpoints),
  };
  return JSON.parse(kubectl(['create', '-f', '-', '-o', 'json'], { input: JSON.stringify(slice) }));
}

/** Rewrites the slice's endpoints as the controller's update does (the stored object, new endpoints); returns it. */
export function updateControllerSlice(svc: any, slice: any, endpoints: PodEndpoint[]): any {
  const next = { ...slice, ...sliceBody(svc, endpoints) };
  next.metadata = { ...slice.metadata, annotations: { ...slice.metadata.annotations, 'endpoints.kubernetes.io/last-change-trigger-time': new Date().toISOString() } };
  return JSON.parse(kubectl(['replace', '-f', '-', '-o', 'json'], { input: JSON.stringify(next) }));
}
