// The model's facade: events in, snapshot + change set out. See docs/model.md for the cost model.
import type { V1EndpointSlice, V1Node, V1Service } from '@kubernetes/client-node';
import { AddressOwnership, type RefusedClaim } from './address-ownership';
import { selectEndpoints } from './endpoint-selection';
import { EndpointsChangeTracker, type TriggerTime } from './endpoints-change-tracker';
import { cidrFamilyOf } from './ip';
import { emptyNodeInfo, nodeInfoFromNode, zoneOf } from './node-info';
import { ServedServices } from './served-services';
import { ServiceChangeTracker, type EventKind } from './service-change-tracker';
import type {
  ChangeSet,
  Endpoint,
  IPFamily,
  ModelLog,
  NodeInfo,
  ProxySnapshot,
  SelectedEndpoints,
  ServicePort,
} from './types';

export interface ProxyStateOptions {
  nodeName: string;
  /** Families this proxy programs; ServicePorts of other families are not produced. */
  ipFamilies: IPFamily[];
  log: ModelLog;
  maxPortsPerService?: number;
  /** Trigger-time annotations older than this are ignored (default: construction time). */
  startTime?: Date;
}

export interface TakenChanges {
  /** Live, read-only views: valid until the next takeChanges() (see docs/model.md). */
  snapshot: ProxySnapshot;
  changes: ChangeSet;
  /** Slice trigger times behind this change set, for network_programming_duration_seconds. */
  endpointTriggerTimes: Date[];
  /** The same, each with its slice's family (the ip_family they are observed under). */
  endpointTriggers: TriggerTime[];
  /**
   * Service / EndpointSlice events received since the previous take (for *_changes_total). Every
   * Service event concerns every family (upstream hands each Service to each family's tracker); a
   * slice's, its address type's only.
   */
  serviceChanges: number;
  endpointChanges: number;
  endpointChangesByFamily: Record<IPFamily, number>;
  /** The node's zone changed: every selection was recomputed; the caller should sync fully. */
  topologyChanged: boolean;
  /**
   * Claims on a key another ServicePort owns (core/address-ownership): refused by this take, and
   * refusals this take ended. Each is reported once, when it starts and when it ends.
   */
  claims: { refused: RefusedClaim[]; ended: RefusedClaim[] };
}

export interface PendingCounts {
  services: number;
  endpoints: number;
}

export class ProxyState {
  private readonly services: ServiceChangeTracker;
  private readonly endpoints: EndpointsChangeTracker;
  private readonly selected = new Map<string, SelectedEndpoints>();
  private readonly ownership: AddressOwnership;
  private readonly served: ServedServices;
  private node: NodeInfo;
  private appliedZone = '';
  /** Service CIDRs as last given, and as the last takeChanges() applied them (sorted, unique). */
  private pendingCIDRs: readonly string[] = [];
  private appliedCIDRs: readonly string[] = [];
  private requeued: { changes: ChangeSet; triggers: TriggerTime[] } | undefined;

  constructor(private readonly opts: ProxyStateOptions) {
    if (!opts.nodeName) throw new Error('ProxyState: nodeName must not be empty');
    if (opts.ipFamilies.length === 0) throw new Error('ProxyState: ipFamilies must name at least one family');
    this.services = new ServiceChangeTracker(opts.ipFamilies, opts.log, { maxPortsPerService: opts.maxPortsPerService });
    this.endpoints = new EndpointsChangeTracker({
      nodeName: opts.nodeName,
      ipFamilies: opts.ipFamilies,
      log: opts.log,
      startTime: opts.startTime ?? new Date(),
      sharedKey: (key) => this.services.applied.get(key)?.key ?? key,
    });
    this.ownership = new AddressOwnership(this.services.applied);
    this.served = new ServedServices(this.services.applied, this.ownership.restricted());
    this.node = emptyNodeInfo(opts.nodeName);
  }

  /** True when the Service now has a pending change (a no-op update returns false). */
  onService(kind: EventKind, svc: V1Service): boolean {
    return this.services.update(kind, svc);
  }

  /** True when the slice's Service now has a pending endpoint change. */
  onEndpointSlice(kind: EventKind, slice: V1EndpointSlice): boolean {
    return this.endpoints.update(kind, slice);
  }

  /** This node's object (undefined when deleted). True when the topology zone differs from the last sync's. */
  onNode(node: V1Node | undefined): boolean {
    this.node = nodeInfoFromNode(this.opts.nodeName, node, this.opts.ipFamilies);
    return zoneOf(this.node) !== this.appliedZone;
  }

  /**
   * The cluster's Service CIDRs (every ServiceCIDR's spec.cidrs). Kept sorted and unique; entries that
   * are not CIDRs are logged and left out. True when they differ from the last sync's: a sync is due.
   * No Service is marked changed: the proxy mode rebuilds what depends on the ranges itself.
   */
  onServiceCIDRs(cidrs: readonly string[]): boolean {
    const valid = cidrs.filter((c) => {
      if (cidrFamilyOf(c) !== undefined) return true;
      this.opts.log.warn({ kind: 'ServiceCIDR', cidr: c }, 'Not a CIDR; ignored');
      return false;
    });
    this.pendingCIDRs = [...new Set(valid)].sort();
    return !sameList(this.pendingCIDRs, this.appliedCIDRs);
  }

  pending(): PendingCounts {
    return { services: this.services.pendingCount(), endpoints: this.endpoints.pendingCount() };
  }

  /** pending() for one family: the Services whose ServicePorts, or endpoints, of that family change. */
  pendingOf(family: IPFamily): PendingCounts {
    return { services: this.services.pendingCount(family), endpoints: this.endpoints.pendingCount(family) };
  }

  /**
   * Apply pending events and return what a sync needs. Call it only when no sync is reading the
   * previous snapshot: its maps are updated in place here.
   */
  takeChanges(): TakenChanges {
    const svc = this.services.apply();
    // A removed ServicePort is reported as it was served (conntrack cleanup must not touch keys it never had).
    for (const [key, sp] of svc.removed) svc.removed.set(key, this.ownership.restricted().get(key) ?? sp);
    // So is one changed in place, for the frontends it stops serving (compared below, once served anew).
    const before = new Map<string, ServicePort>();
    for (const [key, sp] of svc.previous) if (!svc.removed.has(key)) before.set(key, this.ownership.restricted().get(key) ?? sp);
    const owned = this.ownership.update(svc.changed, svc.previous);
    for (const key of owned.affected) svc.changed.add(key);
    const eps = this.endpoints.apply();
    const zone = zoneOf(this.node);
    const topologyChanged = zone !== this.appliedZone;
    this.appliedZone = zone;
    this.appliedCIDRs = this.pendingCIDRs;
    // Endpoints of a Service we do not serve (not created yet, or ignored) change nothing to program.
    const changed = new Set(svc.changed);
    for (const key of eps.changed) if (this.services.applied.has(key)) changed.add(key);
    const reselect = topologyChanged ? new Set([...changed, ...this.services.applied.keys()]) : changed;
    for (const key of reselect) this.reselect(key);
    const changedFrontends = new Map<string, ServicePort>();
    for (const [key, sp] of before) {
      const now = this.served.get(key);
      if (now && lostFrontend(sp, now)) changedFrontends.set(key, sp);
    }
    const changes: ChangeSet = {
      services: topologyChanged ? reselect : changed,
      removedEndpoints: eps.removed,
      newlyActive: eps.newlyActive,
      removedServices: svc.removed,
      changedFrontends,
    };
    const taken: TakenChanges = {
      snapshot: this.snapshot(),
      changes,
      endpointTriggerTimes: eps.triggerTimes.map((t) => t.at),
      endpointTriggers: eps.triggerTimes,
      serviceChanges: svc.events,
      endpointChanges: eps.events,
      endpointChangesByFamily: eps.eventsByFamily,
      topologyChanged,
      claims: { refused: owned.refused, ended: owned.ended },
    };
    return this.mergeRequeued(taken);
  }

  /**
   * Hand back the changes of a sync that failed, so the next takeChanges() reports them again
   * (conntrack cleanup and trigger times are not lost). The caller still syncs fully after a failure.
   */
  requeue(taken: Pick<TakenChanges, 'changes' | 'endpointTriggers'>): void {
    const prev = this.requeued;
    this.requeued = {
      changes: prev ? mergeChangeSets(prev.changes, taken.changes) : taken.changes,
      triggers: [...(prev?.triggers ?? []), ...taken.endpointTriggers],
    };
  }

  /** Claims refused as of the last takeChanges(): every ServicePort that lost a key, with its owner. */
  refusedClaims(): RefusedClaim[] {
    return this.ownership.allRefusals();
  }

  /** The current applied state (same live maps takeChanges returns). */
  snapshot(): ProxySnapshot {
    return { services: this.served, endpoints: this.selected, node: this.node, serviceCIDRs: this.appliedCIDRs };
  }

  private reselect(key: string): void {
    const sp: ServicePort | undefined = this.served.get(key);
    if (!sp) {
      this.selected.delete(key);
      return;
    }
    const eps: Endpoint[] = this.endpoints.applied.get(key) ?? [];
    this.selected.set(key, selectEndpoints(eps, sp, { nodeName: this.opts.nodeName, zone: this.appliedZone }));
  }

  private mergeRequeued(taken: TakenChanges): TakenChanges {
    const old = this.requeued;
    if (!old) return taken;
    this.requeued = undefined;
    return {
      ...taken,
      changes: mergeChangeSets(old.changes, taken.changes),
      endpointTriggerTimes: [...old.triggers.map((t) => t.at), ...taken.endpointTriggerTimes],
      endpointTriggers: [...old.triggers, ...taken.endpointTriggers],
    };
  }
}

/** `before` served a frontend `now` does not: an address, its port, or its NodePort. */
function lostFrontend(before: ServicePort, now: ServicePort): boolean {
  if (before.port !== now.port || (before.nodePort !== 0 && before.nodePort !== now.nodePort)) return true;
  if (before.clusterIP !== now.clusterIP || (!before.clusterIPRefused && now.clusterIPRefused)) return true;
  return !before.externalIPs.every((ip) => now.externalIPs.includes(ip)) || !before.loadBalancerIPs.every((ip) => now.loadBalancerIPs.includes(ip));
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** `a` then `b`: later facts win where both speak of the same key. */
function mergeChangeSets(a: ChangeSet, b: ChangeSet): ChangeSet {
  const removedEndpoints = new Map(a.removedEndpoints);
  for (const [key, list] of b.removedEndpoints) removedEndpoints.set(key, [...(removedEndpoints.get(key) ?? []), ...list]);
  const removedServices = new Map(a.removedServices ?? []);
  // What a ServicePort served before `a` (the older state wins).
  const changedFrontends = new Map([...(b.changedFrontends ?? []), ...(a.changedFrontends ?? [])]);
  // A ServicePort removed by `a` and changed but not removed by `b` exists again: what it served
  // before its removal may be stale now.
  for (const key of b.services) {
    const was = removedServices.get(key);
    if (was && !b.removedServices?.has(key)) changedFrontends.set(key, was);
    removedServices.delete(key);
  }
  for (const [key, sp] of b.removedServices ?? []) {
    removedServices.set(key, sp);
    changedFrontends.delete(key);
  }
  return {
    services: new Set([...a.services, ...b.services]),
    removedEndpoints,
    newlyActive: new Set([...(a.newlyActive ?? []), ...(b.newlyActive ?? [])]),
    removedServices,
    changedFrontends,
  };
}
