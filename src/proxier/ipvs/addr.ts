// Address helpers of the IPVS mode: the canonical text form IPVS and rtnetlink report addresses in
// (so a desired address and a dumped one compare as strings), and the keys that name a virtual
// service and a real server (src/native's names, shared with the sockets and the fake); CidrSet
// (src/native) for CIDR membership. Pure; node:net only classifies strings.
import { isIPv4, isIPv6 } from 'node:net';
import type { IPFamily } from '../../core/types';
import { destId, serviceId } from '../../native/ipvs/ipvs-describe';
import type { IpvsDestKey, IpvsFamily, IpvsServiceKey } from '../../native/ipvs/ipvs-types';

export { CidrSet } from '../../policy/cidr-set';

/** Lower case, shortest IPv6 (as the kernel's dumps are formatted); null when not an IP. */
export function canonicalIP(ip: string): string | null {
  if (isIPv4(ip)) return ip.split('.').map((o) => String(Number(o))).join('.');
  if (!isIPv6(ip)) return null;
  // The WHATWG URL parser prints IPv6 hosts in RFC 5952 form.
  return new URL(`http://[${ip}]/`).hostname.slice(1, -1);
}

export const ipvsFamily = (f: IPFamily): IpvsFamily => (f === 'IPv6' ? 6 : 4);
export const familyOfIP = (ip: string): IPFamily => (ip.includes(':') ? 'IPv6' : 'IPv4');

/** `TCP 10.96.0.10:80`, `UDP [fd00::10]:53`: one virtual service. */
export const vsKey: (k: IpvsServiceKey) => string = serviceId;
/** `10.1.0.5:8080`, `[fd00::5]:8080`: one real server of a virtual service. */
export const destKey: (d: IpvsDestKey) => string = destId;
