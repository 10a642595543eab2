// One ServicePort -> the elements it wants in the helper table (pure). Upstream's syncProxyRules
// fills its ipsets per Service the same way; the no-endpoint verdicts are the nftables mode's.
import type { KeyPart } from '../../native/txn/elements';
import type { Endpoint, SelectedEndpoints, ServicePort } from '../../core/types';
import { familyOfIp, type FamilyContext } from './helper-table-context';
import { outermost, parseRange, rangeContains } from './helper-table-cidr';
import { SET, type HelperFamily, type SetName } from './helper-table-names';

/** `set` is a kernel set, or `firewall-sources` (claims only: helper-table-firewall.ts). */
export interface ElementDef { family: HelperFamily; set: SetName | 'firewall-sources'; key: KeyPart[] }

/** The identity of an element: the same text, the same kernel element. */
export function elementText(e: ElementDef): string {
  return `${e.family} ${e.set} ${e.key.join(' . ')}`;
}

export function spFamily(sp: ServicePort): HelperFamily {
  return sp.family === 'IPv6' ? 'ip6' : 'ip';
}

export function servicePortElements(sp: ServicePort, eps: SelectedEndpoints | undefined, ctx: FamilyContext): ElementDef[] {
  if (spFamily(sp) !== ctx.family || familyOfIp(sp.clusterIP) !== ctx.family) return [];
  const out: ElementDef[] = [];
  const add = (set: ElementDef['set'], key: KeyPart[]) => out.push({ family: ctx.family, set, key });
  const proto = sp.protocol.toLowerCase();
  const vip = (ip: string): KeyPart[] => [ip, proto, sp.port];
  // Its own ClusterIP listed again as an external or LB IP is one key, served as the ClusterIP (as
  // core/address-ownership counts it): else its external masquerade mark or no-endpoint verdict would
  // apply to ClusterIP traffic too.
  const externals = [...new Set([...sp.externalIPs, ...sp.loadBalancerIPs].filter((ip) => familyOfIp(ip) === ctx.family && ip !== sp.clusterIP))];
  const lbIPs = [...new Set(sp.loadBalancerIPs.filter((ip) => familyOfIp(ip) === ctx.family))];

  // A ClusterIP and port another ServicePort owns (core/address-ownership): none of its elements,
  // so neither its masquerade mark, its no-endpoint verdict nor its binding stand in for the owner's.
  const clusterIP = sp.clusterIPRefused ? [] : [sp.clusterIP];
  for (const ip of clusterIP) add(SET.clusterIPs, vip(ip));
  for (const ip of [...clusterIP, ...externals]) {
    add(SET.serviceIPs, vip(ip));
    if (!ctx.nodeAddresses.has(ip)) add(SET.ipvsIPs, [ip]);
  }
  if (!sp.externalPolicyLocal) {
    for (const ip of externals) add(SET.externalIPs, vip(ip));
    if (sp.nodePort !== 0) add(SET.nodePorts, [proto, sp.nodePort]);
  }
  if (sp.healthCheckNodePort !== 0) add(SET.healthCheckPorts, [sp.healthCheckNodePort]);
  for (const ep of localEndpoints(eps, ctx.family)) add(SET.hairpin, [ep.ip, proto, ep.port, ep.ip]);
  out.push(...noEndpointElements(sp, eps, ctx, externals));
  out.push(...firewallElements(sp, ctx, lbIPs));
  return dedupe(out);
}

function localEndpoints(eps: SelectedEndpoints | undefined, family: HelperFamily): Endpoint[] {
  if (!eps) return [];
  return [...eps.cluster, ...eps.local].filter((e) => e.isLocal && familyOfIp(e.ip) === family);
}

/** Reject when the Service has no endpoint at all, drop when it has some but none here under a Local policy. */
function noEndpointElements(sp: ServicePort, eps: SelectedEndpoints | undefined, ctx: FamilyContext, externals: string[]): ElementDef[] {
  const out: ElementDef[] = [];
  const proto = sp.protocol.toLowerCase();
  const cluster = eps?.cluster.length ?? 0;
  const local = eps?.local.length ?? 0;
  const hasAny = (eps?.hasAny ?? false) || cluster > 0 || local > 0;
  const hasInternal = (sp.internalPolicyLocal ? local : cluster) > 0;
  const hasExternal = (sp.externalPolicyLocal ? local : cluster) > 0;
  const pick = (policyLocal: boolean, drop: SetName, reject: SetName) => (hasAny && policyLocal ? drop : reject);
  if (!hasInternal && !sp.clusterIPRefused) {
    const set = pick(sp.internalPolicyLocal, SET.noLocalEndpointServices, SET.noEndpointServices);
    out.push({ family: ctx.family, set, key: [sp.clusterIP, proto, sp.port] });
  }
  if (!hasExternal) {
    const set = pick(sp.externalPolicyLocal, SET.noLocalEndpointServices, SET.noEndpointServices);
    for (const ip of externals) out.push({ family: ctx.family, set, key: [ip, proto, sp.port] });
    if (sp.nodePort !== 0) {
      const ports = pick(sp.externalPolicyLocal, SET.noLocalEndpointNodePorts, SET.noEndpointNodePorts);
      out.push({ family: ctx.family, set: ports, key: [proto, sp.nodePort] });
    }
  }
  return out;
}

/**
 * loadBalancerSourceRanges of this family: the LB IPs are filtered, the ranges allowed; and, as
 * upstream, the LB IP itself as a source when a range holds a node IP (the node reaching a VIP
 * it has bound uses the VIP as its source address).
 */
function firewallElements(sp: ServicePort, ctx: FamilyContext, lbIPs: string[]): ElementDef[] {
  const version = ctx.family === 'ip' ? 4 : 6;
  const ranges = sp.loadBalancerSourceRanges.map((r) => parseRange(r, version)).filter((r) => r !== null);
  if (ranges.length === 0 || lbIPs.length === 0) return [];
  const nodeBytes = ctx.nodeIPs.map((ip) => parseRange(ip, version)!.bytes);
  const allowNode = ranges.some((r) => nodeBytes.some((b) => rangeContains(r, b)));
  const proto = sp.protocol.toLowerCase();
  const out: ElementDef[] = [];
  for (const ip of lbIPs) {
    out.push({ family: ctx.family, set: SET.firewallIPs, key: [ip, proto, sp.port] });
    const allowed = allowNode ? [...ranges, parseRange(ip, version)!] : ranges;
    for (const r of outermost(allowed)) out.push({ family: ctx.family, set: 'firewall-sources', key: [ip, proto, sp.port, r.text] });
  }
  return out;
}

function dedupe(list: ElementDef[]): ElementDef[] {
  const seen = new Set<string>();
  return list.filter((e) => {
    const t = elementText(e);
    if (seen.has(t)) return false;
    seen.add(t);
    return true;
  });
}
