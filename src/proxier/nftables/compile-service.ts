// One ServicePort -> its chains and its elements in the shared maps. Upstream's shape
// (pkg/proxy/nftables syncProxyRules), except for the two constructs whose kernel cost grows
// with the table: load-balancing uses one `numgen` rule per endpoint instead of an anonymous
// vmap per chain, and session affinity uses one shared dynamic set instead of a set per endpoint.
import type { Endpoint, SelectedEndpoints, ServicePort } from '../../core/types';
import type { FamilyContext } from './context';
import type { ChainDef, ElementDef, ServiceObjects } from './desired';

type Chain = Omit<ChainDef, 'table'>;
type Element = Omit<ElementDef, 'table'>;
import { cidrContains, ipFamilyOf, normalizeCidr, parseCidr } from './ip-util';
import { localMatch } from './local-detector';
import { CHAIN, SET, TABLE, endpointChainName, serviceChainNames } from './names';
import type { KeyExpr, L4, RuleDef, Step, Verdict } from './rule-steps';

const jumpMarkMasq: Step = { op: 'verdict', verdict: { kind: 'jump', chain: CHAIN.markMasq } };
const goto = (chain: string): Step => ({ op: 'verdict', verdict: { kind: 'goto', chain } });

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
 * Affinity lookups first (one per endpoint, only when affinity is on), then load-balancing:
 * rule i picks endpoint i with probability 1/(k-i) among those left, so each of the k endpoints
 * gets 1/k, and no set is created.
 */
function policyChainRules(sp: ServicePort, eps: Endpoint[], first: RuleDef[]): RuleDef[] {
  const rules = [...first];
  if (sp.affinityTimeoutSeconds > 0) {
    for (const ep of eps) {
      rules.push([{ op: 'lookup', parts: affinityKey(sp, ep), set: SET.affinity }, goto(endpointChainName(sp, ep))]);
    }
  }
  eps.forEach((ep, i) => {
    const target = goto(endpointChainName(sp, ep));
    rules.push(i < eps.length - 1 ? [{ op: 'numgenMod', mod: eps.length - i, equals: 0 }, target] : [target]);
  });
  return rules;
}

function endpointChain(sp: ServicePort, ep: Endpoint, proto: L4): Chain {
  const rules: RuleDef[] = [[{ op: 'saddr', addr: ep.ip }, jumpMarkMasq]];
  if (sp.affinityTimeoutSeconds > 0) {
    rules.push([{ op: 'dynsetUpdate', parts: affinityKey(sp, ep), set: SET.affinity, timeoutSeconds: sp.affinityTimeoutSeconds }]);
  }
  rules.push([{ op: 'l4proto', proto }, { op: 'dnat', addr: ep.ip, port: ep.port }]);
  return { name: endpointChainName(sp, ep), rules };
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

export class ServicePortError extends Error {
  constructor(readonly serviceKey: string, detail: string) {
    super(`ServicePort ${serviceKey}: ${detail}`);
  }
}

interface Plan {
  sp: ServicePort;
  proto: L4;
  cluster: Endpoint[];
  local: Endpoint[];
  reachable: Endpoint[];
  hasEndpoints: boolean;
  hasInternal: boolean;
  hasExternal: boolean;
  externallyAccessible: boolean;
  usesClusterChain: boolean;
  usesLocalChain: boolean;
}

function plan(sp: ServicePort, eps: SelectedEndpoints | undefined): Plan {
  const externallyAccessible = sp.nodePort !== 0 || sp.externalIPs.length > 0 || sp.loadBalancerIPs.length > 0;
  const usesCluster = !sp.internalPolicyLocal || externallyAccessible;
  const usesLocal = sp.internalPolicyLocal || (sp.externalPolicyLocal && externallyAccessible);
  const cluster = usesCluster ? sortedUnique(eps?.cluster ?? []) : [];
  const local = usesLocal ? sortedUnique(eps?.local ?? []) : [];
  const hasEndpoints = (eps?.hasAny ?? false) || cluster.length > 0 || local.length > 0;
  return {
    sp, proto: sp.protocol.toLowerCase() as L4, cluster, local,
    reachable: sortedUnique([...cluster, ...local]),
    hasEndpoints,
    hasInternal: (sp.internalPolicyLocal ? local : cluster).length > 0,
    hasExternal: (sp.externalPolicyLocal ? local : cluster).length > 0,
    externallyAccessible,
    usesClusterChain: cluster.length > 0,
    usesLocalChain: local.length > 0,
  };
}

function elements(p: Plan, ctx: FamilyContext, names: ReturnType<typeof serviceChainNames>, fwRanges: string[]): Element[] {
  const { sp, proto } = p;
  const out: Element[] = [{ set: SET.clusterIPs, key: [sp.clusterIP] }];
  const vip = (ip: string) => [ip, proto, sp.port];
  const noEndpoints = (local: boolean): Verdict =>
    p.hasEndpoints && local ? { kind: 'drop' } : { kind: 'goto', chain: CHAIN.reject };
  const internalChain = sp.internalPolicyLocal ? names.local : names.cluster;
  if (p.hasInternal) out.push({ set: SET.serviceIPs, key: vip(sp.clusterIP), verdict: { kind: 'goto', chain: internalChain } });
  else out.push({ set: SET.noEndpointServices, key: vip(sp.clusterIP), verdict: noEndpoints(sp.internalPolicyLocal) });

  const toExternal: Verdict = { kind: 'goto', chain: names.external };
  const externalVerdict = noEndpoints(sp.externalPolicyLocal);
  const external = [...sp.externalIPs, ...sp.loadBalancerIPs].filter((ip) => ipFamilyOf(ip) === ctx.family);
  for (const ip of new Set(external)) {
    if (p.hasEndpoints) out.push({ set: SET.serviceIPs, key: vip(ip), verdict: toExternal });
    if (!p.hasExternal) out.push({ set: SET.noEndpointServices, key: vip(ip), verdict: externalVerdict });
  }
  if (fwRanges.length > 0) {
    for (const ip of new Set(sp.loadBalancerIPs.filter((i) => ipFamilyOf(i) === ctx.family))) {
      out.push({ set: SET.firewallIPs, key: vip(ip), verdict: { kind: 'goto', chain: names.firewall } });
    }
  }
  if (sp.nodePort !== 0) {
    if (p.hasEndpoints) out.push({ set: SET.serviceNodePorts, key: [proto, sp.nodePort], verdict: toExternal });
    if (!p.hasExternal) out.push({ set: SET.noEndpointNodePorts, key: [proto, sp.nodePort], verdict: externalVerdict });
  }
  return out;
}

/** Masquerade traffic to the ClusterIP that did not come from a local pod (or all, masqueradeAll). */
function internalMasqRule(p: Plan, ctx: FamilyContext): RuleDef | null {
  const match: Step[] = [{ op: 'daddr', addr: p.sp.clusterIP }, { op: 'l4proto', proto: p.proto }, { op: 'dport', port: p.sp.port }];
  if (ctx.masqueradeAll) return [...match, jumpMarkMasq];
  const notLocal = localMatch(ctx.detector, true);
  return notLocal ? [...match, notLocal, jumpMarkMasq] : null;
}

function externalChainRules(p: Plan, ctx: FamilyContext, names: ReturnType<typeof serviceChainNames>): RuleDef[] {
  const rules: RuleDef[] = [];
  if (!p.sp.externalPolicyLocal) {
    rules.push([jumpMarkMasq]);
  } else if (p.usesClusterChain) {
    const fromPod = localMatch(ctx.detector, false);
    if (fromPod) rules.push([fromPod, goto(names.cluster), { op: 'comment', text: 'short-circuit pod traffic' }]);
    rules.push([{ op: 'fibSaddrLocal' }, jumpMarkMasq, { op: 'comment', text: 'masquerade local traffic' }]);
    rules.push([{ op: 'fibSaddrLocal' }, goto(names.cluster), { op: 'comment', text: 'short-circuit local traffic' }]);
  }
  if (p.hasExternal) rules.push([goto(p.sp.externalPolicyLocal ? names.local : names.cluster)]);
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

/** `shardTable`: the table of this Service's shard (the main table when not sharded). */
export function compileService(sp: ServicePort, eps: SelectedEndpoints | undefined, ctx: FamilyContext,
  shardTable: string = TABLE): ServiceObjects {
  const problem = validateServicePort(sp, ctx.family)
    ?? [...(eps?.allReachable ?? []), ...(eps?.cluster ?? []), ...(eps?.local ?? [])]
      .map((ep, i) => validateEndpoint(ep, ctx.family, i)).find((e) => e !== null) ?? null;
  if (problem) throw new ServicePortError(sp.key, problem);
  const p = plan(sp, eps);
  const names = serviceChainNames(sp);
  const fwSources = firewallSources(sp, ctx);
  const chains: Chain[] = [];
  const masq = p.hasInternal ? internalMasqRule(p, ctx) : null;
  if (p.usesClusterChain) {
    const first = masq && !sp.internalPolicyLocal ? [masq] : [];
    chains.push({ name: names.cluster, rules: policyChainRules(sp, p.cluster, first) });
  }
  if (p.usesLocalChain) {
    const first = masq && sp.internalPolicyLocal ? [masq] : [];
    chains.push({ name: names.local, rules: policyChainRules(sp, p.local, first) });
  }
  if (p.hasEndpoints && p.externallyAccessible) chains.push({ name: names.external, rules: externalChainRules(p, ctx, names) });
  if (fwSources.length > 0) {
    const rules: RuleDef[] = fwSources.map((src) => [{ op: 'saddr', addr: src }, { op: 'verdict', verdict: { kind: 'return' } }]);
    rules.push([{ op: 'verdict', verdict: { kind: 'drop' } }]);
    chains.push({ name: names.firewall, rules });
  }
  for (const ep of p.reachable) chains.push(endpointChain(sp, ep, p.proto));
  return place(sp.key, ctx, names, chains, elements(p, ctx, names, fwSources), shardTable);
}

/** Elements of these maps, and every chain but the firewall one, go to the Service's shard table. */
const SHARD_SETS: ReadonlySet<string> = new Set([SET.serviceIPs, SET.serviceNodePorts]);

function place(key: string, ctx: FamilyContext, names: ReturnType<typeof serviceChainNames>,
  chains: Chain[], els: Element[], shardTable: string): ServiceObjects {
  return {
    key, family: ctx.family,
    chains: chains.map((c) => ({ table: c.name === names.firewall ? TABLE : shardTable, ...c })),
    elements: els.map((e) => ({ table: SHARD_SETS.has(e.set) ? shardTable : TABLE, ...e })),
  };
}
