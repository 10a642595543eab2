// One ServicePort -> its elements in the shared sets and maps (and, with session affinity or
// loadBalancerSourceRanges, its own chains). Upstream's decisions (pkg/proxy/nftables
// syncProxyRules: which endpoints, masquerade, reject or drop) expressed as data in maps, so the
// kernel's per-commit work does not grow with the number of Services (docs/nftables-ruleset.md).
import type { Endpoint, SelectedEndpoints, ServicePort } from '../../core/types';
import type { L4Proto, Verdict } from '../../native';
import { rule, type KeyExpr, type Rule, type RuleBuilder } from '../../native/rule-builder';
import type { FamilyContext } from './context';
import type { ChainDef, ElementDef, KeyPart, ServiceObjects } from './desired';
import { cidrContains, ipFamilyOf, normalizeCidr, parseCidr } from './ip-util';
import { localMatch } from '../../native/local-detector';
import {
  CHAIN, SET, countBitSetName, endpointMapName, serviceChainNames, type EndpointMapFamily, type ServiceChainNames,
} from './names';
import { codeBits } from './count-trie';

function sortedUnique(eps: readonly Endpoint[]): Endpoint[] {
  const seen = new Map<string, Endpoint>();
  for (const ep of eps) seen.set(`${ep.ip}|${ep.port}`, ep);
  return [...seen.values()].sort((a, b) => (a.ip === b.ip ? a.port - b.port : a.ip < b.ip ? -1 : 1));
}

/** The affinity key: client . ClusterIP . service port . endpoint IP . endpoint port. */
function affinityKey(sp: ServicePort, ep: Endpoint): KeyExpr[] {
  return ['saddr', { ip: sp.clusterIP }, { port: sp.port }, { ip: ep.ip }, { port: ep.port }];
}

/**
 * Affinity lookups first (one per endpoint), then load-balancing: pick i takes endpoint i with
 * probability 1/(k-i) among those left, so each of the k endpoints gets 1/k, and no set is created.
 * Each rule sends the connection on itself (what upstream's endpoint chain does), so an affinity
 * ServicePort adds no chain per endpoint: the kernel walks every chain on every commit.
 * A full affinity set makes the update of a new record fail, which ends its rule before the DNAT;
 * the last k rules then pick again without recording (load-balanced, as if without affinity).
 */
function policyChainRules(ctx: FamilyContext, sp: ServicePort, eps: Endpoint[], first: Rule[], proto: L4Proto): Rule[] {
  const r = () => rule(ctx.family);
  const pick = (i: number) => (i < eps.length - 1 ? r().numgenMod(eps.length - i, 0) : r());
  const rules = [...first];
  for (const ep of eps) rules.push(toEndpoint(r().lookup(affinityKey(sp, ep), SET.affinity), sp, ep, proto));
  eps.forEach((ep, i) => rules.push(toEndpoint(pick(i), sp, ep, proto)));
  eps.forEach((ep, i) => rules.push(pick(i).l4proto(proto).dnat(ep.ip, ep.port).build()));
  return rules;
}

/** Refreshes (or makes) the client's affinity record for `ep`, then DNATs to it. Hairpin masquerade is the `hairpin` set's. */
function toEndpoint(b: RuleBuilder, sp: ServicePort, ep: Endpoint, proto: L4Proto): Rule {
  return b.l4proto(proto).dynsetUpdate(affinityKey(sp, ep), SET.affinity, sp.affinityTimeoutSeconds).dnat(ep.ip, ep.port).build();
}

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

interface Plan {
  sp: ServicePort;
  proto: L4Proto;
  cluster: Endpoint[];
  local: Endpoint[];
  reachable: Endpoint[];
  hasEndpoints: boolean;
  hasInternal: boolean;
  hasExternal: boolean;
  externallyAccessible: boolean;
  usesClusterChain: boolean;
  usesLocalChain: boolean;
  /** False when another ServicePort owns this one's ClusterIP and port (core/address-ownership). */
  servesClusterIP: boolean;
}

function plan(sp: ServicePort, eps: SelectedEndpoints | undefined): Plan {
  const externallyAccessible = sp.nodePort !== 0 || sp.externalIPs.length > 0 || sp.loadBalancerIPs.length > 0;
  const usesCluster = !sp.internalPolicyLocal || externallyAccessible;
  const usesLocal = sp.internalPolicyLocal || (sp.externalPolicyLocal && externallyAccessible);
  const cluster = usesCluster ? sortedUnique(eps?.cluster ?? []) : [];
  const local = usesLocal ? sortedUnique(eps?.local ?? []) : [];
  const hasEndpoints = (eps?.hasAny ?? false) || cluster.length > 0 || local.length > 0;
  return {
    sp, proto: sp.protocol.toLowerCase() as L4Proto, cluster, local,
    reachable: sortedUnique([...cluster, ...local]),
    hasEndpoints,
    hasInternal: (sp.internalPolicyLocal ? local : cluster).length > 0,
    hasExternal: (sp.externalPolicyLocal ? local : cluster).length > 0,
    externallyAccessible,
    usesClusterChain: cluster.length > 0,
    usesLocalChain: local.length > 0,
    servesClusterIP: sp.clusterIPRefused !== true,
  };
}

const vip = (p: Plan, ip: string): KeyPart[] => [ip, p.proto, p.sp.port];

/**
 * The external and LB addresses dispatched on the external path. Its own ClusterIP listed again is
 * left out: that key is claimed once, as a ClusterIP (core/address-ownership), and served by the
 * ClusterIP path alone; both would write one key's endpoint slots and verdict with different values
 * (internalTrafficPolicy Local, affinity, more than 4 endpoints) and the external one could win.
 */
function externalAddresses(p: Plan, ctx: FamilyContext): string[] {
  return [...new Set([...p.sp.externalIPs, ...p.sp.loadBalancerIPs].filter((ip) => ipFamilyOf(ip) === ctx.family && ip !== p.sp.clusterIP))];
}

/** Elements every ServicePort has, whichever path serves it: ClusterIP, no-endpoint verdicts, firewall. */
function commonElements(p: Plan, ctx: FamilyContext, names: ServiceChainNames, fwRanges: string[]): ElementDef[] {
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
  if (fwRanges.length > 0) {
    for (const ip of new Set(sp.loadBalancerIPs.filter((i) => ipFamilyOf(i) === ctx.family))) {
      out.push({ set: SET.firewallIPs, key: vip(p, ip), verdict: { kind: 'goto', chain: names.firewall } });
    }
  }
  return out;
}

/** Session affinity: upstream's dispatch into this ServicePort's own chains. */
function chainDispatchElements(p: Plan, ctx: FamilyContext, names: ServiceChainNames): ElementDef[] {
  const { sp, proto } = p;
  const out: ElementDef[] = [];
  const internalChain = sp.internalPolicyLocal ? names.local : names.cluster;
  if (p.hasInternal && p.servesClusterIP) out.push({ set: SET.serviceIPs, key: vip(p, sp.clusterIP), verdict: { kind: 'goto', chain: internalChain } });
  if (!p.hasEndpoints) return out;
  const toExternal: Verdict = { kind: 'goto', chain: names.external };
  for (const ip of externalAddresses(p, ctx)) out.push({ set: SET.serviceIPs, key: vip(p, ip), verdict: toExternal });
  if (sp.nodePort !== 0) out.push({ set: SET.serviceNodePorts, key: [proto, sp.nodePort], verdict: toExternal });
  return out;
}

/**
 * Endpoint i of the list is picked when `numgen random mod E` gives i. Past SELECT_RULES_MAX
 * endpoints, the destination is in the plain set of each bit of its count's code, which the select
 * chains test to reach its count's rule (count-trie.ts): no verdict, so a count change or a new
 * Service does not make the kernel validate the table.
 */
function endpointElements(fam: EndpointMapFamily, key: KeyPart[], eps: readonly Endpoint[]): ElementDef[] {
  const set = endpointMapName(fam, eps.length);
  const out: ElementDef[] = eps.map((ep, i) => ({ set, key: [...key, i], data: [ep.ip, ep.port] }));
  for (const bit of codeBits(eps.length)) out.push({ set: countBitSetName(fam, bit), key });
  return out;
}

/** Everything else: elements only, in the shared sets and endpoint maps; no chain of its own. */
function mapDispatchElements(p: Plan, ctx: FamilyContext): ElementDef[] {
  const { sp, proto } = p;
  const out: ElementDef[] = [];
  const internal = sp.internalPolicyLocal ? p.local : p.cluster;
  if (internal.length > 0 && p.servesClusterIP) {
    out.push({ set: SET.clusterIPPorts, key: vip(p, sp.clusterIP) }, ...endpointElements('cluster', vip(p, sp.clusterIP), internal));
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
      if (p.cluster.length > 0) out.push(...endpointElements(d.fams[0], d.key, p.cluster));
      if (local && p.local.length > 0) out.push(...endpointElements(d.fams[1], d.key, p.local));
    }
  }
  return out;
}

/** An endpoint that connects to its own Service and is sent to itself is masqueraded (nat-postrouting). */
function hairpinElements(p: Plan): ElementDef[] {
  return [...new Set(p.reachable.map((e) => e.ip))].map((ip) => ({ set: SET.hairpin, key: [ip, ip] }));
}

/** Masquerade traffic to the ClusterIP that did not come from a local pod (or all, masqueradeAll). */
function internalMasqRule(p: Plan, ctx: FamilyContext): Rule | null {
  const notLocal = ctx.masqueradeAll ? (b: RuleBuilder) => b : localMatch(ctx.detector, true);
  if (!notLocal) return null;
  return notLocal(rule(ctx.family).daddr(p.sp.clusterIP).l4proto(p.proto).dport(p.sp.port)).jump(CHAIN.markMasq).build();
}

function externalChainRules(p: Plan, ctx: FamilyContext, names: ServiceChainNames): Rule[] {
  const r = () => rule(ctx.family);
  const rules: Rule[] = [];
  if (!p.sp.externalPolicyLocal) {
    rules.push(r().jump(CHAIN.markMasq).build());
  } else if (p.usesClusterChain) {
    const fromPod = localMatch(ctx.detector, false);
    if (fromPod) rules.push(fromPod(r()).goto(names.cluster).comment('short-circuit pod traffic').build());
    rules.push(r().fibSaddrLocal().jump(CHAIN.markMasq).comment('masquerade local traffic').build());
    rules.push(r().fibSaddrLocal().goto(names.cluster).comment('short-circuit local traffic').build());
  }
  if (p.hasExternal) rules.push(r().goto(p.sp.externalPolicyLocal ? names.local : names.cluster).build());
  return rules;
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
 * ServicePorts without session affinity are served by the shared chains and endpoint maps (no
 * chain of their own: the kernel walks every chain on every commit, so chains must not grow with
 * the cluster). Session affinity needs per-endpoint state in the rules, so those keep upstream's
 * per-Service chains.
 */
export function compileService(sp: ServicePort, eps: SelectedEndpoints | undefined, ctx: FamilyContext): ServiceObjects {
  const problem = validateServicePort(sp, ctx.family) ?? validateEndpoints(eps, ctx.family);
  if (problem) throw new ServicePortError(sp.key, problem);
  const p = plan(sp, eps);
  const names = serviceChainNames(sp);
  const fwSources = firewallSources(sp, ctx);
  const elements = commonElements(p, ctx, names, fwSources);
  const affinity = sp.affinityTimeoutSeconds > 0;
  elements.push(...(affinity ? chainDispatchElements(p, ctx, names) : mapDispatchElements(p, ctx)), ...hairpinElements(p));
  elements.push(...unionElements(elements));
  const chains = builtFor(sp.key, () => [
    ...(fwSources.length > 0 ? [firewallChain(ctx, names, fwSources)] : []),
    ...(affinity ? serviceChains(p, ctx, names) : []),
  ]);
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

/** loadBalancerSourceRanges: allowed sources return to the dispatch, everyone else is dropped. */
function firewallChain(ctx: FamilyContext, names: ServiceChainNames, sources: string[]): ChainDef {
  const rules = sources.map((src) => rule(ctx.family).saddr(src).verdict({ kind: 'return' }).build());
  rules.push(rule(ctx.family).verdict({ kind: 'drop' }).build());
  return { name: names.firewall, rules };
}

/** Upstream's per-Service chains, service-, local- and external-; its endpoint chains' rules are in the first two. */
function serviceChains(p: Plan, ctx: FamilyContext, names: ServiceChainNames): ChainDef[] {
  const { sp } = p;
  const chains: ChainDef[] = [];
  const masq = p.hasInternal ? internalMasqRule(p, ctx) : null;
  if (p.usesClusterChain) {
    const first = masq && !sp.internalPolicyLocal ? [masq] : [];
    chains.push({ name: names.cluster, rules: policyChainRules(ctx, sp, p.cluster, first, p.proto) });
  }
  if (p.usesLocalChain) {
    const first = masq && sp.internalPolicyLocal ? [masq] : [];
    chains.push({ name: names.local, rules: policyChainRules(ctx, sp, p.local, first, p.proto) });
  }
  if (p.hasEndpoints && p.externallyAccessible) chains.push({ name: names.external, rules: externalChainRules(p, ctx, names) });
  return chains;
}
