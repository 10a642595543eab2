// How an IPVS operation is named in errors and logs ("addDest TCP 10.0.0.1:80 -> 10.1.0.5:8080"),
// the same for the real socket and the fake.
import type { IpvsOp } from './ipvs-types';

export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

export function describeIpvsOp(op: IpvsOp): string {
  const svc = `${op.op} ${op.service.protocol} ${hostPort(op.service.address, op.service.port)}`;
  return 'dest' in op ? `${svc} -> ${hostPort(op.dest.address, op.dest.port)}` : svc;
}
