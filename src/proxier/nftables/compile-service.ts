// One ServicePort -> its elements in the shared sets and maps (and, for IPv6 session affinity, its
// own chains: affinity-chains.ts). Upstream's decisions (pkg/proxy/nftables
// syncProxyRules: which endpoints, masquerade, reject or drop) expressed as data in maps, so the
// kernel's per-commit work does not grow with the number of Services (docs/nftables-ruleset.md).
import type { Endpoint, SelectedEndpoints, ServicePort } from '../../core/types';
import type { L4Proto } from '../../native';
import { rule, type KeyExpr, type Rule, type RuleBuilder } from '../../native/txn/rule-builder';
import type { FamilyContext } from './context';
import type { ChainDef, ElementDef, KeyPart, ServiceObjects } from './desired';
import { cidrContains, ipFamilyOf, normalizeCidr, outermostCidrs, parseCidr } from './ip-util';
import { externalAddresses, plan, vip, type Plan } from './service-plan';
import { affinityChains, affinityChainDispatch, usesAffinityChains } from './affinity-chains';
import { localMatch } from '../../policy/local-detector';
import {
  SET, affinityEndpointsName, countBitSetName, endpointMapName, serviceChainNames, type EndpointMapFamily, type ServiceChainNames,
} from './names';
import { codeBits } from './count-trie';

/** Problems that would make the kernel refuse this ServicePort, named by field. */
export function validateServicePort(sp: ServicePort, family: 'ip' | 'ip6'): string | null {
  if (!['TCP', 'UDP', 'SCTP'].includes(sp.protocol)) return `protocol: unsupported ${JSON.stringify(sp.protocol)}`;
  if (ipFamilyOf(sp.clusterIP) !== family) return `clusterIP: ${JSON.stringify(sp.clusterIP)} is not an address of family ${family}`;
  const port = (n: number, field: string, zeroOk: boolean) =>
    Number.isInteger(n) && n <= 65535 && (n > 0 || (zeroOk && n === 0)) ? null : `${field}: invalid port ${n}`;
  const affinity = Number.isInteger(sp.affinityTimeoutSeconds) && sp.affinityTimeoutSeconds >= 0 && sp.affinityTimeoutSeconds <= 86400
    ? null : `affinityTimeoutSeconds: invalid ${sp.affinityTimeoutSeconds}`;
  return port(sp.port, 'port', false) ?? port(sp.nodePort, 'nodePort', true) ?? affinity;
}

export function validateEndpoint(ep: Endpoint, family: 'ip' | 'ip6', index: number): string | null {
  if (ipFamilyOf(ep.ip) !== family) return `endpoints[${index}].ip: ${JSON.stringify(ep.ip)} is not an address of family ${family}`;
  if (!Number.isInteger(ep.port) || ep.port < 1 || ep.port > 65535) return `endpoints[${index}].port: invalid port ${ep.port}`;
  return null;
}

/**
 * The first invalid endpoint of allReachable, cluster and local in turn (indexed as one list). The
 * lists mostly hold the same Endpoint objects: each object is checked once.
 */
function validateEndpoints(eps: SelectedEndpoints | undefined, family: 'ip' | 'ip6'): string | null {
  if (!eps) return null;
  const seen = new Set<Endpoint>();
  let i = 0;
  for (const list of [eps.allReachable, eps.cluster, eps.local]) {
    for (const ep of list) {
      if (!seen.has(ep)) {
        const problem = validateEndpoint(ep, family, i);
        if (problem) return problem;
        seen.add(ep);
      }
      i++;
    }
  }
  return null;
}

export class ServicePortError extends Error {
  constructor(readonly serviceKey: string, detail: string) {
    super(`ServicePort ${serviceKey}: ${detail}`);
  }
}

/** Elements every ServicePort has, whichever path serves it: ClusterIP, no-endpoint verdicts. */
function commonElements(p: Plan, ctx: FamilyContext): ElementDef[] {
  const { sp, proto } = p;
  const out: ElementDef[] = p.servesClusterIP ? [{ set: SET.clusterIPs, key: [sp.clusterIP] }] : [];
  // Upstream's verdicts: reject when the Service has no endpoint at all, drop when it has some
  // but none here under a Local policy.
  const drop = (local: boolean) => p.hasEndpoints && local;
  if (!p.hasInternal && p.servesClusterIP) {
    const set = drop(sp.internalPolicyLocal) ? SET.noLocalEndpointServices : SET.noEndpointServices;
    out.push({ set, key: vip(p, sp.clusterIP) });
  }
  if (!p.hasExternal) {
    const dropExternal = drop(sp.externalPolicyLocal);
    const set = dropExternal ? SET.noLocalEndpointServices : SET.noEndpointServices;
    for (const ip of externalAddresses(p, ctx)) out.push({ set, key: vip(p, ip) });
    if (sp.nodePort !== 0) out.push({ set: dropExternal ? SET.noLocalEndpointNodePorts : SET.noEndpointNodePorts, key: [proto, sp.nodePort] });
  }
  return out;
}

/**
 * loadBalancerSourceRanges: each LB IP is a destination in `firewall-ips`, and each allowed source
 * range of it an element of `firewall-allow` (base chain `firewall-check` drops the rest). Nested
 * ranges are folded into the outer one: an interval set refuses overlapping elements.
 */
function firewallElements(p: Plan, ctx: FamilyContext, sources: readonly string[]): ElementDef[] {
  if (sources.length === 0) return [];
  const allowed = outermostCidrs(sources);
  const out: ElementDef[] = [];
  for (const ip of new Set(p.sp.loadBalancerIPs.filter((i) => ipFamilyOf(i) === ctx.family))) {
    out.push({ set: SET.firewallIPs, key: vip(p, ip) });
    for (const src of allowed) out.push({ set: SET.firewallAllow, key: [...vip(p, ip), src] });
  }
  return out;
}

/**
 * Endpoint i of the list is picked when `numgen random mod E` gives i. Past SELECT_RULES_MAX
 * endpoints, the destination is in the plain set of each bit of its count's code, which the select
 * chains test to reach its count's rule (count-trie.ts): no verdict, so a count change or a new
 * Service does not make the kernel validate the table. With session affinity (`affinity`, its
 * timeout), each destination . endpoint pair is in the timeout's endpoint set: the pairs a record
 * may name (compile-base.ts recordAffinityChain); records naming any other are deleted (affinity-records.ts).
 */
function endpointElements(fam: EndpointMapFamily, key: KeyPart[], eps: readonly Endpoint[], affinity: number): ElementDef[] {
  const set = endpointMapName(fam, eps.length);
  const out: ElementDef[] = eps.map((ep, i) => ({ set, key: [...key, i], data: [ep.ip, ep.port] }));
  for (const bit of codeBits(eps.length)) out.push({ set: countBitSetName(fam, bit), key });
  if (affinity > 0) {
    const pairs = affinityEndpointsName(fam, affinity);
    for (const ep of eps) out.push({ set: pairs, key: [...key, ep.ip, ep.port] });
  }
  return out;
}

/** Elements only, in the shared sets and endpoint maps; no chain of its own. */
function mapDispatchElements(p: Plan, ctx: FamilyContext): ElementDef[] {
  const { sp, proto } = p;
  const out: ElementDef[] = [];
  const affinity = sp.affinityTimeoutSeconds;
  const internal = sp.internalPolicyLocal ? p.local : p.cluster;
  if (internal.length > 0 && p.servesClusterIP) {
    out.push({ set: SET.clusterIPPorts, key: vip(p, sp.clusterIP) }, ...endpointElements('cluster', vip(p, sp.clusterIP), internal, affinity));
  }
  if (p.hasEndpoints && p.externallyAccessible) {
    const local = sp.externalPolicyLocal;
    const destinations: { key: KeyPart[]; set: string; fams: [EndpointMapFamily, EndpointMapFamily] }[] =
      externalAddresses(p, ctx).map((ip) => ({ key: vip(p, ip), set: local ? SET.externalLocalPorts : SET.externalPorts, fams: ['cluster', 'local'] }));
    if (sp.nodePort !== 0) {
      destinations.push({ key: [proto, sp.nodePort], set: local ? SET.nodePortsLocal : SET.nodePorts, fams: ['nodePort', 'nodePortLocal'] });
    }
    for (const d of destinations) {
      if (!local && p.cluster.length === 0) continue;
      out.push({ set: d.set, key: d.key });
      if (p.cluster.length > 0) out.push(...endpointElements(d.fams[0], d.key, p.cluster, affinity));
      if (local && p.local.length > 0) out.push(...endpointElements(d.fams[1], d.key, p.local, affinity));
    }
  }
  return out;
}

/** An endpoint that connects to its own Service and is sent to itself is masqueraded (nat-postrouting). */
function hairpinElements(p: Plan): ElementDef[] {
  return [...new Set(p.reachable.map((e) => e.ip))].map((ip) => ({ set: SET.hairpin, key: [ip, ip] }));
}

/** loadBalancerSourceRanges of this family, plus the LB IPs themselves when a range holds a node IP. */
function firewallSources(sp: ServicePort, ctx: FamilyContext): string[] {
  if (sp.loadBalancerIPs.length === 0) return [];
  const ranges = sp.loadBalancerSourceRanges.map((r) => parseCidr(r)).filter((c) => c?.family === ctx.family);
  if (ranges.length === 0) return [];
  const sources = sp.loadBalancerSourceRanges.filter((r) => parseCidr(r)?.family === ctx.family).map((r) => normalizeCidr(r)!);
  const allowNode = ctx.nodeIPs.some((ip) => ranges.some((c) => c && cidrContains(c, ip)));
  if (allowNode) sources.push(...sp.loadBalancerIPs.filter((ip) => ipFamilyOf(ip) === ctx.family));
  return [...new Set(sources)];
}

/**
 * ServicePorts are served by the shared chains and endpoint maps, IPv4 session affinity included (no
 * chain of their own: the kernel walks every chain whenever a commit makes it validate the table,
 * so chains must not grow with the cluster), loadBalancerSourceRanges included. Only IPv6 session
 * affinity has chains of its own (affinity-chains.ts).
 */
export function compileService(sp: ServicePort, eps: SelectedEndpoints | undefined, ctx: FamilyContext): ServiceObjects {
  const problem = validateServicePort(sp, ctx.family) ?? validateEndpoints(eps, ctx.family);
  if (problem) throw new ServicePortError(sp.key, problem);
  const p = plan(sp, eps);
  const names = serviceChainNames(sp);
  const elements = [...commonElements(p, ctx), ...firewallElements(p, ctx, firewallSources(sp, ctx))];
  const ownChains = usesAffinityChains(sp, ctx);
  elements.push(...(ownChains ? affinityChainDispatch(p, ctx, names) : mapDispatchElements(p, ctx)), ...hairpinElements(p));
  elements.push(...unionElements(elements));
  const chains = builtFor(sp.key, () => (ownChains ? affinityChains(p, ctx, names) : []));
  return { key: sp.key, family: ctx.family, chains, elements };
}

/**
 * The sets a lookup goes through before the set it names (compile-base.ts): `services` looks up
 * the rarer destinations' union first, the endpoints checks every destination without a usable
 * endpoint first.
 */
const UNION_OF: Readonly<Record<string, string>> = {
  [SET.externalPorts]: SET.otherServicePorts,
  [SET.externalLocalPorts]: SET.otherServicePorts,
  [SET.serviceIPs]: SET.otherServicePorts,
  [SET.nodePorts]: SET.allNodePorts,
  [SET.nodePortsLocal]: SET.allNodePorts,
  [SET.serviceNodePorts]: SET.allNodePorts,
  [SET.noLocalEndpointServices]: SET.noEndpointServices,
  [SET.noLocalEndpointNodePorts]: SET.noEndpointNodePorts,
};

const UNIONS = new Set(Object.values(UNION_OF));
const elementId = (e: ElementDef) => `${e.set}\0${e.key.join('\0')}`;

/** Each element's twin in its union set, once per key (an address may be in a union set already, as a reject). */
function unionElements(elements: readonly ElementDef[]): ElementDef[] {
  const seen = new Set(elements.filter((e) => UNIONS.has(e.set)).map(elementId));
  const out: ElementDef[] = [];
  for (const e of elements) {
    const set = UNION_OF[e.set];
    if (!set) continue;
    const twin = { set, key: e.key };
    const id = elementId(twin);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(twin);
  }
  return out;
}

/** The native builder refuses what the kernel would: that refuses this ServicePort alone. */
function builtFor<T>(key: string, build: () => T): T {
  try {
    return build();
  } catch (e) {
    throw new ServicePortError(key, e instanceof Error ? e.message : String(e));
  }
}
