// Kubernetes objects for traffic tests and the demo, in the shape the API server sends.
export const NODE_NAME = 'node-a';
export const OTHER_NODE = 'node-b';

export interface PortSpec { name?: string; port: number; targetPort?: number; protocol?: 'TCP' | 'UDP' | 'SCTP'; nodePort?: number }

export interface ServiceSpec {
  namespace?: string;
  clusterIP: string;
  clusterIPs?: string[];
  ipFamilies?: ('IPv4' | 'IPv6')[];
  ports: PortSpec[];
  type?: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  externalIPs?: string[];
  /** Status ingress IPs in ipMode VIP (the proxy serves them). */
  loadBalancerIPs?: string[];
  /** Status ingress entries with an explicit ipMode (`Proxy` ones are not served); added after loadBalancerIPs. */
  loadBalancerIngress?: { ip: string; ipMode?: 'VIP' | 'Proxy' }[];
  ipFamilyPolicy?: 'SingleStack' | 'PreferDualStack' | 'RequireDualStack';
  loadBalancerSourceRanges?: string[];
  affinitySeconds?: number;
  externalTrafficPolicy?: 'Cluster' | 'Local';
  internalTrafficPolicy?: 'Cluster' | 'Local';
  healthCheckNodePort?: number;
  labels?: Record<string, string>;
}

export function service(name: string, s: ServiceSpec): any {
  const spec: any = {
    type: s.type ?? 'ClusterIP',
    clusterIP: s.clusterIP,
    clusterIPs: s.clusterIPs ?? [s.clusterIP],
    ipFamilies: s.ipFamilies ?? [s.clusterIP.includes(':') ? 'IPv6' : 'IPv4'],
    ports: s.ports.map((p) => ({ name: p.name ?? '', port: p.port, targetPort: p.targetPort ?? p.port, protocol: p.protocol ?? 'TCP', ...(p.nodePort ? { nodePort: p.nodePort } : {}) })),
    sessionAffinity: s.affinitySeconds ? 'ClientIP' : 'None',
  };
  if (s.affinitySeconds) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: s.affinitySeconds } };
  if (s.externalIPs) spec.externalIPs = s.externalIPs;
  if (s.loadBalancerSourceRanges) spec.loadBalancerSourceRanges = s.loadBalancerSourceRanges;
  if (s.externalTrafficPolicy) spec.externalTrafficPolicy = s.externalTrafficPolicy;
  if (s.internalTrafficPolicy) spec.internalTrafficPolicy = s.internalTrafficPolicy;
  if (s.healthCheckNodePort) spec.healthCheckNodePort = s.healthCheckNodePort;
  if (s.ipFamilyPolicy) spec.ipFamilyPolicy = s.ipFamilyPolicy;
  const ingress = [...(s.loadBalancerIPs ?? []).map((ip) => ({ ip, ipMode: 'VIP' })), ...(s.loadBalancerIngress ?? [])];
  const status = ingress.length > 0 ? { loadBalancer: { ingress } } : {};
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: s.namespace ?? 'default', labels: s.labels ?? {} }, spec, status };
}

export interface EndpointSpec { ip: string; ready?: boolean; serving?: boolean; terminating?: boolean; nodeName?: string }

export function endpointSlice(serviceName: string, sliceName: string, o: { namespace?: string; ports: PortSpec[]; endpoints: EndpointSpec[]; addressType?: 'IPv4' | 'IPv6' }): any {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: sliceName,
      namespace: o.namespace ?? 'default',
      labels: { 'kubernetes.io/service-name': serviceName, 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': new Date().toISOString() },
    },
    addressType: o.addressType ?? (o.endpoints[0]?.ip.includes(':') ? 'IPv6' : 'IPv4'),
    ports: o.ports.map((p) => ({ name: p.name ?? '', port: p.targetPort ?? p.port, protocol: p.protocol ?? 'TCP' })),
    endpoints: o.endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready ?? true, serving: e.serving ?? e.ready ?? true, terminating: e.terminating ?? false },
      nodeName: e.nodeName ?? NODE_NAME,
    })),
  };
}

export function node(name: string, ip: string, labels: Record<string, string> = {}): any {
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } },
    spec: { podCIDR: '100.96.1.0/24', podCIDRs: ['100.96.1.0/24'] },
    status: { addresses: [{ type: 'InternalIP', address: ip }, { type: 'Hostname', address: name }] },
  };
}

export function namespace(name: string, labels: Record<string, string> = {}): any {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name, ...labels } } };
}

/** A `networking.k8s.io/v1` ServiceCIDR (cluster-scoped) holding these ranges. */
export function serviceCIDR(name: string, cidrs: string[]): any {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs } };
}
