// The cluster's Service IP ranges from `networking.k8s.io/v1` ServiceCIDR objects: the union of every
// object's `spec.cidrs`. As upstream's ServiceCIDRConfig, an object counts until its DELETE event,
// whatever its status or deletionTimestamp says (the API server keeps a terminating range's addresses
// allocated until its last Service is gone). Unlike upstream's set, a range two objects share stays
// while either of them has it.
import { isIPv4, isIPv6 } from 'node:net';
import type { V1ServiceCIDR } from '@kubernetes/client-node';
import type { Log } from '../base/log';

/** `addr/prefix` with an IPv4 or IPv6 address and a prefix length valid for its family. */
export function isCidr(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const slash = value.indexOf('/');
  if (slash <= 0) return false;
  const addr = value.slice(0, slash);
  const prefix = value.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return false;
  if (isIPv4(addr)) return Number(prefix) <= 32;
  return isIPv6(addr) && Number(prefix) <= 128;
}

export class ServiceCIDRSet {
  private readonly byObject = new Map<string, string[]>();

  constructor(private readonly log: Log) {}

  /** Records (or replaces) one object's ranges; entries that are not CIDRs are logged and left out. */
  set(obj: V1ServiceCIDR): void {
    const name = obj.metadata?.name ?? '';
    const given: unknown[] = Array.isArray(obj.spec?.cidrs) ? obj.spec!.cidrs! : [];
    const valid = given.filter(isCidr);
    const garbage = given.filter((c) => !isCidr(c));
    if (garbage.length > 0) {
      this.log.warn({ resource: 'servicecidrs', name, invalid: garbage.map((g) => JSON.stringify(g)) },
        `ServiceCIDR ${name}: spec.cidrs has entries that are not CIDRs; they are ignored`);
    }
    this.byObject.set(name, valid);
  }

  delete(obj: V1ServiceCIDR): void {
    this.byObject.delete(obj.metadata?.name ?? '');
  }

  /** Every object's ranges, sorted and without duplicates. */
  cidrs(): string[] {
    return [...new Set([...this.byObject.values()].flat())].sort();
  }
}
