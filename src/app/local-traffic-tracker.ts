// Per-Service facts that the health-check node ports and the no-local-endpoints gauges need, kept up to
// date from the keys each sync changed, so a sync at 50k Services does not walk all of them.
import type { ChangeSet, IPFamily, ProxySnapshot, ServicePort } from '../core/types';

export interface LocalTrafficView {
  /** namespace/name -> healthCheckNodePort, for Services with externalTrafficPolicy Local. */
  healthCheckPorts: Map<string, number>;
  /** namespace/name -> local endpoints (max over its ports), for those Services. */
  localEndpoints: Map<string, number>;
  /** Counts of ServicePorts with a Local policy and no local endpoint, per family and policy. */
  noLocal: Record<IPFamily, { internal: number; external: number }>;
}

interface Entry { nsName: string; family: IPFamily; hcPort: number; local: number; noLocalInternal: boolean; noLocalExternal: boolean }

/** Holds only ServicePorts with a Local policy: usually a small share of the cluster. */
export class LocalTrafficTracker {
  private readonly entries = new Map<string, Entry>();

  update(snapshot: ProxySnapshot, changes: ChangeSet, full: boolean): void {
    const keys = full ? new Set([...this.entries.keys(), ...snapshot.services.keys()]) : changes.services;
    for (const key of keys) {
      const sp = snapshot.services.get(key);
      if (!sp || !(sp.internalPolicyLocal || sp.externalPolicyLocal)) this.entries.delete(key);
      else this.entries.set(key, this.entryFor(sp, snapshot.endpoints.get(key)?.local.length ?? 0));
    }
  }

  private entryFor(sp: ServicePort, local: number): Entry {
    return {
      nsName: `${sp.namespace}/${sp.name}`,
      family: sp.family,
      hcPort: sp.externalPolicyLocal ? sp.healthCheckNodePort : 0,
      local,
      noLocalInternal: sp.internalPolicyLocal && local === 0,
      noLocalExternal: sp.externalPolicyLocal && local === 0,
    };
  }

  view(): LocalTrafficView {
    const v: LocalTrafficView = {
      healthCheckPorts: new Map(),
      localEndpoints: new Map(),
      noLocal: { IPv4: { internal: 0, external: 0 }, IPv6: { internal: 0, external: 0 } },
    };
    for (const e of this.entries.values()) {
      if (e.noLocalInternal) v.noLocal[e.family].internal++;
      if (e.noLocalExternal) v.noLocal[e.family].external++;
      if (e.hcPort === 0) continue;
      v.healthCheckPorts.set(e.nsName, e.hcPort);
      v.localEndpoints.set(e.nsName, Math.max(v.localEndpoints.get(e.nsName) ?? 0, e.local));
    }
    return v;
  }
}
