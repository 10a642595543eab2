// The nftables proxy mode.
export { NftablesProxier } from './proxier';
export type { NftablesProxierOptions, NftHandle, NftablesMetrics, ProxierLog } from './options';
export type { LocalDetectorOptions } from '../../native/local-detector';
export { compileBase } from './compile-base';
export { compileService } from './compile-service';
export { buildContext } from './context';
export { renderDesiredScript } from './render-script';
export { guardedTables } from './foreign-changes';
export type { RepairReason } from './proxier';
export { compileDesiredTables, leaveOut } from './desired-tables';
export type { CompileOptions, DesiredTable, DesiredTables } from './desired-tables';
export { planKernelDiff } from './kernel-diff';
export { desiredWriter } from './render-script';
export { TABLE } from './names';
export { countAdded, countChanges, unreadableByNft } from './script-summary';
export type { ChangeCounts, ScriptCounts } from './script-summary';
