// Conntrack: which flows a sync (or a downtime) made stale, deleting them over ctnetlink with
// retries, and the sysctls.
export type { ConntrackFilter, ConntrackProtocol } from './filter';
export { filterKey } from './filter';
export { staleFlowFilters } from './stale-flows';
export type { ConntrackDeleteOptions, ConntrackListQuery, DnatFlow, DnatFlowList } from './addon';
export { ConntrackClient, type ConntrackClientOptions, type ConntrackDeleteResult } from './conntrack-client';
export { cleanupStaleFlows, ConntrackCleanup, type FlowDeleter, type StaleFlowCleanup } from './cleanup';
export { FlowCleanupQueue, type FlowCleanupQueueOptions, type FlowDeleteOutcome } from './flow-cleanup-queue';
export { planStartupStaleFlows, type ListedFlows, type StartupSnapshot, type StartupStaleLimits, type StartupStalePlan, type StartupStaleReport } from './startup-stale';
export { cleanupStaleFlowsAtStartup, type FlowLister, type StartupCleanupOptions, type StartupFlowCleanup, type StartupListOutcome } from './startup-cleanup';
export { applyConntrackSysctls, planConntrackSysctls, conntrackMax, type SysctlOutcome, type SysctlOptions, type SysctlWrite } from './sysctls';
