// The desired state of every ServicePort, indexed the ways a partial sync needs it: which
// ServicePorts want a virtual service and how many want an address bound to kube-ipvs0 (a VIP shared
// by ServicePorts stays while any of them wants it). The model gives every address . protocol . port
// one owner (core/address-ownership), so two ServicePorts want one virtual service only when an
// external or LoadBalancer IP is a node address and its port another Service's NodePort: the address's
// Service gets it, as in the nftables mode, whose address dispatch comes before the NodePort one;
// then the first by key.
import type { DesiredServicePort, DesiredVS } from './desired';

export class Ownership {
  private readonly desired = new Map<string, DesiredServicePort>();
  private readonly owners = new Map<string, Set<string>>();
  private readonly addrRefs = new Map<string, number>();

  keys(): IterableIterator<string> {
    return this.desired.keys();
  }

  /** Replaces a ServicePort's desired state (undefined: it is gone), adding what changes to the touched sets. */
  replace(key: string, next: DesiredServicePort | undefined, touchedVs: Set<string>, touchedAddrs: Set<string>): void {
    const old = this.desired.get(key);
    if (old) {
      for (const vs of old.services.keys()) {
        touchedVs.add(vs);
        const set = this.owners.get(vs);
        if (set?.delete(key) && set.size === 0) this.owners.delete(vs);
      }
      for (const a of old.bind) {
        touchedAddrs.add(a);
        const n = (this.addrRefs.get(a) ?? 0) - 1;
        if (n > 0) this.addrRefs.set(a, n);
        else this.addrRefs.delete(a);
      }
    }
    if (!next) { this.desired.delete(key); return; }
    this.desired.set(key, next);
    for (const vs of next.services.keys()) {
      touchedVs.add(vs);
      let set = this.owners.get(vs);
      if (!set) this.owners.set(vs, set = new Set());
      set.add(key);
    }
    for (const a of next.bind) {
      touchedAddrs.add(a);
      this.addrRefs.set(a, (this.addrRefs.get(a) ?? 0) + 1);
    }
  }

  ownerOf(vs: string): { owner: DesiredVS | undefined; ownerKey?: string; contenders: number } {
    const set = this.owners.get(vs);
    if (!set || set.size === 0) return { owner: undefined, contenders: 0 };
    let first: string | undefined;
    let firstVS: DesiredVS | undefined;
    for (const k of set) {
      const d = this.desired.get(k)?.services.get(vs);
      if (first === undefined || before(d, k, firstVS, first)) { first = k; firstVS = d; }
    }
    return { owner: firstVS, ownerKey: first, contenders: set.size };
  }

  wantsAddress(address: string): boolean {
    return (this.addrRefs.get(address) ?? 0) > 0;
  }
}

/** Whether `a` (ServicePort key `ak`) gets a contested virtual service before `b`: not via a NodePort first, then by key. */
function before(a: DesiredVS | undefined, ak: string, b: DesiredVS | undefined, bk: string): boolean {
  const an = a?.viaNodePort ? 1 : 0;
  const bn = b?.viaNodePort ? 1 : 0;
  return an !== bn ? an < bn : ak < bk;
}
