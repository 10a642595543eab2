// Public face of health checking (wired in src/app).
export { ProxyHealth, nodeEligible, TO_BE_DELETED_TAINT } from './proxy-health';
export type { HealthInputs, HealthReport, HealthzReport, StaleResource, WallClock } from './proxy-health';
export { formatDuration, nodeIneligibility } from './health-reasons';
export { startHealthServer, healthBody } from './health-server';
export type { HealthServerOptions } from './health-server';
export { ServiceHealthServer } from './service-health';
export type { HealthCheckFailure, ServiceHealthOptions } from './service-health';
export { compareHealthCheckClaims, healthCheckPortLosses } from './health-check-port-owner';
export type { HealthCheckClaim, HealthCheckPortLoss } from './health-check-port-owner';
export { healthCheckAddresses, WILDCARD } from './health-check-addresses';
export type { HealthCheckAddressInputs } from './health-check-addresses';
export { failedToStartMessage } from './service-health';
