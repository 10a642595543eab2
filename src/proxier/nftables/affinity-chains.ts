// Session affinity of IPv6 ServicePorts: upstream's per-Service chains (service-, local-, external-,
// dispatched from the `service-ips` / `service-nodeports` verdict maps), with one rule per endpoint
// looking up and refreshing the client's record in the shared `affinity` set. IPv4 has records in a
// map written after the DNAT instead (compile-base.ts recordAffinityChain), which no endpoint change
// turns into rules; for IPv6 that map's record rule cannot be read back by Debian 12's nft 1.0.6 (its
// linearizer asserts on a dynset that writes a value under a key longer than 16 bytes, and an IPv6
// client alone is 16), so IPv6 keeps this shape (docs/nftables-ruleset.md, "Session affinity").
import type { Endpoint, ServicePort } from '../../core/types';
import type { L4Proto, Verdict } from '../../native';
import { rule, type KeyExpr, type Rule, type RuleBuilder } from '../../native/txn/rule-builder';
import { localMatch } from '../../policy/local-detector';
import type { FamilyContext } from './context';
import type { ChainDef, ElementDef } from './desired';
import { CHAIN, SET, type ServiceChainNames } from './names';
import { externalAddresses, vip, type Plan } from './service-plan';

/** Whether this ServicePort's affinity goes through its own chains (IPv6), not the records map. */
export function usesAffinityChains(sp: ServicePort, ctx: FamilyContext): boolean {
  return sp.affinityTimeoutSeconds > 0 && ctx.family === 'ip6';
}

/** The affinity key: client . ClusterIP . service port . endpoint IP . endpoint port. */
function affinityKey(sp: ServicePort, ep: Endpoint): KeyExpr[] {
  return ['saddr', { ip: sp.clusterIP }, { port: sp.port }, { ip: ep.ip }, { port: ep.port }];
}

/**
 * Affinity lookups first (one per endpoint), then load-balancing: pick i takes endpoint i with
 * probability 1/(k-i) among those left, so each of the k endpoints gets 1/k, and no set is created.
 * Each rule sends the connection on itself (what upstream's endpoint chain does), so an affinity
 * ServicePort adds no chain per endpoint. A full affinity set makes the update of a new record fail,
 * which ends its rule before the DNAT; the last k rules then pick again without recording.
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

/** Upstream's dispatch into this ServicePort's own chains. */
export function affinityChainDispatch(p: Plan, ctx: FamilyContext, names: ServiceChainNames): ElementDef[] {
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

/** Upstream's per-Service chains, service-, local- and external-; its endpoint chains' rules are in the first two. */
export function affinityChains(p: Plan, ctx: FamilyContext, names: ServiceChainNames): ChainDef[] {
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
