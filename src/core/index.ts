// The model's public surface, for src/main.ts and the proxy modes.
export * from './types';
export { ProxyState, type ProxyStateOptions, type TakenChanges, type PendingCounts } from './proxy-state';
export type { EventKind } from './service-change-tracker';
export type { TriggerTime } from './endpoints-change-tracker';
export { familyOfKey } from './keys';
export { servicePortKey, serviceName, endpointKey } from './keys';
export {
  selectEndpoints,
  topologyModeFromHints,
  usesClusterEndpoints,
  usesLocalEndpoints,
  externallyAccessible,
  ZONE_LABEL,
  type NodeTopology,
  type TopologyMode,
} from './endpoint-selection';
export { servicePortsFromService, DEFAULT_AFFINITY_TIMEOUT_SECONDS, DEFAULT_MAX_PORTS_PER_SERVICE } from './service-conversion';
export { parseEndpointSlice, mergeSlices, TRIGGER_TIME_ANNOTATION, SERVICE_NAME_LABEL } from './endpoint-conversion';
export { nodeInfoFromNode } from './node-info';
export type { ClaimKind, RefusedClaim } from './address-ownership';
