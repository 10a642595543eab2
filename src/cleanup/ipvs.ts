// --cleanup's IPVS part: the virtual services the IPVS mode manages, the addresses it bound and its
// dummy link kube-ipvs0. A virtual service is the mode's when its address is bound to kube-ipvs0
// (ClusterIPs, externalIPs, LoadBalancer IPs) or is one of the node's own addresses (NodePorts), and
// is not inside ipvs.excludeCIDRs; everything else in IPVS belongs to someone else and stays. When a
// kept service's address sits on kube-ipvs0, the link and that address stay too (deleting the link
// would take the address with it). A kernel without IPVS has nothing of ours: that is not a failure.
import { BlockList, isIPv4 } from 'node:net';
import type { Log } from '../base/log';
import type { IpvsHandle, IpvsServiceState } from '../native/ipvs-types';
import type { LinkAddress, RtnlHandle } from '../native/rtnl-types';

export const DUMMY_LINK = 'kube-ipvs0';

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

const ESRCH = 3;
const ENOENT = 2;

const describe = (s: { protocol: string; address: string; port: number }): string =>
  `${s.protocol} ${s.address.includes(':') ? `[${s.address}]` : s.address}:${s.port}`;

function blockList(cidrs: readonly string[]): BlockList {
  const bl = new BlockList();
  for (const c of cidrs) {
    const [ip, len] = c.split('/');
    bl.addSubnet(ip, Number(len), isIPv4(ip) ? 'ipv4' : 'ipv6');
  }
  return bl;
}

export function isExcluded(address: string, excluded: BlockList): boolean {
  return excluded.check(address, isIPv4(address) ? 'ipv4' : 'ipv6');
}

/** Which services are the mode's (pure): see the file's comment. */
export function ownedServices(services: readonly IpvsServiceState[], vips: ReadonlySet<string>, nodeIPs: ReadonlySet<string>, excludeCIDRs: readonly string[]): {
  owned: IpvsServiceState[]; kept: IpvsServiceState[];
} {
  const excluded = blockList(excludeCIDRs);
  const owned: IpvsServiceState[] = [];
  const kept: IpvsServiceState[] = [];
  for (const s of services) {
    const ours = (vips.has(s.address) || nodeIPs.has(s.address)) && !isExcluded(s.address, excluded);
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
  r.keptServices = kept.map(describe);
  if (owned.length === 0) return kept;
  const res = await ipvs.apply(owned.map((s) => ({ op: 'deleteService' as const, service: s })));
  const failedAt = new Map(res.errors.filter((e) => e.errno !== ESRCH && e.errno !== ENOENT).map((e) => [e.index, e]));
  owned.forEach((s, idx) => {
    const err = failedAt.get(idx);
    if (err) r.failed.push({ what: `IPVS service ${describe(s)}`, error: err.message });
    else r.deletedServices.push(describe(s));
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
