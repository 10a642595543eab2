// Turns Service events into "which ServicePorts changed". Events only touch `pending`; the
// applied map changes only in apply(), so a sync reading it is never disturbed by events.
import type { V1Service } from '@kubernetes/client-node';
import { itemsOf, keptList, keptOneOrMore, setOrDelete, type OneOrMore } from './compact';
import { servicePortEqual } from './equality';
import { serviceName } from './keys';
import { differingFamilies, PendingFamilies } from './pending-families';
import { servicePortsFromService, type ServiceConversionOptions } from './service-conversion';
import type { IPFamily, ModelLog, ServicePort } from './types';

export type EventKind = 'add' | 'update' | 'delete';

export interface ServiceApplyResult {
  changed: Set<string>;
  /** ServicePorts that disappeared, as they were. */
  removed: Map<string, ServicePort>;
  /** Every changed ServicePort that existed before, as it was (the removed ones too). */
  previous: Map<string, ServicePort>;
  /** Events received since the previous apply(). */
  events: number;
}

type PortsByKey = Map<string, ServicePort>;

export class ServiceChangeTracker {
  /** ServicePort key -> ServicePort as of the last apply(). Mutated in place only by apply(). */
  readonly applied = new Map<string, ServicePort>();
  /**
   * Service name -> the keys of its ServicePorts in `applied`. Keys, not a Map of the ports: one
   * small Map per Service cost ~300 bytes, an array of one or two keys a tenth of that, a lone key
   * nothing beyond itself.
   */
  private readonly appliedByService = new Map<string, OneOrMore<string>>();
  /**
   * Service name -> its desired ServicePorts, only for Services that differ from `applied`. A list,
   * not a Map by key: the whole cluster is pending between the first list and the first sync.
   */
  private readonly pending = new Map<string, readonly ServicePort[]>();
  private readonly pendingFamilies = new PendingFamilies();
  private events = 0;

  constructor(
    private readonly families: readonly IPFamily[],
    private readonly log: ModelLog,
    private readonly opts: ServiceConversionOptions = {},
  ) {}

  /** Record an event; true when the Service now has a pending change. */
  update(kind: EventKind, svc: V1Service): boolean {
    const ns = svc.metadata?.namespace;
    const name = svc.metadata?.name;
    if (!ns || !name) {
      this.log.warn({ kind: 'Service', namespace: ns, name }, 'Service event without namespace/name; ignored');
      return false;
    }
    this.events++;
    const id = serviceName(ns, name);
    // What the conversion drops or assumes is said when the Service arrives or its ServicePorts change,
    // not again on every update that changes nothing the proxy reads (status writes, relabels).
    const said: Parameters<ModelLog['warn']>[] = [];
    const desired = kind === 'delete' ? [] : servicePortsFromService(svc, this.families, { warn: (...a) => { said.push(a); } }, this.opts);
    const families = differingFamilies(this.families, byKey(desired), itemsOf(this.appliedByService.get(id)), this.applied, servicePortEqual);
    if (kind === 'add' || families.length > 0) for (const a of said) this.log.warn(...a);
    if (families.length === 0) {
      this.pending.delete(id);
      this.pendingFamilies.delete(id);
      return false;
    }
    this.pending.set(id, keptList(desired));
    this.pendingFamilies.set(id, families);
    return true;
  }

  /**
   * Number of Services with a pending change (upstream's service_changes_pending); with `family`,
   * those whose ServicePorts of that family change (upstream's tracker of that family).
   */
  pendingCount(family?: IPFamily): number {
    return family ? this.pendingFamilies.count(family) : this.pending.size;
  }

  apply(): ServiceApplyResult {
    const result: ServiceApplyResult = { changed: new Set(), removed: new Map(), previous: new Map(), events: this.events };
    for (const [id, ports] of this.pending) {
      const desired = byKey(ports);
      const previous = itemsOf(this.appliedByService.get(id));
      for (const key of previous) {
        if (desired.has(key)) continue;
        result.changed.add(key);
        result.removed.set(key, this.applied.get(key)!);
        result.previous.set(key, this.applied.get(key)!);
        this.applied.delete(key);
      }
      for (const [key, sp] of desired) {
        const old = previous.includes(key) ? this.applied.get(key) : undefined;
        if (old && servicePortEqual(old, sp)) continue;
        result.changed.add(key);
        if (old) result.previous.set(key, old);
        this.applied.set(key, sp);
      }
      setOrDelete(this.appliedByService, id, keptOneOrMore(desired.keys()));
    }
    this.pending.clear();
    this.pendingFamilies.clear();
    this.events = 0;
    return result;
  }
}

function byKey(ports: readonly ServicePort[]): PortsByKey {
  return new Map(ports.map((sp) => [sp.key, sp]));
}
