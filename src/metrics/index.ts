// Public face of the metrics (wired in src/app).
export { createProxyMetrics, observeNetworkProgramming, observeSync, parseTriggerTime, apiServerStatusObserver } from './proxy-metrics';
export type { ProxyMetrics, CreateMetricsOptions } from './proxy-metrics';
export { startMetricsServer } from './server';
export type { MetricsServerOptions } from './server';
export { SYNC_BUCKETS, NETWORK_PROGRAMMING_BUCKETS } from './buckets';
export { createRestClientMetrics, REST_CLIENT_LATENCY_BUCKETS } from './rest-client-metrics';
export type { RestClientMetrics } from './rest-client-metrics';
export { buildInfoOf, registerBuildInfo } from './build-info';
export type { BuildInfo } from './build-info';
export { readCgroupMemoryLimit, registerMemoryLimit } from './memory-limit';
export { registerConntrackMetrics, CONNTRACK_COUNTERS } from './conntrack-metrics';
export type { ConntrackMetricsOptions, ConntrackStatsReading } from './conntrack-metrics';
export { ConntrackFullWarning, CONNTRACK_FULL_RATIO, CONNTRACK_FULL_WARN_INTERVAL_MS } from './conntrack-full-warning';
export type { ConntrackFullWarningOptions } from './conntrack-full-warning';
