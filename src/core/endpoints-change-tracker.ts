// Turns EndpointSlice events into "which ServicePorts' endpoints changed". Slices are parsed on
// arrival and kept per Service; a Service's slices are re-merged on each of its events (cost:
// that Service's endpoints, never the cluster's) and compared with what was last applied.
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { endpointListEqual } from './equality';
import { differingFamilies, PendingFamilies } from './pending-families';
import { itemsOf, keptList, keptOneOrMore, setOrDelete, type OneOrMore } from './compact';
import { mergeSlices, parseEndpointSlice, sliceIdentity, sliceTriggerTime, type ParsedSlice } from './endpoint-conversion';
import { endpointKey, sliceKey } from './keys';
import type { EventKind } from './service-change-tracker';
import type { Endpoint, IPFamily, ModelLog } from './types';

export interface EndpointsApplyResult {
  changed: Set<string>;
  /** Per ServicePort key: endpoints that were serving and are now gone or not serving. */
  removed: Map<string, Endpoint[]>;
  /** ServicePort keys that went from no usable endpoint to at least one. */
  newlyActive: Set<string>;
  /** `last-change-trigger-time` values of the slices behind the applied changes, with the slices' family. */
  triggerTimes: TriggerTime[];
  events: number;
  /** Events by the slice's address type, for the families served (upstream hands a slice to its family's tracker only). */
  eventsByFamily: Record<IPFamily, number>;
}

export interface TriggerTime {
  family: IPFamily;
  at: Date;
}

/**
 * A Service's merged lists while pending, as [key, list] pairs: a Map per Service costs ~230 bytes
 * and the whole cluster is pending between the first list and the first sync (docs/memory.md).
 */
type PendingLists = ReadonlyArray<readonly [string, Endpoint[]]>;

export interface EndpointsChangeTrackerOptions {
  nodeName: string;
  /** Slices of other address types are treated as absent. */
  ipFamilies: readonly IPFamily[];
  log: ModelLog;
  /** Trigger times before this are ignored: after a restart they would report the downtime. */
  startTime?: Date;
  /**
   * The kept copy of a ServicePort key, if another map holds one (ProxyState: the ServicePort's own
   * `key`), so that the maps share one string rather than each keeping its own (docs/memory.md).
   */
  sharedKey?: (key: string) => string;
}

export class EndpointsChangeTracker {
  /** ServicePort key -> endpoints as of the last apply(). Mutated in place only by apply(). */
  readonly applied = new Map<string, Endpoint[]>();
  /** Service -> the keys of its lists in `applied` (keys, not a Map per Service: see ServiceChangeTracker). */
  private readonly appliedByService = new Map<string, OneOrMore<string>>();
  /** Service -> its parsed slices (a Service has one slice, or a few). */
  private readonly slices = new Map<string, OneOrMore<ParsedSlice>>();
  private readonly pending = new Map<string, PendingLists>();
  private readonly pendingFamilies = new PendingFamilies();
  /** `namespace/sliceName` -> the Service it was stored under. */
  private readonly owner = new Map<string, string>();
  private readonly triggerTimes = new Map<string, TriggerTime[]>();
  private events = 0;
  private eventsByFamily: Record<IPFamily, number> = { IPv4: 0, IPv6: 0 };

  constructor(private readonly opts: EndpointsChangeTrackerOptions) {}

  private sharedKey(key: string): string {
    return this.opts.sharedKey?.(key) ?? key;
  }

  /**
   * Record an event; true when a Service now has a pending change. A slice whose
   * `kubernetes.io/service-name` label changed or vanished leaves its former Service.
   */
  update(kind: EventKind, slice: V1EndpointSlice): boolean {
    const ns = slice.metadata?.namespace;
    const name = slice.metadata?.name;
    const ownerKey = ns && name ? sliceKey(ns, name) : undefined;
    const former = ownerKey === undefined ? undefined : this.owner.get(ownerKey);
    const id = sliceIdentity(slice, this.opts.log);
    if (!id && former === undefined) return false;
    this.events++;
    const family = slice.addressType;
    if ((family === 'IPv4' || family === 'IPv6') && this.opts.ipFamilies.includes(family)) this.eventsByFamily[family]++;
    let changed = false;
    if (former !== undefined && former !== id?.service) {
      this.storeSlice(former, name!, undefined);
      this.owner.delete(ownerKey!);
      changed = this.refresh(former, undefined);
    }
    if (!id) return changed;
    const parsed = kind === 'delete' ? undefined : parseEndpointSlice(slice, this.opts.nodeName, this.opts.log);
    const trigger = parsed ? sliceTriggerTime(slice, this.opts.log) : undefined;
    const served = parsed && this.opts.ipFamilies.includes(parsed.family) ? parsed : undefined;
    this.storeSlice(id.service, id.name, served);
    if (served) this.owner.set(ownerKey!, id.service);
    else this.owner.delete(ownerKey!);
    return this.refresh(id.service, served && trigger ? { family: served.family, at: trigger } : undefined) || changed;
  }

  /** Re-merge one Service's slices; pending only if that differs from what was applied. */
  private refresh(service: string, trigger: TriggerTime | undefined): boolean {
    const merged = mergeSlices(itemsOf(this.slices.get(service)));
    const families = differingFamilies(this.opts.ipFamilies, merged, itemsOf(this.appliedByService.get(service)), this.applied, endpointListEqual);
    if (families.length === 0) {
      this.pending.delete(service);
      this.pendingFamilies.delete(service);
      this.triggerTimes.delete(service);
      return false;
    }
    this.pending.set(service, keptList(merged));
    this.pendingFamilies.set(service, families);
    this.recordTrigger(service, trigger);
    return true;
  }

  /**
   * Number of Services with pending endpoint changes (upstream's endpoint_changes_pending); with
   * `family`, those whose endpoints of that family change.
   */
  pendingCount(family?: IPFamily): number {
    return family ? this.pendingFamilies.count(family) : this.pending.size;
  }

  apply(): EndpointsApplyResult {
    const result: EndpointsApplyResult = {
      changed: new Set(),
      removed: new Map(),
      newlyActive: new Set(),
      triggerTimes: [...this.triggerTimes.values()].flat(),
      events: this.events,
      eventsByFamily: this.eventsByFamily,
    };
    for (const [service, lists] of this.pending) {
      const merged = new Map(lists);
      const previous = itemsOf(this.appliedByService.get(service));
      for (const key of new Set([...previous, ...merged.keys()])) {
        this.applyKey(key, this.applied.get(key) ?? [], merged.get(key) ?? [], result);
      }
      setOrDelete(this.appliedByService, service, keptOneOrMore([...merged.keys()].map((k) => this.sharedKey(k))));
    }
    this.pending.clear();
    this.pendingFamilies.clear();
    this.triggerTimes.clear();
    this.events = 0;
    this.eventsByFamily = { IPv4: 0, IPv6: 0 };
    return result;
  }

  private applyKey(key: string, before: Endpoint[], after: Endpoint[], result: EndpointsApplyResult): void {
    if (endpointListEqual(before, after)) return;
    result.changed.add(key);
    const gone = noLongerServing(before, after);
    if (gone.length > 0) result.removed.set(key, gone);
    if (!before.some(usable) && after.some(usable)) result.newlyActive.add(key);
    if (after.length > 0) this.applied.set(this.sharedKey(key), after);
    else this.applied.delete(key);
  }

  private storeSlice(service: string, name: string, parsed: ParsedSlice | undefined): void {
    const kept = itemsOf(this.slices.get(service)).filter((s) => s.name !== name);
    if (parsed) kept.push(parsed);
    setOrDelete(this.slices, service, keptOneOrMore(kept));
  }

  private recordTrigger(service: string, t: TriggerTime | undefined): void {
    if (!t || (this.opts.startTime && t.at < this.opts.startTime)) return;
    const list = this.triggerTimes.get(service);
    if (list) list.push(t);
    else this.triggerTimes.set(service, [t]);
  }
}

/** Ready, or serving while terminating: what selection may send traffic to. */
function usable(ep: Endpoint): boolean {
  return ep.ready || (ep.serving && ep.terminating);
}

function noLongerServing(before: readonly Endpoint[], after: readonly Endpoint[]): Endpoint[] {
  const stillServing = new Set(after.filter((ep) => ep.serving).map((ep) => endpointKey(ep.ip, ep.port)));
  return before.filter((ep) => ep.serving && !stillServing.has(endpointKey(ep.ip, ep.port)));
}
