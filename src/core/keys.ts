// Identities used across the model. One function per key so every module spells them the same.
// Keys the model keeps are built by join(), not by `+` or a template: those make a cons string (a
// 32-byte node pointing at its parts) that V8 flattens in place when the key is first hashed, so
// the node stays beside the flat copy; join() makes the flat string alone (docs/memory.md).
import type { IPFamily, Protocol } from './types';

const namespacedName = (namespace: string, name: string): string => [namespace, '/', name].join('');

/** `namespace/name`: identity of a Service (and of the slices that belong to it). */
export function serviceName(namespace: string, name: string): string {
  return namespacedName(namespace, name);
}

/** `namespace/name`: identity of an EndpointSlice. */
export function sliceKey(namespace: string, name: string): string {
  return namespacedName(namespace, name);
}

/** `namespace/name:portName/protocol/family`: identity of one ServicePort and of its endpoints. */
export function servicePortKey(
  namespace: string,
  name: string,
  portName: string,
  protocol: Protocol,
  family: IPFamily,
): string {
  return [namespace, '/', name, ':', portName, '/', protocol, '/', family].join('');
}

/** The family a servicePortKey names (its last part). */
export function familyOfKey(key: string): IPFamily {
  return key.endsWith('/IPv6') ? 'IPv6' : 'IPv4';
}

/** `ip:port` (IPv6 in brackets): identity of an endpoint within one ServicePort. */
export function endpointKey(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}
