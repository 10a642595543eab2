// Which conntrack flows a sync made stale (pure). For UDP and SCTP ServicePorts:
// - an endpoint went away: flows to any of the Service's addresses (cluster IP, external IPs,
//   LoadBalancer IPs with the Service port; any address with the NodePort) that were DNATed to
//   that endpoint. Without this, a client keeps sending to the dead endpoint for as long as it
//   keeps the flow alive (the classic DNS-pod-restart outage, kubernetes#19029).
// - the ServicePort went from no endpoints to some: the flows to its addresses that were not
//   DNATed; they were sent where no rule translated them (before the Service's rules existed, or
//   while our rules were gone) and would keep going there. DNATed flows to its current endpoints
//   are left alone: the first sync of a restarted proxy finds every ServicePort "newly active",
//   and its live flows must survive (the start-up pass deletes the DNATed ones that went stale).
// - the ServicePort was removed: every flow to its addresses, which still DNAT to old endpoints.
// - the ServicePort stopped serving a frontend (an address, its port, its NodePort: an update, or a
//   Service deleted and created again under its name between two syncs): every flow to that frontend.
// TCP is left alone: its flows end with the connection, and the endpoint's RST ends them sooner.
import type { ChangeSet, Endpoint, ProxySnapshot, ServicePort } from '../core/types';
import type { ConntrackFilter, ConntrackProtocol } from '../native';
import { filterKey } from './filter';

type FlowProtocol = Exclude<ConntrackProtocol, 'tcp'>;

function flowProtocol(sp: ServicePort): FlowProtocol | undefined {
  if (sp.protocol === 'UDP') return 'udp';
  if (sp.protocol === 'SCTP') return 'sctp';
  return undefined;
}

function familyOf(sp: ServicePort): 4 | 6 {
  return sp.family === 'IPv6' ? 6 : 4;
}

function ipFamily(ip: string): 4 | 6 {
  return ip.includes(':') ? 6 : 4;
}

/** The Service's own addresses (not NodePort) in its family, without duplicates or blanks. */
function serviceIPs(sp: ServicePort): string[] {
  const fam = familyOf(sp);
  const ips = [...(sp.clusterIPRefused ? [] : [sp.clusterIP]), ...sp.externalIPs, ...sp.loadBalancerIPs].filter((ip) => ip && ipFamily(ip) === fam);
  return [...new Set(ips)];
}

/** Flows to the ServicePort, optionally only those DNATed to one endpoint, or only those not DNATed. */
function flowsTo(sp: ServicePort, proto: FlowProtocol, ep?: Endpoint, onlyUntranslated = false): ConntrackFilter[] {
  const family = familyOf(sp);
  const reply = ep ? { replySrc: ep.ip, replySrcPort: ep.port } : onlyUntranslated ? { dnat: false } : {};
  const out: ConntrackFilter[] = serviceIPs(sp).map((ip) => ({ family, protocol: proto, origDst: ip, origDstPort: sp.port, ...reply }));
  if (sp.nodePort > 0) out.push({ family, protocol: proto, origDstPort: sp.nodePort, ...reply });
  return out;
}

function removedEndpointFlows(sp: ServicePort, proto: FlowProtocol, removed: readonly Endpoint[]): ConntrackFilter[] {
  const fam = familyOf(sp);
  return removed.filter((ep) => ep.ip && ipFamily(ep.ip) === fam && ep.port > 0).flatMap((ep) => flowsTo(sp, proto, ep));
}

/**
 * Filters for the flows made stale by `changes`, given the snapshot after the sync. Removed
 * ServicePorts are looked up in `changes.removedServices` (their state at the previous sync).
 */
export function staleFlowFilters(snapshot: Pick<ProxySnapshot, 'services'>, changes: ChangeSet): ConntrackFilter[] {
  const out = new Map<string, ConntrackFilter>();
  const add = (filters: ConntrackFilter[]): void => {
    for (const f of filters) out.set(filterKey(f), f);
  };
  const lookup = (key: string): ServicePort | undefined => snapshot.services.get(key) ?? changes.removedServices?.get(key);

  for (const [key, removed] of changes.removedEndpoints) {
    const sp = lookup(key);
    const proto = sp && flowProtocol(sp);
    if (sp && proto) add(removedEndpointFlows(sp, proto, removed));
  }
  for (const key of changes.newlyActive ?? []) {
    const sp = snapshot.services.get(key);
    const proto = sp && flowProtocol(sp);
    if (sp && proto) add(flowsTo(sp, proto, undefined, true));
  }
  for (const [key, sp] of changes.removedServices ?? []) {
    const proto = flowProtocol(sp);
    if (proto && !snapshot.services.has(key)) add(flowsTo(sp, proto));
  }
  for (const [key, before] of changes.changedFrontends ?? []) {
    const now = snapshot.services.get(key);
    const proto = flowProtocol(before);
    if (now && proto) add(lostFrontendFlows(before, now, proto));
  }
  return dropCovered([...out.values()]);
}

/** Flows to the frontends `before` served and `now` does not (both the same ServicePort key). */
function lostFrontendFlows(before: ServicePort, now: ServicePort, proto: FlowProtocol): ConntrackFilter[] {
  const family = familyOf(before);
  const kept = new Set(before.port === now.port ? serviceIPs(now) : []);
  const out: ConntrackFilter[] = serviceIPs(before).filter((ip) => !kept.has(ip)).map((ip) => ({ family, protocol: proto, origDst: ip, origDstPort: before.port }));
  if (before.nodePort > 0 && before.nodePort !== now.nodePort) out.push({ family, protocol: proto, origDstPort: before.nodePort });
  return out;
}

/** A filter with reply fields is redundant next to the same one without them (it deletes a subset). */
export function dropCovered(filters: ConntrackFilter[]): ConntrackFilter[] {
  const broad = new Set(filters.filter((f) => f.replySrc === undefined && f.replySrcPort === undefined).map(filterKey));
  return filters.filter((f) => {
    if (f.replySrc === undefined && f.replySrcPort === undefined) return true;
    return !broad.has(filterKey({ ...f, replySrc: undefined, replySrcPort: undefined }));
  });
}
