// The IPVS proxy mode.
export { IpvsProxier } from './proxier';
export type { IpvsProxierOptions, IpvsMetrics, ProxierLog, CounterLike } from './options';
export { DEFAULT_GRACEFUL_BOUND_MS } from './options';
export { DUMMY_LINK } from '../../native/rtnl/rtnl-types';
export { desiredServicePort } from './desired';
export type { DesiredServicePort, DesiredVS, DesiredContext } from './desired';
export { nodeAddresses } from './node-addresses';
export type { HelperTable, HelperTableSyncInput } from './helper-table-api';
export { IpvsHelperTable } from './helper-table';
export type { HelperTableOptions } from './helper-table-context';
export { formatIpvsListing } from './ipvs-listing';
