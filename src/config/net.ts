// Address syntax checks used by validation and flag parsing (Go's net.ParseIP / net.ParseCIDR rules).
import { isIP, isIPv4 } from 'node:net';

export function ipFamily(ip: string): 4 | 6 | 0 {
  return isIP(ip) as 4 | 6 | 0;
}

/** "10.0.0.0/8" or "fd00::/64": an address and a prefix length that fits its family. */
export function isCIDR(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const addr = text.slice(0, slash);
  const len = text.slice(slash + 1);
  const fam = ipFamily(addr);
  if (fam === 0 || !/^\d{1,3}$/.test(len)) return false;
  return Number(len) <= (fam === 4 ? 32 : 128);
}

export function cidrFamily(text: string): 4 | 6 | 0 {
  return isCIDR(text) ? ipFamily(text.slice(0, text.indexOf('/'))) : 0;
}

/** Splits "IP:port" / "[IPv6]:port" like Go's net.SplitHostPort; null when it is not of that shape. */
export function splitHostPort(text: string): { host: string; port: string } | null {
  if (text.startsWith('[')) {
    const m = /^\[([^\]]*)\]:([^:]*)$/.exec(text);
    return m ? { host: m[1], port: m[2] } : null;
  }
  const i = text.lastIndexOf(':');
  if (i < 0 || text.indexOf(':') !== i) return null;
  return { host: text.slice(0, i), port: text.slice(i + 1) };
}

/** Validates "IP:port" with upstream's messages; returns null when valid. */
export function hostPortProblem(text: string): string | null {
  const hp = splitHostPort(text);
  if (!hp) return `must be IP:port, got "${text}"`;
  if (ipFamily(hp.host) === 0) return `must be a valid IP, got "${hp.host}"`;
  if (!/^\d+$/.test(hp.port) || Number(hp.port) < 1 || Number(hp.port) > 65535) {
    return `must be a valid port (1-65535), got "${hp.port}"`;
  }
  return null;
}

/** Appends the default port to a bare IP ("0.0.0.0" -> "0.0.0.0:10256", "::" -> "[::]:10256"). */
export function appendPortIfNeeded(addr: string, port: number): string {
  if (ipFamily(addr) === 0) return addr;
  return isIPv4(addr) ? `${addr}:${port}` : `[${addr}]:${port}`;
}
