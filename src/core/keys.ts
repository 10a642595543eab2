// Identities used across the model. One function per key so every module spells them the same.
import type { IPFamily, Protocol } from './types';

/** `namespace/name`: identity of a Service (and of the slices that belong to it). */
export function serviceName(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

/** `namespace/name:portName/protocol/family`: identity of one ServicePort and of its endpoints. */
export function servicePortKey(
  namespace: string,
  name: string,
  portName: string,
  protocol: Protocol,
  family: IPFamily,
): string {
  return `${serviceName(namespace, name)}:${portName}/${protocol}/${family}`;
}

/** `ip:port` (IPv6 in brackets): identity of an endpoint within one ServicePort. */
export function endpointKey(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}
