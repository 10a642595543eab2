// The scale bench's cluster generator state and its fixed layout: where this node, the Services,
// pods and load balancers live, and the running counters that keep every address unique through churn.
import { ip4ToInt } from '../lib/cluster';
import { Rng } from './object-bulk';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type KObject = Record<string, any>;

export const NODE_NAME = 'node-0';
export const NODE_IP = '198.18.0.10';
export const NODE_CIDR = '198.18.0.0/24';
export const SERVICE_CIDR = '10.96.0.0/12';
export const CLUSTER_CIDR = '10.128.0.0/9';
export const ZONES = ['zone-a', 'zone-b', 'zone-c'];
export const SERVICE_BASE = ip4ToInt('10.96.0.0');
export const LB_BASE = ip4ToInt('172.16.0.0');
const NODEPORT_FIRST = 30000;
export const WORDS = ['api', 'web', 'worker', 'cache', 'auth', 'search', 'billing', 'gateway', 'orders', 'catalog', 'events', 'profile'];

export interface ScaleSpec {
  services: number;
  seed: number;
  /** Ready endpoints per Service (default 6). */
  endpoints?: number;
  /** Nodes the endpoints are spread over; this node is node-0 (default 100). */
  nodes?: number;
}

export interface PortPlan { name: string; protocol: 'TCP' | 'UDP'; port: number; targetPort: number; nodePort?: number }

export interface ServicePlan {
  index: number;
  name: string;
  namespace: string;
  uid: string;
  type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  ports: PortPlan[];
  clusterIP: string;
  affinity: boolean;
  externalLocal: boolean;
  internalLocal: boolean;
  healthCheckNodePort?: number;
  loadBalancerIP?: string;
  topologyHints: boolean;
  kubectlApplied: boolean;
  created: string;
  labels: Record<string, string>;
}

/** The generator's running state: counters continue through churn so every address stays unique. */
export interface ScaleCluster {
  spec: Required<ScaleSpec>;
  rng: Rng;
  nextIndex: number;
  nextPod: number;
  nextNodePort: number;
  nextLb: number;
  plans: Map<number, ServicePlan>;
}

export function newCluster(spec: ScaleSpec): ScaleCluster {
  if (!Number.isInteger(spec.services) || spec.services < 1) throw new RangeError(`services must be a positive integer, got ${spec.services}`);
  const full = { endpoints: 6, nodes: 100, ...spec };
  return { spec: full, rng: new Rng(spec.seed), nextIndex: 0, nextPod: ip4ToInt('10.128.0.1'), nextNodePort: NODEPORT_FIRST, nextLb: 1, plans: new Map() };
}

