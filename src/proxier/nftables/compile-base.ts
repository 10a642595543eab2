// The fixed part of one family's tables: base chains hooked into netfilter, the dispatch chains,
// and the handful of shared maps and sets every ServicePort puts its elements into. Its size
// does not depend on the number of Services. The main table holds the filter side, the
// no-endpoint and firewall maps and masquerading; each shard table (the main one when there is
// a single shard) holds its own nat base chains, `services` dispatch, `mark-for-masquerade`
// (jumps cannot cross tables) and the service maps and affinity set of its Services.
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, ElementDef, NftType, SetDef } from './desired';
import type { RuleDef, Step } from './rule-steps';
import { SINGLE, tablesOf, type Layout } from './layout';
import { CHAIN, SET, TABLE } from './names';

const DSTNAT = -100;
const SRCNAT = 100;

const jump = (chain: string): Step => ({ op: 'verdict', verdict: { kind: 'jump', chain } });
const newJump = (chain: string): RuleDef => [{ op: 'ctStateNew' }, jump(chain)];
const DADDR_PROTO_PORT = ['daddr', 'l4proto', 'dport'] as const;

function loopbackExclusion(ctx: FamilyContext): Step {
  return { op: 'daddr', addr: ctx.family === 'ip' ? '127.0.0.0/8' : '::1', negate: true };
}

type Chain = Omit<ChainDef, 'table'>;
type Set_ = Omit<SetDef, 'table'>;

/** Chains of the main table. */
function mainChains(ctx: FamilyContext): Chain[] {
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
    { name: CHAIN.natPostrouting, base: { type: 'nat', hook: 'postrouting', priority: SRCNAT }, rules: [[jump(CHAIN.masquerading)]] },
    { name: CHAIN.serviceEndpointsCheck, rules: [[{ op: 'vmap', parts: [...DADDR_PROTO_PORT], map: SET.noEndpointServices }]] },
    // In the input hook the destination is local already: no fib lookup needed.
    { name: CHAIN.nodePortEndpointsCheck, rules: [[...nodePortDestination(ctx, false),
      { op: 'vmap', parts: ['l4proto', 'dport'], map: SET.noEndpointNodePorts }]] },
    { name: CHAIN.reject, rules: [[{ op: 'reject' }]] },
    { name: CHAIN.clusterIPsCheck, rules: clusterIPsCheck },
    { name: CHAIN.firewallCheck, rules: [[{ op: 'vmap', parts: [...DADDR_PROTO_PORT], map: SET.firewallIPs }]] },
    { name: CHAIN.masquerading, rules: [
      [{ op: 'markAnd', mask: mark, value: 0 }, { op: 'verdict', verdict: { kind: 'return' } }],
      [{ op: 'markXor', bits: mark }],
      [{ op: 'masquerade', fullyRandom: true }],
    ] },
  ];
}

/**
 * Chains of a table holding Services. Several shards hook nat prerouting/output at the same
 * priority: the kernel runs them in turn until one sets up the NAT binding, and a Service lives
 * in exactly one shard, so dispatch is the same as with one `services` chain.
 */
function serviceTableChains(ctx: FamilyContext, sharded: boolean): Chain[] {
  // Every shard's `services` sees every new connection that no earlier shard DNATed: look the
  // port up first, so such a connection costs each shard two hash lookups and no fib lookup.
  const guard: Step[] = sharded ? [{ op: 'keyInMap', parts: ['l4proto', 'dport'], map: SET.serviceNodePorts }] : [];
  const nodePorts: RuleDef = [...guard, ...nodePortDestination(ctx, true),
    { op: 'vmap', parts: ['l4proto', 'dport'], map: SET.serviceNodePorts }];
  return [
    { name: CHAIN.natPrerouting, base: { type: 'nat', hook: 'prerouting', priority: DSTNAT }, rules: [[jump(CHAIN.services)]] },
    { name: CHAIN.natOutput, base: { type: 'nat', hook: 'output', priority: DSTNAT }, rules: [[jump(CHAIN.services)]] },
    { name: CHAIN.services, rules: [
      [{ op: 'vmap', parts: [...DADDR_PROTO_PORT], map: SET.serviceIPs }],
      nodePorts,
    ] },
    { name: CHAIN.markMasq, rules: [[{ op: 'markOr', bits: ctx.masqueradeMark }]] },
  ];
}

/** Matches "addressed to a NodePort address": every local address but loopback, or our CIDR set. */
function nodePortDestination(ctx: FamilyContext, fib: boolean): Step[] {
  const steps: Step[] = [loopbackExclusion(ctx)];
  if (ctx.nodePorts.kind === 'cidrs') steps.push({ op: 'daddrInSet', set: SET.nodePortIPs });
  if (fib) steps.push({ op: 'fibDaddrLocal' });
  return steps;
}

const addrType = (ctx: FamilyContext): NftType => (ctx.family === 'ip' ? 'ipv4_addr' : 'ipv6_addr');
const vipKey = (ctx: FamilyContext): NftType[] => [addrType(ctx), 'inet_proto', 'inet_service'];

function nodePortIPsSet(ctx: FamilyContext): Set_[] {
  return ctx.nodePorts.kind === 'cidrs'
    ? [{ name: SET.nodePortIPs, key: [addrType(ctx)], interval: true, comment: 'IPs that accept NodePort traffic' }]
    : [];
}

function mainSets(ctx: FamilyContext): Set_[] {
  return [
    { name: SET.clusterIPs, key: [addrType(ctx)], comment: 'Active ClusterIPs' },
    { name: SET.noEndpointServices, key: vipKey(ctx), map: 'verdict',
      comment: 'vmap to drop or reject packets to services with no endpoints' },
    { name: SET.noEndpointNodePorts, key: ['inet_proto', 'inet_service'], map: 'verdict',
      comment: 'vmap to drop or reject packets to service nodeports with no endpoints' },
    { name: SET.firewallIPs, key: vipKey(ctx), map: 'verdict', comment: 'destinations that are subject to LoadBalancerSourceRanges' },
  ];
}

function serviceTableSets(ctx: FamilyContext): Set_[] {
  const addr = addrType(ctx);
  return [
    { name: SET.serviceIPs, key: vipKey(ctx), map: 'verdict', comment: 'ClusterIP, ExternalIP and LoadBalancer IP traffic' },
    { name: SET.serviceNodePorts, key: ['inet_proto', 'inet_service'], map: 'verdict', comment: 'NodePort traffic' },
    // One set for the session affinity of every Service: client . ClusterIP . port . endpoint IP . endpoint port.
    { name: SET.affinity, key: [addr, addr, 'inet_service', addr, 'inet_service'], timeout: true, dynamic: true,
      keepElements: true, comment: 'ClientIP session affinity of every Service' },
  ];
}

const inTable = <T>(table: string, objs: T[]): (T & { table: string })[] => objs.map((o) => ({ table, ...o }));

function nodePortElements(ctx: FamilyContext, table: string): ElementDef[] {
  return ctx.nodePorts.kind === 'cidrs' ? ctx.nodePorts.cidrs.map((cidr) => ({ table, set: SET.nodePortIPs, key: [cidr] })) : [];
}

export function compileBase(ctx: FamilyContext, layout: Layout = SINGLE): BaseObjects {
  const tables = tablesOf(layout);
  const serviceTables = layout.shards === 1 ? tables : tables.slice(1);
  const chains: ChainDef[] = inTable(TABLE, mainChains(ctx));
  const sets: SetDef[] = inTable(TABLE, [...mainSets(ctx), ...nodePortIPsSet(ctx)]);
  const elements: ElementDef[] = nodePortElements(ctx, TABLE);
  for (const t of serviceTables) {
    chains.push(...inTable(t, serviceTableChains(ctx, layout.shards > 1)));
    sets.push(...inTable(t, serviceTableSets(ctx)));
    if (t !== TABLE) {
      sets.push(...inTable(t, nodePortIPsSet(ctx)));
      elements.push(...nodePortElements(ctx, t));
    }
  }
  return { family: ctx.family, tables, chains, sets, elements };
}
