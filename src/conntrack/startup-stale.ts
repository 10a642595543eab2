// Which DNATed UDP/SCTP flows found at start-up are stale (pure). While the proxy was down, Services
// may have lost endpoints; the flows that still DNAT to them are nobody's change any more, so the
// per-sync cleanup (stale-flows.ts) never sees them, and a client that keeps sending (DNS) keeps
// talking to a dead pod. Given the first snapshot and the flows conntrackList returned:
// - orig dst is a Service address (cluster IP, external IP, LoadBalancer IP) and port: stale when
//   the DNAT target (reply source address and port) is not a current endpoint of that ServicePort;
// - otherwise, orig dst is a cluster IP or lies in a Service CIDR: no Service owns that address and
//   port any more, so every DNAT through it is stale;
// - otherwise, orig dst port is a NodePort: stale when the target is not one of its endpoints;
// - anything else was not DNATed by us (a hostPort, another agent's rule) and is never touched.
// Each stale flow becomes an exact filter (orig dst, orig dst port, reply source and port), so a
// delete can only hit flows through that same Service address to that same old endpoint.
import { BlockList } from 'node:net';
import type { Endpoint, ProxySnapshot, ServicePort } from '../core/types';
import type { ConntrackFilter, DnatFlow } from '../native';
import { parseIp } from '../native/wire/addresses';
import { filterKey } from './filter';

export type FlowProtocol = 'udp' | 'sctp';

/** What the planner needs of a snapshot. */
export type StartupSnapshot = Pick<ProxySnapshot, 'services' | 'endpoints' | 'serviceCIDRs'>;

/** One conntrackList result. */
export interface ListedFlows {
  family: 4 | 6;
  protocol: FlowProtocol;
  flows: readonly DnatFlow[];
  /** The listing stopped at its max: more flows exist that nobody looked at. */
  truncated: boolean;
}

export interface StartupStaleLimits {
  /** Flows examined at most, over all lists (default 100000); the rest are skipped and counted. */
  maxEntries?: number;
  /** Filters produced at most (default 10000); stale flows beyond are counted, not deleted. */
  maxFilters?: number;
}

export interface StartupStaleReport {
  examined: number;
  /** Examined flows found stale. */
  stale: number;
  /** Examined flows to a Service whose DNAT target is a current endpoint. */
  live: number;
  /** Examined flows to no Service address, Service CIDR or NodePort: not ours, kept. */
  notOurs: number;
  /** Flows not examined because maxEntries was reached. */
  skippedEntries: number;
  /** Stale flows left without a filter because maxFilters was reached. */
  skippedStale: number;
  /** Lists the kernel dump was cut short for (their remaining flows were never listed). */
  truncatedLists: number;
}

export interface StartupStalePlan {
  filters: ConntrackFilter[];
  report: StartupStaleReport;
}

export const DEFAULT_STARTUP_MAX_ENTRIES = 100_000;
export const DEFAULT_STARTUP_MAX_FILTERS = 10_000;

/** Address bytes as a key, so that every spelling of one IPv6 address is one key; undefined if not an address of `family`. */
function addrKey(ip: string, family: 4 | 6): string | undefined {
  try {
    return parseIp(ip, 'address', family).bytes.join('.');
  } catch {
    return undefined;
  }
}

function flowProtocol(sp: ServicePort): FlowProtocol | undefined {
  return sp.protocol === 'UDP' ? 'udp' : sp.protocol === 'SCTP' ? 'sctp' : undefined;
}

/** Who owns what, for one family and protocol. */
interface Owners {
  /** "addr|port" of a Service address -> "addr|port" of its current endpoints (all ServicePorts there). */
  byAddrPort: Map<string, Set<string>>;
  byNodePort: Map<number, Set<string>>;
  clusterIPs: Set<string>;
  cidrs: BlockList;
}

function endpointKeys(eps: readonly Endpoint[], family: 4 | 6): string[] {
  const out: string[] = [];
  for (const ep of eps) {
    const a = addrKey(ep.ip, family);
    if (a !== undefined) out.push(`${a}|${ep.port}`);
  }
  return out;
}

function addAll<K>(map: Map<K, Set<string>>, key: K, values: readonly string[]): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  for (const v of values) set.add(v);
}

function serviceCidrs(cidrs: readonly string[] | undefined, family: 4 | 6): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs ?? []) {
    const [net, prefix] = cidr.split('/');
    if (addrKey(net, family) === undefined) continue;
    try {
      list.addSubnet(net, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    } catch {
      // Not a valid CIDR: ProxyState filters those out; nothing to protect here.
    }
  }
  return list;
}

function owners(snapshot: StartupSnapshot, family: 4 | 6, protocol: FlowProtocol): Owners {
  const o: Owners = { byAddrPort: new Map(), byNodePort: new Map(), clusterIPs: new Set(), cidrs: serviceCidrs(snapshot.serviceCIDRs, family) };
  for (const sp of snapshot.services.values()) {
    if ((sp.family === 'IPv6' ? 6 : 4) !== family) continue;
    // A cluster IP is ours for every protocol: no one else DNATs it.
    const served = sp.clusterIPRefused ? undefined : sp.clusterIP;
    const cluster = served ? addrKey(served, family) : undefined;
    if (cluster !== undefined) o.clusterIPs.add(cluster);
    if (flowProtocol(sp) !== protocol) continue;
    const sel = snapshot.endpoints.get(sp.key);
    const live = endpointKeys([...(sel?.allReachable ?? []), ...(sel?.cluster ?? []), ...(sel?.local ?? [])], family);
    for (const ip of [served, ...sp.externalIPs, ...sp.loadBalancerIPs]) {
      const a = ip ? addrKey(ip, family) : undefined;
      if (a !== undefined) addAll(o.byAddrPort, `${a}|${sp.port}`, live);
    }
    if (sp.nodePort > 0) addAll(o.byNodePort, sp.nodePort, live);
  }
  return o;
}

type Verdict = 'stale' | 'live' | 'notOurs';

function classify(o: Owners, flow: DnatFlow, family: 4 | 6): Verdict {
  const dst = addrKey(flow.origDst, family);
  const target = addrKey(flow.replySrc, family);
  if (dst === undefined || target === undefined) return 'notOurs';
  const endpoint = `${target}|${flow.replySrcPort}`;
  const service = o.byAddrPort.get(`${dst}|${flow.origDstPort}`);
  if (service) return service.has(endpoint) ? 'live' : 'stale';
  if (o.clusterIPs.has(dst) || o.cidrs.check(flow.origDst, family === 4 ? 'ipv4' : 'ipv6')) return 'stale';
  const nodePort = o.byNodePort.get(flow.origDstPort);
  if (nodePort) return nodePort.has(endpoint) ? 'live' : 'stale';
  return 'notOurs';
}

function exactFilter(flow: DnatFlow, family: 4 | 6, protocol: FlowProtocol): ConntrackFilter {
  return { family, protocol, origDst: flow.origDst, origDstPort: flow.origDstPort, replySrc: flow.replySrc, replySrcPort: flow.replySrcPort };
}

/** The delete filters for the stale flows among `lists`, and what was looked at and skipped. */
export function planStartupStaleFlows(snapshot: StartupSnapshot, lists: readonly ListedFlows[], limits: StartupStaleLimits = {}): StartupStalePlan {
  const maxEntries = limits.maxEntries ?? DEFAULT_STARTUP_MAX_ENTRIES;
  const maxFilters = limits.maxFilters ?? DEFAULT_STARTUP_MAX_FILTERS;
  const report: StartupStaleReport = { examined: 0, stale: 0, live: 0, notOurs: 0, skippedEntries: 0, skippedStale: 0, truncatedLists: 0 };
  const filters = new Map<string, ConntrackFilter>();
  for (const list of lists) {
    if (list.truncated) report.truncatedLists++;
    const room = Math.max(0, maxEntries - report.examined);
    report.skippedEntries += Math.max(0, list.flows.length - room);
    // An empty list (SCTP nearly always, often a family) needs no owners: building them reads every
    // ServicePort's addresses, ~0.1 s per list at 44k Services, on the first sync's path.
    if (room === 0 || list.flows.length === 0) continue;
    const o = owners(snapshot, list.family, list.protocol);
    for (const flow of list.flows.slice(0, room)) {
      report.examined++;
      const verdict = classify(o, flow, list.family);
      if (verdict !== 'stale') {
        report[verdict]++;
        continue;
      }
      report.stale++;
      const f = exactFilter(flow, list.family, list.protocol);
      const key = filterKey(f);
      if (filters.has(key)) continue;
      if (filters.size >= maxFilters) report.skippedStale++;
      else filters.set(key, f);
    }
  }
  return { filters: [...filters.values()], report };
}
