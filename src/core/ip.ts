// Address parsing for the model. Pure: node:net's isIPv4/isIPv6 only inspect strings.
import { isIPv4, isIPv6 } from 'node:net';
import type { IPFamily } from './types';

/** The family of a plain IP address, or undefined when it is not one. */
export function ipFamilyOf(ip: string): IPFamily | undefined {
  if (isIPv4(ip)) return 'IPv4';
  if (isIPv6(ip)) return 'IPv6';
  return undefined;
}

/** The family of a CIDR (`addr/prefix`), or undefined when it is not a valid one. */
export function cidrFamilyOf(cidr: string): IPFamily | undefined {
  const slash = cidr.indexOf('/');
  if (slash <= 0) return undefined;
  const family = ipFamilyOf(cidr.slice(0, slash));
  const prefix = cidr.slice(slash + 1);
  if (family === undefined || !/^\d{1,3}$/.test(prefix)) return undefined;
  const max = family === 'IPv4' ? 32 : 128;
  return Number(prefix) <= max ? family : undefined;
}

export function isIPFamily(value: unknown): value is IPFamily {
  return value === 'IPv4' || value === 'IPv6';
}
