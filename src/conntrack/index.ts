// Conntrack: which flows a sync (or a downtime) made stale, deleting them (through src/native's
// ConntrackClient) with retries, and the sysctls.
export { filterKey } from './filter';
export { staleFlowFilters } from './stale-flows';
export { cleanupStaleFlows, ConntrackCleanup, type FlowDeleter, type StaleFlowCleanup } from './cleanup';
export { FlowCleanupQueue, type FlowCleanupQueueOptions, type FlowDeleteOutcome } from './flow-cleanup-queue';
export { planStartupStaleFlows, type ListedFlows, type StartupSnapshot, type StartupStaleLimits, type StartupStalePlan, type StartupStaleReport } from './startup-stale';
export { cleanupStaleFlowsAtStartup, type FlowLister, type StartupCleanupOptions, type StartupFlowCleanup, type StartupListOutcome } from './startup-cleanup';
export {
  setupConntrackSysctls, planConntrackSysctls, conntrackMax, sysfsWritable, READ_ONLY_SYSFS_EVENT,
  type ConntrackSetup, type ReadOnlySysFSEvent, type SysctlOutcome, type SysctlOptions, type SysctlWrite,
} from './sysctls';
