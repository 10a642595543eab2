// Public face of health checking (wired in src/main.ts).
export { ProxyHealth, nodeEligible, systemClock, TO_BE_DELETED_TAINT } from './proxy-health';
export type { Clock, HealthInputs, HealthReport, HealthzReport, IPFamily, StaleResource } from './proxy-health';
export { formatDuration, nodeIneligibility } from './health-reasons';
export { startHealthServer, healthBody } from './health-server';
export type { HealthServerOptions } from './health-server';
export { ServiceHealthServer } from './service-health';
export type { ServiceHealthOptions } from './service-health';
