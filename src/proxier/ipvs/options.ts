// The IPVS proxier's constructor options, checked up front so that bad configuration fails with the
// field's name instead of as a kernel error later.
import type { Clock } from '../../base/clock';
import type { Log } from '../../base/log';
import type { IPFamily } from '../../core/types';
import type { IpvsHandle } from '../../native/ipvs/ipvs-types';
import type { RtnlHandle } from '../../native/rtnl/rtnl-types';
import type { HelperTable } from './helper-table-api';
import { cidrFamilyOf, ipFamilyOf } from '../../core/ip';
import { IPVS_SCHEDULERS } from './config';

export type ProxierLog = Pick<Log, 'debug' | 'info' | 'warn' | 'error'>;

export interface CounterLike { inc(value?: number): void }

export interface IpvsMetrics {
  /** kubeproxy_sync_proxy_rules_ipvs_sync_failures_total: syncs that did not leave the kernel as desired. */
  syncFailures?: CounterLike;
}

export interface IpvsProxierOptions {
  ipvs: IpvsHandle;
  rtnl: RtnlHandle;
  helperTable: HelperTable;
  /** The families whose Services this proxier programs. */
  families: IPFamily[];
  /** IPVS scheduler; '' means rr. */
  scheduler: string;
  /** Virtual services and kube-ipvs0 addresses in these are never adopted, created or removed. */
  excludeCIDRs: string[];
  /** CIDRs and/or `primary`; empty = every local address but kube-ipvs0's, loopback and IPv6 link-local. */
  nodePortAddresses: string[];
  /** This node's primary IPs (for `primary`); empty = the snapshot's node.ips. */
  nodeIPs?: string[];
  log: ProxierLog;
  metrics?: IpvsMetrics;
  clock: Pick<Clock, 'now'>;
  /** A real server being removed gracefully is deleted after this long whatever its connections. Default DEFAULT_GRACEFUL_BOUND_MS. */
  gracefulBoundMs?: number;
}

/**
 * 15 minutes: upstream never gives up on a draining real server, so one long-lived connection keeps
 * it (at weight 0) for as long as it lives; 15 minutes is the default IPVS TCP idle timeout (900 s),
 * after which an idle connection would be gone anyway.
 */
export const DEFAULT_GRACEFUL_BOUND_MS = 15 * 60 * 1000;

const fail = (field: string, msg: string): never => { throw new RangeError(`ipvs proxier options.${field}: ${msg}`); };

function checkCidrs(list: unknown, field: string, allowPrimary: boolean): void {
  if (!Array.isArray(list)) fail(field, 'expected an array of strings');
  (list as unknown[]).forEach((c, i) => {
    if (typeof c !== 'string' || (!(allowPrimary && c === 'primary') && !cidrFamilyOf(c))) {
      fail(`${field}[${i}]`, `${JSON.stringify(c)} is not a CIDR${allowPrimary ? " or 'primary'" : ''}`);
    }
  });
}

const hasMethods = (o: unknown, names: string[]): boolean =>
  typeof o === 'object' && o !== null && names.every((n) => typeof (o as Record<string, unknown>)[n] === 'function');

export function checkOptions(o: IpvsProxierOptions): void {
  if (typeof o !== 'object' || o === null) throw new TypeError('ipvs proxier options: expected an object');
  if (!hasMethods(o.ipvs, ['apply', 'dump', 'dumpDestinations'])) fail('ipvs', 'expected an IpvsHandle');
  if (!hasMethods(o.rtnl, ['ensureDummyLink', 'applyAddresses', 'addresses'])) fail('rtnl', 'expected an RtnlHandle');
  if (!hasMethods(o.helperTable, ['sync'])) fail('helperTable', 'expected a HelperTable');
  if (!Array.isArray(o.families) || o.families.length === 0 || o.families.some((f) => f !== 'IPv4' && f !== 'IPv6')
    || new Set(o.families).size !== o.families.length) fail('families', "expected 'IPv4' and/or 'IPv6', each once");
  if (typeof o.scheduler !== 'string' || (o.scheduler !== '' && !IPVS_SCHEDULERS.includes(o.scheduler))) {
    fail('scheduler', `${JSON.stringify(o.scheduler)} is not one of ${IPVS_SCHEDULERS.join(', ')} or '' (rr)`);
  }
  checkCidrs(o.excludeCIDRs, 'excludeCIDRs', false);
  checkCidrs(o.nodePortAddresses, 'nodePortAddresses', true);
  if (o.nodeIPs !== undefined) {
    if (!Array.isArray(o.nodeIPs)) fail('nodeIPs', 'expected an array of IPs');
    o.nodeIPs.forEach((ip, i) => { if (!ipFamilyOf(ip)) fail(`nodeIPs[${i}]`, `${JSON.stringify(ip)} is not an IP`); });
  }
  if (!hasMethods(o.log, ['debug', 'info', 'warn', 'error'])) fail('log', 'expected a logger with debug, info, warn and error');
  if (!hasMethods(o.clock, ['now'])) fail('clock', 'expected a clock with now()');
  if (o.gracefulBoundMs !== undefined && (!Number.isSafeInteger(o.gracefulBoundMs) || o.gracefulBoundMs < 0)) {
    fail('gracefulBoundMs', `${o.gracefulBoundMs} is not a duration in milliseconds`);
  }
  if (o.metrics?.syncFailures !== undefined && !hasMethods(o.metrics.syncFailures, ['inc'])) fail('metrics.syncFailures', 'expected a counter');
}
