// Per-Service facts that the health-check node ports and the no-local-endpoints gauges need, kept up to
// date from the keys each sync changed, so a sync at 50k Services does not walk all of them.
import type { ChangeSet, Endpoint, IPFamily, ProxySnapshot, SelectedEndpoints, ServicePort } from '../core/types';
import type { HealthCheckClaim } from '../health';

export interface LocalTrafficView {
  /**
   * namespace/name -> healthCheckNodePort, for Services with externalTrafficPolicy Local, with the
   * Service's age: of two Services given one port, the older gets it (health-check-port-owner.ts).
   */
  healthCheckPorts: Map<string, HealthCheckClaim>;
  /**
   * namespace/name -> local READY endpoints, for those Services: as upstream's
   * EndpointsMap.LocalReadyEndpoints, distinct IPs over all the Service's ports (serving-terminating
   * ones do not count: a node with only those must fail the check). Upstream counts per family, in the
   * family's own proxier; one server serves both families here, so it reports the larger family's count.
   */
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

interface Entry { nsName: string; family: IPFamily; hcPort: number; created?: number; uid?: string; readyLocalIps: readonly string[]; noLocalInternal: boolean; noLocalExternal: boolean }

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

  private entryFor(sp: ServicePort, selected: SelectedEndpoints | undefined): Entry {
    const local = selected?.local.length ?? 0;
    const dropped = (selected?.hasAny ?? false) && local === 0;
    // Under a Local policy `local` holds every ready local endpoint; a Service not reachable from
    // outside yet (no node port, no load-balancer IP) has them in `allReachable` only.
    const ready = (list: readonly Endpoint[] = []): string[] => list.filter((ep) => ep.isLocal && ep.ready).map((ep) => ep.ip);
    return {
      nsName: `${sp.namespace}/${sp.name}`,
      family: sp.family,
      hcPort: sp.externalPolicyLocal ? sp.healthCheckNodePort : 0,
      created: sp.created,
      uid: sp.uid,
      readyLocalIps: [...new Set([...ready(selected?.local), ...ready(selected?.allReachable)])],
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
    const ips = new Map<string, Record<IPFamily, Set<string>>>();
    for (const e of this.entries.values()) {
      if (e.noLocalInternal) v.noLocal[e.family].internal++;
      if (e.noLocalExternal) v.noLocal[e.family].external++;
      if (e.hcPort === 0) continue;
      v.healthCheckPorts.set(e.nsName, { port: e.hcPort, ...(e.created !== undefined ? { created: e.created } : {}), ...(e.uid !== undefined ? { uid: e.uid } : {}) });
      let sets = ips.get(e.nsName);
      if (!sets) ips.set(e.nsName, (sets = { IPv4: new Set(), IPv6: new Set() }));
      for (const ip of e.readyLocalIps) sets[e.family].add(ip);
    }
    for (const [nsName, sets] of ips) v.localEndpoints.set(nsName, Math.max(sets.IPv4.size, sets.IPv6.size));
    return v;
  }
}
