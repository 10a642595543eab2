// --cleanup's IPVS part: the virtual services the IPVS mode manages, the addresses it bound and its
// dummy link kube-ipvs0. A virtual service is the mode's when its address is bound to kube-ipvs0
// (ClusterIPs, externalIPs, LoadBalancer IPs) or is one of the node's own addresses (NodePorts), and
// is not inside ipvs.excludeCIDRs; everything else in IPVS belongs to someone else and stays. When a
// kept service's address sits on kube-ipvs0, the link and that address stay too (deleting the link
// would take the address with it). A kernel without IPVS has nothing of ours: that is not a failure.
import * as os from 'node:os';
import type { Log } from '../base/log';
import type { IpvsHandle, IpvsServiceState } from '../native/ipvs/ipvs-types';
import { DUMMY_LINK, type LinkAddress, type RtnlHandle } from '../native/rtnl/rtnl-types';
import { CidrSet } from '../policy/cidr-set';
import { serviceId } from '../native/ipvs/ipvs-describe';


export interface IpvsCleanupResult {
  deletedServices: string[];
  keptServices: string[];
  link: 'deleted' | 'absent' | 'kept';
  deletedAddresses: string[];
  failed: { what: string; error: string }[];
}

export interface IpvsCleanupInputs {
  /** undefined: this kernel has no IPVS (the family lookup found none). */
  ipvs: IpvsHandle | undefined;
  rtnl: RtnlHandle;
  excludeCIDRs: readonly string[];
  log: Pick<Log, 'info' | 'warn' | 'error'>;
}

const ESRCH = os.constants.errno.ESRCH;
const ENOENT = os.constants.errno.ENOENT;

/** Which services are the mode's (pure): see the file's comment. */
export function ownedServices(services: readonly IpvsServiceState[], vips: ReadonlySet<string>, nodeIPs: ReadonlySet<string>, excludeCIDRs: readonly string[]): {
  owned: IpvsServiceState[]; kept: IpvsServiceState[];
} {
  const excluded = new CidrSet(excludeCIDRs);
  const owned: IpvsServiceState[] = [];
  const kept: IpvsServiceState[] = [];
  for (const s of services) {
    const ours = (vips.has(s.address) || nodeIPs.has(s.address)) && !excluded.has(s.address);
    (ours ? owned : kept).push(s);
  }
  return { owned, kept };
}

export async function cleanupIpvs(i: IpvsCleanupInputs): Promise<IpvsCleanupResult> {
  const r: IpvsCleanupResult = { deletedServices: [], keptServices: [], link: 'absent', deletedAddresses: [], failed: [] };
  const link = await i.rtnl.link(DUMMY_LINK);
  const all = await i.rtnl.addresses();
  const onLink = link ? all.filter((a) => a.linkIndex === link.index) : [];
  const vips = new Set(onLink.map((a) => a.address));
  const nodeIPs = new Set(all.filter((a) => !link || a.linkIndex !== link.index).map((a) => a.address));
  const kept = i.ipvs ? await deleteOwnedServices(i, i.ipvs, vips, nodeIPs, r) : [];
  if (!link) return r;
  const keptOnLink = new Set(kept.filter((s) => vips.has(s.address)).map((s) => s.address));
  if (keptOnLink.size === 0) {
    await i.rtnl.deleteLink(DUMMY_LINK);
    r.link = 'deleted';
    i.log.info({ link: DUMMY_LINK }, 'Deleted the IPVS dummy link');
    return r;
  }
  r.link = 'kept';
  i.log.warn({ link: DUMMY_LINK, addresses: [...keptOnLink] }, 'Keeping the IPVS dummy link: services in ipvs.excludeCIDRs use addresses on it');
  await deleteAddresses(i, onLink.filter((a) => !keptOnLink.has(a.address)), r);
  return r;
}

async function deleteOwnedServices(i: IpvsCleanupInputs, ipvs: IpvsHandle, vips: Set<string>, nodeIPs: Set<string>, r: IpvsCleanupResult): Promise<IpvsServiceState[]> {
  const { owned, kept } = ownedServices(await ipvs.dump(), vips, nodeIPs, i.excludeCIDRs);
  r.keptServices = kept.map(serviceId);
  if (owned.length === 0) return kept;
  const res = await ipvs.apply(owned.map((s) => ({ op: 'deleteService' as const, service: s })));
  const failedAt = new Map(res.errors.filter((e) => e.errno !== ESRCH && e.errno !== ENOENT).map((e) => [e.index, e]));
  owned.forEach((s, idx) => {
    const err = failedAt.get(idx);
    if (err) r.failed.push({ what: `IPVS service ${serviceId(s)}`, error: err.message });
    else r.deletedServices.push(serviceId(s));
  });
  i.log.info({ deleted: r.deletedServices.length, kept: kept.length, failed: failedAt.size }, 'Deleted the IPVS mode\'s virtual services');
  for (const f of r.failed) i.log.error(f, 'Could not delete an IPVS virtual service');
  return kept;
}

async function deleteAddresses(i: IpvsCleanupInputs, addrs: LinkAddress[], r: IpvsCleanupResult): Promise<void> {
  if (addrs.length === 0) return;
  const res = await i.rtnl.applyAddresses(addrs.map((a) => ({ op: 'delete' as const, address: a })));
  const failedAt = new Map(res.errors.map((e) => [e.index, e]));
  addrs.forEach((a, idx) => {
    const err = failedAt.get(idx);
    if (err) r.failed.push({ what: `address ${a.address}/${a.prefixLength} on ${DUMMY_LINK}`, error: err.message });
    else r.deletedAddresses.push(`${a.address}/${a.prefixLength}`);
  });
}
