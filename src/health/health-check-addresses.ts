// Where the health-check node ports listen, from nodePortAddresses, as upstream's
// NewServiceHealthServer does per IP family (pkg/proxy/healthcheck/service_health.go with
// pkg/proxy/util/nodeport_addresses.go): a family with no CIDR of its own (or with 0.0.0.0/0, ::/0)
// matches every address, else the node's addresses inside that family's CIDRs; `primary` stands for
// the node's primary IPs (/32, /128), as upstream's server.go rewrites it. When every served family
// matches all, one wildcard socket serves both (Go's 0.0.0.0 listener is dual-stack; ours too, see
// src/http/listen.ts).
import * as net from 'node:net';
import type { IPFamily } from '../base/ip-family';

export interface HealthCheckAddressInputs {
  /** The effective nodePortAddresses: CIDRs of either family, or ["primary"]. */
  nodePortAddresses: readonly string[];
  /** The IP families this proxy serves. */
  families: readonly IPFamily[];
  /** The node's primary IPs (for `primary`). */
  nodeIPs: readonly string[];
  /** Every address of the host's interfaces (os.networkInterfaces()). */
  interfaceAddresses: readonly string[];
}

export const WILDCARD = '0.0.0.0';

const familyOfIp = (ip: string): IPFamily | undefined => (net.isIPv4(ip) ? 'IPv4' : net.isIPv6(ip) ? 'IPv6' : undefined);

function parseCidr(cidr: string): { ip: string; bits: number; family: IPFamily } | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr.trim());
  const family = m ? familyOfIp(m[1]) : undefined;
  if (!m || !family) return undefined;
  const bits = Number(m[2]);
  return bits <= (family === 'IPv4' ? 32 : 128) ? { ip: m[1], bits, family } : undefined;
}

/** The CIDRs of `family` (`primary` expanded); undefined when the family matches every address. */
function familyCidrs(i: HealthCheckAddressInputs, family: IPFamily): string[] | undefined {
  const cidrs: string[] = [];
  for (const entry of i.nodePortAddresses) {
    if (entry === 'primary') {
      for (const ip of i.nodeIPs) if (familyOfIp(ip) === family) cidrs.push(`${ip}/${family === 'IPv4' ? 32 : 128}`);
      continue;
    }
    const c = parseCidr(entry);
    if (!c || c.family !== family) continue;
    if (c.bits === 0) return undefined;
    cidrs.push(entry);
  }
  return cidrs.length === 0 ? undefined : cidrs;
}

function addressesIn(cidrs: readonly string[], family: IPFamily, candidates: readonly string[]): string[] {
  const list = new net.BlockList();
  const type = family === 'IPv4' ? 'ipv4' : 'ipv6';
  for (const c of cidrs) {
    const p = parseCidr(c)!;
    list.addSubnet(p.ip, p.bits, type);
  }
  return candidates.filter((ip) => familyOfIp(ip) === family && list.check(ip, type));
}

/** The addresses to listen on, deduplicated; [WILDCARD] means every address of both families. */
export function healthCheckAddresses(i: HealthCheckAddressInputs): string[] {
  const perFamily = i.families.map((f) => ({ f, cidrs: familyCidrs(i, f) }));
  if (perFamily.every((p) => p.cidrs === undefined)) return [WILDCARD];
  const out = new Set<string>();
  for (const { f, cidrs } of perFamily) {
    // One family restricted, the other not: the open family's addresses one by one, so the wildcard
    // socket does not also take the restricted family's.
    const candidates = i.interfaceAddresses.map((a) => a.replace(/%.*$/, ''));
    // (IPv6 link-local addresses cannot be bound without their interface: the wildcard is their only way.)
    const open = (): string[] => candidates.filter((a) => familyOfIp(a) === f && !/^fe[89ab]/i.test(a));
    for (const ip of cidrs ? addressesIn(cidrs, f, candidates) : open()) out.add(ip);
  }
  return [...out];
}
