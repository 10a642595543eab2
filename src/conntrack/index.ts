// Conntrack: which flows a sync made stale, deleting them over ctnetlink, and the sysctls.
export type { ConntrackFilter, ConntrackProtocol } from './filter';
export { filterKey } from './filter';
export { staleFlowFilters } from './stale-flows';
export type { ConntrackDeleteOptions } from './addon';
export { ConntrackClient, type ConntrackClientOptions, type ConntrackDeleteResult } from './conntrack-client';
export { cleanupStaleFlows, type FlowDeleter, type StaleFlowCleanup } from './cleanup';
export { applyConntrackSysctls, planConntrackSysctls, conntrackMax, type SysctlOutcome, type SysctlOptions, type SysctlWrite } from './sysctls';
