// Builders for API objects and a logger that records, shared by the core tests.
import type { V1EndpointSlice, V1Node, V1Service } from '@kubernetes/client-node';
import type { Endpoint, ModelLog, ObjectRef, ServicePort } from '../../src/core/types';

export interface LogLine {
  obj: ObjectRef;
  msg: string;
}

export function recordingLogger(): ModelLog & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return { lines, warn: (obj, msg) => lines.push({ obj: obj as ObjectRef, msg }) };
}

type Spec = NonNullable<V1Service['spec']>;

export function service(
  name: string,
  spec: Partial<Spec> = {},
  extra: { namespace?: string; annotations?: Record<string, string>; status?: V1Service['status'] } = {},
): V1Service {
  return {
    metadata: { namespace: extra.namespace ?? 'ns', name, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.96.0.10',
      clusterIPs: ['10.96.0.10'],
      ipFamilies: ['IPv4'],
      ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
      ...spec,
    },
    ...(extra.status ? { status: extra.status } : {}),
  };
}

type SliceEndpoint = NonNullable<V1EndpointSlice['endpoints']>[number];

export function sliceEndpoint(ip: string, extra: Partial<SliceEndpoint> = {}): SliceEndpoint {
  return { addresses: [ip], conditions: { ready: true, serving: true, terminating: false }, ...extra };
}

export function slice(
  name: string,
  svc: string,
  endpoints: SliceEndpoint[],
  extra: {
    namespace?: string;
    addressType?: string;
    ports?: V1EndpointSlice['ports'];
    annotations?: Record<string, string>;
  } = {},
): V1EndpointSlice {
  return {
    metadata: {
      namespace: extra.namespace ?? 'ns',
      name,
      labels: { 'kubernetes.io/service-name': svc },
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    addressType: extra.addressType ?? 'IPv4',
    ports: extra.ports ?? [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints,
  };
}

export function node(name: string, labels: Record<string, string> = {}, extra: Partial<V1Node> = {}): V1Node {
  return { metadata: { name, labels }, ...extra };
}

/** A ServicePort with everything off; override what a case needs. */
export function servicePort(over: Partial<ServicePort> = {}): ServicePort {
  return {
    key: 'ns/svc:/TCP/IPv4',
    namespace: 'ns',
    name: 'svc',
    portName: '',
    protocol: 'TCP',
    family: 'IPv4',
    clusterIP: '10.96.0.1',
    port: 80,
    nodePort: 0,
    externalIPs: [],
    loadBalancerIPs: [],
    loadBalancerSourceRanges: [],
    affinityTimeoutSeconds: 0,
    externalPolicyLocal: false,
    internalPolicyLocal: false,
    healthCheckNodePort: 0,
    ...over,
  };
}

export function endpoint(ipPort: string, over: Partial<Endpoint> = {}): Endpoint {
  const i = ipPort.lastIndexOf(':');
  return {
    ip: ipPort.slice(0, i),
    port: Number(ipPort.slice(i + 1)),
    ready: false,
    serving: false,
    terminating: false,
    isLocal: false,
    ...over,
  };
}

export const ipPorts = (eps: readonly Endpoint[]): string[] => eps.map((e) => `${e.ip}:${e.port}`).sort();
