// The mode-independent service model: what every proxy mode is given to program.
// Plain data only; the functions that build it live beside this file.

import type { IPFamily } from '../base/ip-family';
import type { Log } from '../base/log';

export type { IPFamily };
export type Protocol = 'TCP' | 'UDP' | 'SCTP';

/** One port of one Service in one IP family: the unit every proxy mode programs. */
export interface ServicePort {
  /**
   * Stable identity: `namespace/name:portName/protocol/family` (portName may be empty). The family
   * is part of the key because a dual-stack Service yields one ServicePort per family and both
   * live in the same snapshot map. Build it with `servicePortKey()` (core/keys).
   */
  key: string;
  namespace: string;
  name: string;
  portName: string;
  protocol: Protocol;
  family: IPFamily;
  clusterIP: string;
  port: number;
  /** 0 when the Service has no NodePort. */
  nodePort: number;
  externalIPs: readonly string[];
  /** LoadBalancer ingress IPs of this family whose ipMode is not `Proxy`. */
  loadBalancerIPs: readonly string[];
  loadBalancerSourceRanges: readonly string[];
  /** 0 when session affinity is None; else ClientIP timeout in seconds. */
  affinityTimeoutSeconds: number;
  externalPolicyLocal: boolean;
  internalPolicyLocal: boolean;
  /** 0 when none. */
  healthCheckNodePort: number;
  /** `spec.trafficDistribution` as given (informational: selection follows the slices' hints). */
  trafficDistribution?: string;
  /**
   * The Service's `metadata.creationTimestamp` in seconds and `metadata.uid`: the older Service owns
   * an address two Services claim (core/address-ownership). Absent: the newest.
   */
  created?: number;
  uid?: string;
  /**
   * Set on the snapshot's copy when another ServicePort owns this one's ClusterIP and port
   * (core/address-ownership): no dispatch of its ClusterIP is programmed; its other keys are.
   */
  clusterIPRefused?: true;
}

export interface Endpoint {
  ip: string;
  port: number;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  /** The endpoint runs on this node. */
  isLocal: boolean;
  nodeName?: string;
  zone?: string;
  zoneHints?: readonly string[];
  nodeHints?: readonly string[];
}

/** Endpoints of one ServicePort after upstream's selection rules (core/endpoint-selection). */
export interface SelectedEndpoints {
  /** Used for traffic with Cluster policy. May be the model's own list of the ServicePort's endpoints. */
  cluster: readonly Endpoint[];
  /** Used for traffic with Local policy. */
  local: readonly Endpoint[];
  /** cluster ∪ local: every endpoint a rule may send to (one chain each). */
  allReachable: readonly Endpoint[];
  /**
   * Whether the Service has a usable endpoint anywhere in the cluster (ready, or serving and
   * terminating), as upstream's CategorizeEndpoints: false means reject; true with an empty
   * `local` under a Local policy means drop.
   */
  hasAny: boolean;
}

export interface NodeInfo {
  name: string;
  labels: Record<string, string>;
  /** Node's primary IPs by family (for nodePortAddresses `primary`). */
  ips: string[];
  podCIDRs: string[];
}

/** What a proxy mode receives at each sync. */
export interface ProxySnapshot {
  services: ReadonlyMap<string, ServicePort>;
  endpoints: ReadonlyMap<string, SelectedEndpoints>;
  node: NodeInfo;
  /**
   * The cluster's Service IP ranges (`spec.cidrs` of every ServiceCIDR object, both families,
   * sorted, unique). Traffic to an address in them that no Service has is dropped. Absent or
   * empty when unknown (the API server has no ServiceCIDR API, or no access).
   */
  serviceCIDRs?: readonly string[];
}

/** Keys of ServicePorts whose Service or endpoints changed since the last applied sync. */
export interface ChangeSet {
  services: ReadonlySet<string>;
  /**
   * Endpoints removed per ServicePort key, for conntrack cleanup: endpoints that were serving at
   * the previous sync and are now gone or no longer serving.
   */
  removedEndpoints: ReadonlyMap<string, Endpoint[]>;
  /** ServicePort keys that went from no usable endpoint to at least one (stale "reject" flows). Always set by ProxyState; optional so hand-built ChangeSets in tests stay valid. */
  newlyActive?: ReadonlySet<string>;
  /** ServicePorts that no longer exist, as they were at the previous sync (their IPs, for cleanup). */
  removedServices?: ReadonlyMap<string, ServicePort>;
  /**
   * ServicePorts still here that stopped serving a frontend (an address, the port, the NodePort) since
   * the previous sync, as they were then: flows to what they no longer serve are stale. A Service
   * deleted and created again under its name between two syncs arrives here, with its old ClusterIP.
   */
  changedFrontends?: ReadonlyMap<string, ServicePort>;
}

/** Where the model's warnings go (each names the offending object as an ObjectRef). */
export type ModelLog = Pick<Log, 'warn'>;

export interface ObjectRef {
  kind: string;
  namespace?: string;
  name?: string;
  [detail: string]: unknown;
}

export interface SyncResult {
  full: boolean;
  ok: boolean;
  error?: Error;
}

/** Implemented by each proxy mode (src/proxier/<mode>/). */
export interface Proxier {
  sync(snapshot: ProxySnapshot, changes: ChangeSet, full: boolean): Promise<SyncResult>;
}
