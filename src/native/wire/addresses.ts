// Strict IP address and CIDR parsing into network-order bytes. Strings come from the API server
// and configuration, so every malformed form is refused with the argument's name.
import { isIPv4, isIPv6 } from 'node:net';

export type IpVersion = 4 | 6;

export interface Cidr { version: IpVersion; bytes: number[]; prefix: number; text: string }

export function ipVersionOf(addr: string): IpVersion | 0 {
  return isIPv4(addr) ? 4 : isIPv6(addr) ? 6 : 0;
}

function ipv4Bytes(s: string): number[] {
  const out = [0, 0, 0, 0];
  let part = 0;
  let v = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      out[part++] = v;
      v = 0;
    } else {
      v = v * 10 + (c - 48);
    }
  }
  out[part] = v;
  return out;
}

function ipv6Bytes(s: string): number[] {
  const out: number[] = Array(16).fill(0);
  let head = s;
  let v4tail: number[] | undefined;
  const lastColon = s.lastIndexOf(':');
  if (s.indexOf('.', lastColon) >= 0) {
    v4tail = ipv4Bytes(s.slice(lastColon + 1));
    head = s.slice(0, lastColon + 1) + '0:0';
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const l = left ? left.split(':') : [];
  const r = right === undefined ? [] : right ? right.split(':') : [];
  const groups = right === undefined ? l : [...l, ...Array(8 - l.length - r.length).fill('0'), ...r];
  for (let i = 0; i < 8; i++) {
    const g = parseInt(groups[i], 16);
    out[i * 2] = g >> 8;
    out[i * 2 + 1] = g & 0xff;
  }
  if (v4tail) out.splice(12, 4, ...v4tail);
  return out;
}

/** Parses one address; `want` restricts the version. */
export function parseIp(addr: unknown, arg: string, want?: IpVersion): { version: IpVersion; bytes: number[] } {
  if (typeof addr !== 'string') throw new TypeError(`${arg}: expected an IP address string, got ${typeof addr}`);
  const version = ipVersionOf(addr);
  if (!version) throw new RangeError(`${arg}: '${addr}' is not an IP address`);
  if (want && version !== want) throw new RangeError(`${arg}: '${addr}' is not an IPv${want} address`);
  return { version, bytes: version === 4 ? ipv4Bytes(addr) : ipv6Bytes(addr) };
}

/** Parses `addr` or `addr/prefix`; host bits must be zero (a mistake nft would silently mask). */
export function parseCidr(s: unknown, arg: string, want?: IpVersion): Cidr {
  if (typeof s !== 'string') throw new TypeError(`${arg}: expected an address or CIDR string, got ${typeof s}`);
  const slash = s.indexOf('/');
  const addr = slash < 0 ? s : s.slice(0, slash);
  const { version, bytes } = parseIp(addr, arg, want);
  const bits = version === 4 ? 32 : 128;
  let prefix = bits;
  if (slash >= 0) {
    const p = s.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > bits) throw new RangeError(`${arg}: '${s}' has an invalid prefix length (0..${bits})`);
    prefix = Number(p);
  }
  const mask = prefixMask(bytes.length, prefix);
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] & ~mask[i]) throw new RangeError(`${arg}: '${s}' has host bits set beyond /${prefix}`);
  }
  return { version, bytes, prefix, text: s };
}

export function prefixMask(len: number, prefix: number): number[] {
  const m: number[] = Array(len).fill(0);
  for (let i = 0; i < len; i++) {
    const bits = Math.max(0, Math.min(8, prefix - i * 8));
    m[i] = bits === 0 ? 0 : (0xff << (8 - bits)) & 0xff;
  }
  return m;
}

/** The last address of a CIDR (host bits all ones). */
export function cidrLast(c: Cidr): number[] {
  const mask = prefixMask(c.bytes.length, c.prefix);
  const out: number[] = Array(c.bytes.length).fill(0);
  for (let i = 0; i < out.length; i++) out[i] = c.bytes[i] | (~mask[i] & 0xff);
  return out;
}
