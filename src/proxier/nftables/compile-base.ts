// The fixed part of one family's table: base chains hooked into netfilter, the dispatch chains,
// and the handful of shared maps and sets every ServicePort puts its elements into. Its size
// does not depend on the number of Services.
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, ElementDef, NftType, SetDef } from './desired';
import { CHAIN, SET } from './names';
import type { RuleDef, Step } from './rule-steps';

const DSTNAT = -100;
const SRCNAT = 100;

const jump = (chain: string): Step => ({ op: 'verdict', verdict: { kind: 'jump', chain } });
const newJump = (chain: string): RuleDef => [{ op: 'ctStateNew' }, jump(chain)];
const DADDR_PROTO_PORT = ['daddr', 'l4proto', 'dport'] as const;

function loopbackExclusion(ctx: FamilyContext): Step {
  return { op: 'daddr', addr: ctx.family === 'ip' ? '127.0.0.0/8' : '::1', negate: true };
}

function baseChains(): ChainDef[] {
  return [
    { name: CHAIN.filterPrerouting, base: { type: 'filter', hook: 'prerouting', priority: DSTNAT - 10 },
      rules: [newJump(CHAIN.firewallCheck)] },
    { name: CHAIN.filterInput, base: { type: 'filter', hook: 'input', priority: DSTNAT - 10 },
      rules: [newJump(CHAIN.nodePortEndpointsCheck), newJump(CHAIN.serviceEndpointsCheck)] },
    { name: CHAIN.filterForward, base: { type: 'filter', hook: 'forward', priority: DSTNAT - 10 },
      rules: [newJump(CHAIN.serviceEndpointsCheck), newJump(CHAIN.clusterIPsCheck)] },
    { name: CHAIN.filterOutput, base: { type: 'filter', hook: 'output', priority: DSTNAT - 10 },
      rules: [newJump(CHAIN.serviceEndpointsCheck), newJump(CHAIN.firewallCheck)] },
    { name: CHAIN.filterOutputPostDnat, base: { type: 'filter', hook: 'output', priority: DSTNAT + 10 },
      rules: [newJump(CHAIN.clusterIPsCheck)] },
    { name: CHAIN.natPrerouting, base: { type: 'nat', hook: 'prerouting', priority: DSTNAT }, rules: [[jump(CHAIN.services)]] },
    { name: CHAIN.natOutput, base: { type: 'nat', hook: 'output', priority: DSTNAT }, rules: [[jump(CHAIN.services)]] },
    { name: CHAIN.natPostrouting, base: { type: 'nat', hook: 'postrouting', priority: SRCNAT }, rules: [[jump(CHAIN.masquerading)]] },
  ];
}

/** Matches "addressed to a NodePort address": every local address but loopback, or our CIDR set. */
function nodePortDestination(ctx: FamilyContext, fib: boolean): Step[] {
  const steps: Step[] = [loopbackExclusion(ctx)];
  if (ctx.nodePorts.kind === 'cidrs') steps.push({ op: 'daddrInSet', set: SET.nodePortIPs });
  if (fib) steps.push({ op: 'fibDaddrLocal' });
  return steps;
}

function dispatchChains(ctx: FamilyContext): ChainDef[] {
  const mark = ctx.masqueradeMark;
  const clusterIPsCheck: RuleDef[] = [[
    { op: 'daddrInSet', set: SET.clusterIPs }, { op: 'reject' },
    { op: 'comment', text: 'Reject traffic to invalid ports of ClusterIPs' },
  ]];
  for (const cidr of ctx.serviceCIDRs) {
    clusterIPsCheck.push([{ op: 'daddr', addr: cidr }, { op: 'verdict', verdict: { kind: 'drop' } },
      { op: 'comment', text: 'Drop traffic to unallocated ClusterIPs' }]);
  }
  return [
    { name: CHAIN.services, rules: [
      [{ op: 'vmap', parts: [...DADDR_PROTO_PORT], map: SET.serviceIPs }],
      [...nodePortDestination(ctx, true), { op: 'vmap', parts: ['l4proto', 'dport'], map: SET.serviceNodePorts }],
    ] },
    { name: CHAIN.serviceEndpointsCheck, rules: [[{ op: 'vmap', parts: [...DADDR_PROTO_PORT], map: SET.noEndpointServices }]] },
    // In the input hook the destination is local already: no fib lookup needed.
    { name: CHAIN.nodePortEndpointsCheck, rules: [[...nodePortDestination(ctx, false),
      { op: 'vmap', parts: ['l4proto', 'dport'], map: SET.noEndpointNodePorts }]] },
    { name: CHAIN.reject, rules: [[{ op: 'reject' }]] },
    { name: CHAIN.clusterIPsCheck, rules: clusterIPsCheck },
    { name: CHAIN.firewallCheck, rules: [[{ op: 'vmap', parts: [...DADDR_PROTO_PORT], map: SET.firewallIPs }]] },
    { name: CHAIN.markMasq, rules: [[{ op: 'markOr', bits: mark }]] },
    { name: CHAIN.masquerading, rules: [
      [{ op: 'markAnd', mask: mark, value: 0 }, { op: 'verdict', verdict: { kind: 'return' } }],
      [{ op: 'markXor', bits: mark }],
      [{ op: 'masquerade', fullyRandom: true }],
    ] },
  ];
}

function sets(ctx: FamilyContext): SetDef[] {
  const addr: NftType = ctx.family === 'ip' ? 'ipv4_addr' : 'ipv6_addr';
  const vip: NftType[] = [addr, 'inet_proto', 'inet_service'];
  const out: SetDef[] = [
    { name: SET.clusterIPs, key: [addr], comment: 'Active ClusterIPs' },
    { name: SET.serviceIPs, key: vip, map: 'verdict', comment: 'ClusterIP, ExternalIP and LoadBalancer IP traffic' },
    { name: SET.serviceNodePorts, key: ['inet_proto', 'inet_service'], map: 'verdict', comment: 'NodePort traffic' },
    { name: SET.noEndpointServices, key: vip, map: 'verdict',
      comment: 'vmap to drop or reject packets to services with no endpoints' },
    { name: SET.noEndpointNodePorts, key: ['inet_proto', 'inet_service'], map: 'verdict',
      comment: 'vmap to drop or reject packets to service nodeports with no endpoints' },
    { name: SET.firewallIPs, key: vip, map: 'verdict', comment: 'destinations that are subject to LoadBalancerSourceRanges' },
    // One set for the session affinity of every Service: client . ClusterIP . port . endpoint IP . endpoint port.
    { name: SET.affinity, key: [addr, addr, 'inet_service', addr, 'inet_service'], timeout: true, dynamic: true,
      keepElements: true, comment: 'ClientIP session affinity of every Service' },
  ];
  if (ctx.nodePorts.kind === 'cidrs') {
    out.push({ name: SET.nodePortIPs, key: [addr], interval: true, comment: 'IPs that accept NodePort traffic' });
  }
  return out;
}

export function compileBase(ctx: FamilyContext): BaseObjects {
  const elements: ElementDef[] = ctx.nodePorts.kind === 'cidrs'
    ? ctx.nodePorts.cidrs.map((cidr) => ({ set: SET.nodePortIPs, key: [cidr] }))
    : [];
  return { family: ctx.family, chains: [...baseChains(), ...dispatchChains(ctx)], sets: sets(ctx), elements };
}
