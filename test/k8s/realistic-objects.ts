// API objects as a real cluster sends them: besides what the proxy reads, the bulk it does not
// (managedFields with fieldsV1 trees, kubectl's last-applied annotation, Helm labels, owner and target
// references, status conditions, a Node's images). Plain JSON, as off the wire. Used by
// kept-fields.test.ts and by bench/probe/object-memory.ts.
type Json = Record<string, unknown>;

const T0 = '2025-11-03T09:14:07Z';

/**
 * A fieldsV1 tree shaped like the object (what the API server records per manager): lists named in
 * `atomic` (listType=atomic, as an EndpointSlice's endpoints and ports) are recorded whole, as `{}`.
 */
export function fieldsV1(v: unknown, atomic: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(v)) {
    const out: Json = {};
    v.forEach((e, i) => (out[typeof e === 'object' && e ? `k:{"i":${i}}` : `v:${JSON.stringify(e)}`] = fieldsV1(e, atomic)));
    return out;
  }
  if (typeof v !== 'object' || v === null) return {};
  const out: Json = { '.': {} };
  for (const [k, e] of Object.entries(v)) out[`f:${k}`] = atomic.has(k) ? {} : fieldsV1(e, atomic);
  return out;
}

function managedFields(manager: string, tracked: Json, statusToo?: Json, atomic?: ReadonlySet<string>): Json[] {
  const entries: Json[] = [{ manager, operation: 'Update', apiVersion: 'v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: fieldsV1(tracked, atomic) }];
  if (statusToo) entries.push({ manager: `${manager}-status`, operation: 'Update', apiVersion: 'v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: fieldsV1(statusToo), subresource: 'status' });
  return entries;
}

function appLabels(app: string): Record<string, string> {
  return {
    app,
    'app.kubernetes.io/name': app,
    'app.kubernetes.io/instance': `${app}-prod`,
    'app.kubernetes.io/managed-by': 'Helm',
    'helm.sh/chart': `${app}-4.12.1`,
  };
}

/**
 * A Service: `spec` is what the test varies (merged over a ClusterIP default); the rest is bulk.
 * `extra` adds to metadata (annotations, labels) and `status`.
 */
export function realService(ns: string, name: string, spec: Json, extra: { annotations?: Record<string, string>; labels?: Record<string, string>; status?: Json } = {}): Json {
  const fullSpec: Json = {
    type: 'ClusterIP',
    selector: { app: name, 'app.kubernetes.io/instance': `${name}-prod` },
    sessionAffinity: 'None',
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
    ...spec,
  };
  const labels = { ...appLabels(name), ...extra.labels };
  const applied = { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, labels }, spec: { ports: fullSpec.ports, selector: fullSpec.selector, type: fullSpec.type } };
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: ns,
      uid: `5b1e0c2a-9f1d-4c1e-8a77-${name.padStart(12, '0').slice(-12)}`,
      resourceVersion: '48213377',
      creationTimestamp: T0,
      labels,
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(applied),
        'meta.helm.sh/release-name': `${name}-prod`,
        'meta.helm.sh/release-namespace': ns,
        ...extra.annotations,
      },
      managedFields: managedFields('helm', { metadata: { labels, annotations: {} }, spec: fullSpec }, extra.status),
    },
    spec: fullSpec,
    status: extra.status ?? { loadBalancer: {} },
  };
}

const SLICE_ATOMIC = new Set(['endpoints', 'ports']);

export interface RealEndpoint {
  ip: string;
  node?: string;
  zone?: string;
  conditions?: Json | null;
  hints?: Json;
}

/** An EndpointSlice of Service `service` as the EndpointSlice controller writes it. */
export function realSlice(ns: string, service: string, suffix: string, addressType: string, ports: Array<Json | null>, endpoints: RealEndpoint[], annotations?: Record<string, string>): Json {
  const eps = endpoints.map((e, i) => ({
    addresses: [e.ip],
    conditions: e.conditions === undefined ? { ready: true, serving: true, terminating: false } : e.conditions,
    ...(e.node ? { nodeName: e.node } : {}),
    ...(e.zone ? { zone: e.zone } : {}),
    ...(e.hints ? { hints: e.hints } : {}),
    targetRef: { kind: 'Pod', namespace: ns, name: `${service}-7d9c6b5f4-${String(i).padStart(5, 'x')}`, uid: `0f3c2b1a-6e5d-4c3b-9a87-${String(i).padStart(12, '0')}` },
  }));
  const labels = { ...appLabels(service), 'kubernetes.io/service-name': service, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' };
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: `${service}-${suffix}`,
      generateName: `${service}-`,
      namespace: ns,
      uid: `a7c9e1f3-2b4d-4f6a-8c0e-${suffix.padStart(12, '0')}`,
      resourceVersion: '48213391',
      generation: 7,
      creationTimestamp: T0,
      labels,
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': '2025-11-03T09:20:00Z', ...annotations },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: service, uid: '5b1e0c2a-9f1d-4c1e-8a77-000000000001', controller: true, blockOwnerDeletion: true }],
      managedFields: managedFields('kube-controller-manager', { metadata: { labels, annotations: {} }, addressType, endpoints: eps, ports }, undefined, SLICE_ATOMIC),
    },
    addressType,
    endpoints: eps,
    ports,
  };
}

/** A Node as the kubelet and the cloud controller keep it: big status, many labels. */
export function realNode(name: string, extra: { zone?: string; addresses?: Json[]; podCIDRs?: string[]; taints?: Json[]; deletionTimestamp?: string } = {}): Json {
  const labels = {
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'node.kubernetes.io/instance-type': 'm6i.2xlarge',
    'topology.kubernetes.io/region': 'eu-west-1',
    ...(extra.zone ? { 'topology.kubernetes.io/zone': extra.zone } : {}),
  };
  const conditions = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'].map((type) => ({
    type, status: type === 'Ready' ? 'True' : 'False', lastHeartbeatTime: T0, lastTransitionTime: T0, reason: `Kubelet${type}`, message: `kubelet reports ${type}`,
  }));
  const images = Array.from({ length: 40 }, (_, i) => ({ names: [`registry.example.com/team/image-${i}@sha256:${'ab'.repeat(32)}`, `registry.example.com/team/image-${i}:v1.${i}`], sizeBytes: 100_000_000 + i }));
  const status = {
    addresses: extra.addresses ?? [{ type: 'InternalIP', address: '10.0.1.5' }, { type: 'Hostname', address: name }],
    capacity: { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' },
    allocatable: { cpu: '7910m', memory: '30Gi', pods: '110', 'ephemeral-storage': '92Gi' },
    conditions,
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: { machineID: 'ec2a', systemUUID: 'ec2a', bootID: 'b00t', kernelVersion: '6.8.0', osImage: 'Ubuntu 24.04', containerRuntimeVersion: 'containerd://2.0.0', kubeletVersion: 'v1.33.1', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
    images,
  };
  const spec = { podCIDR: extra.podCIDRs?.[0], podCIDRs: extra.podCIDRs, providerID: `aws:///eu-west-1a/i-${name}`, taints: extra.taints };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: 'c0ffee00-0000-4000-8000-000000000001',
      resourceVersion: '48213400',
      creationTimestamp: T0,
      ...(extra.deletionTimestamp ? { deletionTimestamp: extra.deletionTimestamp } : {}),
      labels,
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true', 'csi.volume.kubernetes.io/nodeid': '{"ebs.csi.aws.com":"i-0abc"}' },
      managedFields: managedFields('kubelet', { metadata: { labels }, spec }, status),
    },
    spec,
    status,
  };
}

export function realNamespace(name: string, labels: Record<string, string> = {}): Json {
  const all = { 'kubernetes.io/metadata.name': name, ...labels };
  return {
    apiVersion: 'v1', kind: 'Namespace',
    metadata: { name, uid: 'feed0000-0000-4000-8000-000000000002', resourceVersion: '12', creationTimestamp: T0, labels: all, managedFields: managedFields('kubectl', { metadata: { labels: all } }) },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

export function realServiceCIDR(name: string, cidrs: string[]): Json {
  const status = { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: T0, reason: '', message: 'Kubernetes Service CIDR is ready' }] };
  return {
    apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR',
    metadata: { name, uid: 'cafe0000-0000-4000-8000-000000000003', resourceVersion: '15', creationTimestamp: T0, managedFields: managedFields('kube-apiserver', { spec: { cidrs } }, status) },
    spec: { cidrs },
    status,
  };
}
