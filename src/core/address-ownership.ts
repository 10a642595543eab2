// One owner per dispatch key. Every key a proxy mode dispatches on (address . protocol . port, and
// family . protocol . NodePort) belongs to exactly one ServicePort; the others that claim it lose that
// key, and only that key, before any proxy mode sees them. Without this the kernel's maps and sets
// each kept their own first claimant, so a rollout of the victim could leave its ClusterIP pointing
// at another Service's pods (docs/failure-modes.md, "Two Services claim one address").
//
// The rule (docs/upstream-differences.md): a ClusterIP, which the API server allocates uniquely,
// beats an external IP or a LoadBalancer IP; otherwise the older Service wins (creationTimestamp,
// then UID), and within one Service the ServicePort key decides. It depends on the objects alone,
// never on the order events arrived in.
//
// Incremental: only the entries a changed ServicePort claims or claimed are resolved again, so a
// sync's cost stays with what changed. The index holds a reference to strings the model keeps (the
// addresses, the ServicePort keys) and a number per NodePort: no string is made per entry.
import { itemsOf, keptOneOrMore, setOrDelete, type OneOrMore } from './compact';
import type { IPFamily, Protocol, ServicePort } from './types';

export type ClaimKind = 'clusterIP' | 'externalIP' | 'loadBalancerIP' | 'nodePort';

/** A key `claimant` wants and `owner` has. `address` is '' for a NodePort. */
export interface RefusedClaim {
  claimant: string;
  /** The claimant Service's metadata.uid, when known: its Warning event names the Service by it. */
  claimantUid?: string;
  claimantKind: ClaimKind;
  owner: string;
  ownerKind: ClaimKind;
  family: IPFamily;
  protocol: Protocol;
  address: string;
  port: number;
  /** Why the owner wins, in words (logs, events, explain). */
  reason: string;
}

/** What a resolution changed: claims refused that were not before, and refusals that ended. */
export interface OwnershipChanges {
  refused: RefusedClaim[];
  ended: RefusedClaim[];
  /** ServicePorts whose served keys changed though the ServicePort itself did not. */
  affected: Set<string>;
}

const PROTOCOLS: readonly Protocol[] = ['TCP', 'UDP', 'SCTP'];

/** A NodePort's index key: family, protocol and port in one number (no string per entry). */
function nodePortId(family: IPFamily, protocol: Protocol, port: number): number {
  return ((family === 'IPv6' ? 4 : 0) + PROTOCOLS.indexOf(protocol)) * 65536 + port;
}

/** The kind of `sp`'s claim on `address` (a ServicePort may list its own ClusterIP again: that one counts). */
function kindOf(sp: ServicePort, address: string): ClaimKind | undefined {
  if (sp.clusterIP === address) return 'clusterIP';
  if (sp.externalIPs.includes(address)) return 'externalIP';
  if (sp.loadBalancerIPs.includes(address)) return 'loadBalancerIP';
  return undefined;
}

/** Every address `sp` claims, once. */
function addressesOf(sp: ServicePort): readonly string[] {
  if (sp.externalIPs.length === 0 && sp.loadBalancerIPs.length === 0) return [sp.clusterIP];
  return [...new Set([sp.clusterIP, ...sp.externalIPs, ...sp.loadBalancerIPs])];
}

const NEVER = Number.MAX_SAFE_INTEGER;

/** Negative when `a`'s claim beats `b`'s. */
function compareClaims(a: ServicePort, aKind: ClaimKind, b: ServicePort, bKind: ClaimKind): number {
  const cluster = (k: ClaimKind) => (k === 'clusterIP' ? 0 : 1);
  return cluster(aKind) - cluster(bKind)
    || (a.created ?? NEVER) - (b.created ?? NEVER)
    || cmp(a.uid ?? '', b.uid ?? '')
    || cmp(a.key, b.key);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Why `owner` beats `claimant`, for people. */
function reasonFor(owner: ServicePort, ownerKind: ClaimKind, claimant: ServicePort, claimantKind: ClaimKind): string {
  if (ownerKind === 'clusterIP' && claimantKind !== 'clusterIP') return 'a ClusterIP beats an external or load-balancer IP';
  if ((owner.created ?? NEVER) !== (claimant.created ?? NEVER)) return 'the older Service wins';
  if ((owner.uid ?? '') !== (claimant.uid ?? '')) return 'created in the same second: the lower UID wins';
  return 'within one Service, the first port key wins';
}

interface Lost {
  /** Addresses this ServicePort may not serve on its port. */
  addresses: readonly string[];
  nodePort: boolean;
  refusals: RefusedClaim[];
}

export class AddressOwnership {
  private readonly byAddress = new Map<string, OneOrMore<string>>();
  private readonly byNodePort = new Map<number, OneOrMore<string>>();
  /** ServicePort key -> what it lost (only ServicePorts that lost something). */
  private readonly lost = new Map<string, Lost>();
  /** ServicePort key -> the ServicePort as served (only those that lost something). */
  private readonly served = new Map<string, ServicePort>();

  /** `raw`: the ServicePorts as converted (the tracker's applied map). */
  constructor(private readonly raw: ReadonlyMap<string, ServicePort>) {}

  /** The ServicePorts served with less than they claim, as served (a live map; the rest are served as they are). */
  restricted(): ReadonlyMap<string, ServicePort> {
    return this.served;
  }

  /** Every refused claim, those others made on `key`'s addresses included. */
  allRefusals(): RefusedClaim[] {
    return [...this.lost.values()].flatMap((l) => l.refusals);
  }

  /**
   * Resolve again after the ServicePorts in `changed` changed in `raw`; `previous` holds each one's
   * value before the change (absent: it is new).
   */
  update(changed: Iterable<string>, previous: ReadonlyMap<string, ServicePort>): OwnershipChanges {
    const touchedAddresses = new Set<string>();
    const touchedNodePorts = new Set<number>();
    const affected = new Set<string>();
    for (const key of changed) {
      affected.add(key);
      const before = previous.get(key);
      if (before) this.index(before, false, touchedAddresses, touchedNodePorts);
      const now = this.raw.get(key);
      if (now) this.index(now, true, touchedAddresses, touchedNodePorts);
    }
    for (const a of touchedAddresses) for (const k of itemsOf(this.byAddress.get(a))) affected.add(k);
    for (const n of touchedNodePorts) for (const k of itemsOf(this.byNodePort.get(n))) affected.add(k);
    return this.resolve(affected, new Set(changed));
  }

  private index(sp: ServicePort, add: boolean, addresses: Set<string>, nodePorts: Set<number>): void {
    for (const a of addressesOf(sp)) {
      addresses.add(a);
      edit(this.byAddress, a, sp.key, add);
    }
    if (sp.nodePort !== 0) {
      const id = nodePortId(sp.family, sp.protocol, sp.nodePort);
      nodePorts.add(id);
      edit(this.byNodePort, id, sp.key, add);
    }
  }

  private resolve(affected: Set<string>, changed: ReadonlySet<string>): OwnershipChanges {
    const out: OwnershipChanges = { refused: [], ended: [], affected: new Set() };
    for (const key of affected) {
      const sp = this.raw.get(key);
      const old = this.lost.get(key);
      const now = sp ? this.lostBy(sp) : undefined;
      if (old === undefined && now === undefined) continue; // the common case: it owns every key it claims, as before
      setOrDelete(this.lost, key, now);
      const oldIds = new Set((old?.refusals ?? []).map(refusalId));
      const nowIds = new Set((now?.refusals ?? []).map(refusalId));
      for (const r of now?.refusals ?? []) if (!oldIds.has(refusalId(r))) out.refused.push(r);
      for (const r of old?.refusals ?? []) if (!nowIds.has(refusalId(r))) out.ended.push(r);
      const servedBefore = this.served.get(key);
      setOrDelete(this.served, key, sp && now ? restrictedCopy(sp, now) : undefined);
      if (!changed.has(key) && sp && !sameLoss(servedBefore, this.served.get(key))) out.affected.add(key);
    }
    return out;
  }

  /** What `sp` loses to the owners of its keys, or undefined when it owns them all. */
  private lostBy(sp: ServicePort): Lost | undefined {
    const refusals: RefusedClaim[] = [];
    const addresses: string[] = [];
    for (const a of addressesOf(sp)) {
      const r = this.refusal(sp, kindOf(sp, a)!, a, itemsOf(this.byAddress.get(a)), (o) => kindOf(o, a));
      if (r) { refusals.push(r); addresses.push(a); }
    }
    let nodePort = false;
    if (sp.nodePort !== 0) {
      const claimants = itemsOf(this.byNodePort.get(nodePortId(sp.family, sp.protocol, sp.nodePort)));
      const r = this.refusal(sp, 'nodePort', '', claimants, () => 'nodePort');
      if (r) { refusals.push(r); nodePort = true; }
    }
    return refusals.length === 0 ? undefined : { addresses, nodePort, refusals };
  }

  /** The refusal of `sp`'s claim on one entry, or undefined when `sp` wins it. */
  private refusal(sp: ServicePort, kind: ClaimKind, address: string, claimants: readonly string[],
    kindOfOther: (o: ServicePort) => ClaimKind | undefined): RefusedClaim | undefined {
    let owner: ServicePort | undefined;
    let ownerKind: ClaimKind = kind;
    for (const k of claimants) {
      if (k === sp.key) continue;
      const o = this.raw.get(k);
      if (!o || o.protocol !== sp.protocol || (kind === 'nodePort' ? o.nodePort !== sp.nodePort : o.port !== sp.port)) continue;
      const ok = kindOfOther(o);
      if (!ok || compareClaims(o, ok, sp, kind) >= 0) continue;
      if (!owner || compareClaims(o, ok, owner, ownerKind) < 0) { owner = o; ownerKind = ok; }
    }
    if (!owner) return undefined;
    return {
      claimant: sp.key, claimantUid: sp.uid, claimantKind: kind, owner: owner.key, ownerKind, family: sp.family, protocol: sp.protocol,
      address, port: kind === 'nodePort' ? sp.nodePort : sp.port, reason: reasonFor(owner, ownerKind, sp, kind),
    };
  }
}

function edit<K>(m: Map<K, OneOrMore<string>>, k: K, key: string, add: boolean): void {
  const items = itemsOf(m.get(k));
  if (add === items.includes(key)) return;
  setOrDelete(m, k, keptOneOrMore(add ? [...items, key] : items.filter((x) => x !== key)));
}

function refusalId(r: RefusedClaim): string {
  return [r.claimant, r.claimantKind, r.owner, r.address, r.port].join('\u0000');
}

/**
 * `sp` without the keys it lost. A lost ClusterIP is kept in the object (affinity records and
 * conntrack name it) and marked, so a proxy mode programs none of its dispatch.
 */
function restrictedCopy(sp: ServicePort, lost: Lost): ServicePort {
  const keep = (ips: readonly string[]) => ips.filter((ip) => !lost.addresses.includes(ip));
  const copy: ServicePort = {
    ...sp,
    externalIPs: keep(sp.externalIPs),
    loadBalancerIPs: keep(sp.loadBalancerIPs),
    nodePort: lost.nodePort ? 0 : sp.nodePort,
  };
  if (lost.addresses.includes(sp.clusterIP)) copy.clusterIPRefused = true;
  return copy;
}

function sameLoss(a: ServicePort | undefined, b: ServicePort | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.nodePort === b.nodePort && a.clusterIPRefused === b.clusterIPRefused
    && a.externalIPs.join() === b.externalIPs.join() && a.loadBalancerIPs.join() === b.loadBalancerIPs.join();
}
