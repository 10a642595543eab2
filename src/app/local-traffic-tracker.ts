// Per-Service facts that the health-check node ports and the no-local-endpoints gauges need, kept up to
// date from the keys each sync changed, so a sync at 50k Services does not walk all of them.
import type { ChangeSet, IPFamily, ProxySnapshot, SelectedEndpoints, ServicePort } from '../core/types';

export interface LocalTrafficView {
  /** namespace/name -> healthCheckNodePort, for Services with externalTrafficPolicy Local. */
  healthCheckPorts: Map<string, number>;
  /** namespace/name -> local endpoints (max over its ports), for those Services. */
  localEndpoints: Map<string, number>;
  /**
   * ServicePorts whose Local policy drops their traffic, per family and policy, as upstream's
   * nftables proxier counts them (syncProxyRules: serviceNoLocalEndpointsTotalInternal/External):
   * the Service has a usable endpoint somewhere (ready, or serving and terminating) but none of the
   * local ones its Local policy would use. A ServicePort with no endpoint at all is rejected, not
   * counted; `external` only concerns externally reachable Services (NodePort, LoadBalancer,
   * external IPs), whose externalPolicyLocal the model sets only then.
   */
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
      else this.entries.set(key, this.entryFor(sp, snapshot.endpoints.get(key)));
    }
  }

  private entryFor(sp: ServicePort, sel: SelectedEndpoints | undefined): Entry {
    const local = sel?.local.length ?? 0;
    const dropped = (sel?.hasAny ?? false) && local === 0;
    return {
      nsName: `${sp.namespace}/${sp.name}`,
      family: sp.family,
      hcPort: sp.externalPolicyLocal ? sp.healthCheckNodePort : 0,
      local,
      noLocalInternal: sp.internalPolicyLocal && dropped,
      noLocalExternal: sp.externalPolicyLocal && dropped,
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
