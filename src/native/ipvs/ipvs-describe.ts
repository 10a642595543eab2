// How IPVS objects are named in errors, logs and keys: a virtual service `TCP 10.0.0.1:80`
// (`UDP [fd00::10]:53`), a real server `10.1.0.5:8080`, an operation `addDest TCP 10.0.0.1:80 ->
// 10.1.0.5:8080`; the same for the real socket, the fake and the IPVS mode's mirror.
import type { IpvsDestKey, IpvsOp, IpvsServiceKey } from './ipvs-types';

export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

export const serviceId = (k: IpvsServiceKey): string => `${k.protocol} ${hostPort(k.address, k.port)}`;
export const destId = (d: IpvsDestKey): string => hostPort(d.address, d.port);

export function describeIpvsOp(op: IpvsOp): string {
  const svc = `${op.op} ${serviceId(op.service)}`;
  return 'dest' in op ? `${svc} -> ${destId(op.dest)}` : svc;
}
