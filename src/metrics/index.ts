// Public face of the metrics (wired in src/app).
export { createProxyMetrics, observeNetworkProgramming, observeSync, parseTriggerTime, apiServerStatusObserver } from './proxy-metrics';
export type { ProxyMetrics, CreateMetricsOptions } from './proxy-metrics';
export { startMetricsServer } from './server';
export type { MetricsServerOptions } from './server';
export { SYNC_BUCKETS, NETWORK_PROGRAMMING_BUCKETS } from './buckets';
