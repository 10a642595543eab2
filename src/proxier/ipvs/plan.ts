// The operations that take one virtual service (and the kube-ipvs0 addresses) from what the mirror
// says the kernel holds to what is desired. Pure: reads the mirror and the draining set, changes
// neither (the proxier records what the kernel accepted). Two phases: phase 1 (added and edited
// services, added, edited and drained real servers) goes before addresses are bound, phase 2
// (deleted services) after addresses are unbound.
import { IPVS_SVC_F_HASHED, type IpvsDestination, type IpvsOp, type IpvsService } from '../../native/ipvs/ipvs-types';
import type { AddressOp } from '../../native/rtnl/rtnl-types';
import { destKey, familyOfIP, ipvsFamily } from './addr';
import type { DesiredVS } from './desired';
import { drainsGracefully, serviceKey, type GracefulRemovals } from './graceful';
import type { MirrorVS } from './mirror';

/** An op and what it means for graceful termination once the kernel accepts it. */
export interface PlannedOp {
  op: IpvsOp;
  vs: string;
  /** drain: the server now has weight 0 and is draining; revive: a draining server is desired again. */
  effect?: 'drain' | 'revive';
}

export interface VSPlan {
  phase1: PlannedOp[];
  phase2: PlannedOp[];
  /** Servers to remove that already have weight 0 (an earlier run drained them): draining from now, no op. */
  drainNow: IpvsDestination[];
}

const sameService = (a: IpvsService, b: IpvsService): boolean => a.scheduler === b.scheduler
  && (a.flags & ~IPVS_SVC_F_HASHED) === (b.flags & ~IPVS_SVC_F_HASHED) && a.timeout === b.timeout && a.prefixLength === b.prefixLength;

const sameDest = (a: IpvsDestination, b: IpvsDestination): boolean => a.weight === b.weight && a.forward === b.forward;

export function planVS(vs: string, desired: DesiredVS | undefined, mirror: MirrorVS | undefined, draining: GracefulRemovals): VSPlan {
  const plan: VSPlan = { phase1: [], phase2: [], drainNow: [] };
  if (!desired) {
    if (mirror) plan.phase2.push({ op: { op: 'deleteService', service: serviceKey(mirror.service) }, vs });
    return plan;
  }
  const service = serviceKey(desired.service);
  if (!mirror) {
    plan.phase1.push({ op: { op: 'addService', service: desired.service }, vs });
    for (const dest of desired.dests) plan.phase1.push({ op: { op: 'addDest', service, dest }, vs });
    return plan;
  }
  if (mirror.staleAttrs || !sameService(desired.service, mirror.service)) plan.phase1.push({ op: { op: 'editService', service: desired.service }, vs });
  const wanted = new Set<string>();
  for (const dest of desired.dests) {
    const key = destKey(dest);
    wanted.add(key);
    const held = mirror.dests.get(key);
    if (!held) plan.phase1.push({ op: { op: 'addDest', service, dest }, vs });
    else if (!sameDest(held, dest)) plan.phase1.push({ op: { op: 'editDest', service, dest }, vs, effect: draining.has(vs, key) ? 'revive' : undefined });
    else if (draining.has(vs, key)) plan.phase1.push({ op: { op: 'editDest', service, dest }, vs, effect: 'revive' });
  }
  for (const [key, held] of mirror.dests) {
    if (wanted.has(key) || draining.has(vs, key)) continue;
    if (!drainsGracefully(service.protocol)) plan.phase1.push({ op: { op: 'deleteDest', service, dest: { address: held.address, port: held.port } }, vs });
    else if (held.weight === 0) plan.drainNow.push(held);
    else plan.phase1.push({ op: { op: 'editDest', service, dest: { ...held, weight: 0 } }, vs, effect: 'drain' });
  }
  return plan;
}

export interface AddressPlan { bind: AddressOp[]; unbind: AddressOp[] }

/** Bind what is wanted and not bound; unbind what is bound and not wanted (never an excluded address). */
export function planAddresses(touched: Iterable<string>, wanted: (ip: string) => boolean, bound: ReadonlySet<string>,
  excluded: (ip: string) => boolean, linkIndex: number): AddressPlan {
  const plan: AddressPlan = { bind: [], unbind: [] };
  for (const address of touched) {
    const want = wanted(address);
    if (want === bound.has(address) || excluded(address)) continue;
    const family = ipvsFamily(familyOfIP(address));
    const op: AddressOp = { op: want ? 'add' : 'delete', address: { linkIndex, family, address, prefixLength: family === 6 ? 128 : 32 } };
    (want ? plan.bind : plan.unbind).push(op);
  }
  return plan;
}
