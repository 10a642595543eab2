// The fixed part of one family's table: base chains hooked into netfilter, the dispatch chains,
// and the shared maps and sets every ServicePort puts its elements into. Only the endpoint
// selection chains depend on the Services, and only on which endpoint counts occur (one rule and
// one map per count in use), never on how many Services there are.
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, ElementDef, NftType, ServiceObjects, SetDef } from './desired';
import type { KeyExpr, RuleDef, Step } from './rule-steps';
import { localMatch } from './local-detector';
import { CHAIN, ENDPOINT_MAPS, SET, TABLE, parseEndpointMapName, type EndpointMapFamily } from './names';

const DSTNAT = -100;
const SRCNAT = 100;

const jump = (chain: string): Step => ({ op: 'verdict', verdict: { kind: 'jump', chain } });
const goto = (chain: string): Step => ({ op: 'verdict', verdict: { kind: 'goto', chain } });
const comment = (text: string): Step => ({ op: 'comment', text });
const newJump = (chain: string): RuleDef => [{ op: 'ctStateNew' }, jump(chain)];
const DADDR_PROTO_PORT = ['daddr', 'l4proto', 'dport'] as const;
const PROTO_PORT = ['l4proto', 'dport'] as const;

function loopbackExclusion(ctx: FamilyContext): Step {
  return { op: 'daddr', addr: ctx.family === 'ip' ? '127.0.0.0/8' : '::1', negate: true };
}

type Chain = Omit<ChainDef, 'table'>;
type Set_ = Omit<SetDef, 'table'>;

function filterChains(ctx: FamilyContext): Chain[] {
  const clusterIPsCheck: RuleDef[] = [[
    { op: 'daddrInSet', set: SET.clusterIPs }, { op: 'reject' }, comment('Reject traffic to invalid ports of ClusterIPs'),
  ]];
  for (const cidr of ctx.serviceCIDRs) {
    clusterIPsCheck.push([{ op: 'daddr', addr: cidr }, { op: 'verdict', verdict: { kind: 'drop' } }, comment('Drop traffic to unallocated ClusterIPs')]);
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
    // Plain sets, not upstream's verdict maps: a verdict-map element that jumps makes the kernel
    // re-validate the table through every element of the map (docs/nftables-ruleset.md).
    { name: CHAIN.serviceEndpointsCheck, rules: [
      [{ op: 'lookup', parts: [...DADDR_PROTO_PORT], set: SET.noEndpointServices }, goto(CHAIN.reject)],
      [{ op: 'lookup', parts: [...DADDR_PROTO_PORT], set: SET.noLocalEndpointServices }, { op: 'verdict', verdict: { kind: 'drop' } }],
    ] },
    // In the input hook the destination is local already: no fib lookup needed.
    { name: CHAIN.nodePortEndpointsCheck, rules: [
      [{ op: 'lookup', parts: [...PROTO_PORT], set: SET.noEndpointNodePorts }, ...nodePortDestination(ctx, false), goto(CHAIN.reject)],
      [{ op: 'lookup', parts: [...PROTO_PORT], set: SET.noLocalEndpointNodePorts }, ...nodePortDestination(ctx, false),
        { op: 'verdict', verdict: { kind: 'drop' } }],
    ] },
    { name: CHAIN.reject, rules: [[{ op: 'reject' }]] },
    { name: CHAIN.clusterIPsCheck, rules: clusterIPsCheck },
    { name: CHAIN.firewallCheck, rules: [[{ op: 'vmap', parts: [...DADDR_PROTO_PORT], map: SET.firewallIPs }]] },
  ];
}

function natChains(ctx: FamilyContext): Chain[] {
  const mark = ctx.masqueradeMark;
  const toNodePort = (set: string, chain: string): RuleDef =>
    [{ op: 'lookup', parts: [...PROTO_PORT], set }, ...nodePortDestination(ctx, true), goto(chain)];
  return [
    { name: CHAIN.natPrerouting, base: { type: 'nat', hook: 'prerouting', priority: DSTNAT }, rules: [[jump(CHAIN.services)]] },
    { name: CHAIN.natOutput, base: { type: 'nat', hook: 'output', priority: DSTNAT }, rules: [[jump(CHAIN.services)]] },
    { name: CHAIN.natPostrouting, base: { type: 'nat', hook: 'postrouting', priority: SRCNAT }, rules: [
      [{ op: 'ctStatusDnat' }, { op: 'lookup', parts: ['saddr', 'daddr'], set: SET.hairpin }, jump(CHAIN.markMasq),
        comment('hairpin: an endpoint reached itself through a Service')],
      [jump(CHAIN.masquerading)],
    ] },
    { name: CHAIN.services, rules: [
      [{ op: 'vmap', parts: [...DADDR_PROTO_PORT], map: SET.serviceIPs }],
      [{ op: 'lookup', parts: [...DADDR_PROTO_PORT], set: SET.clusterIPPorts }, goto(CHAIN.clusterIPTraffic)],
      [{ op: 'lookup', parts: [...DADDR_PROTO_PORT], set: SET.externalPorts }, goto(CHAIN.externalTraffic)],
      [{ op: 'lookup', parts: [...DADDR_PROTO_PORT], set: SET.externalLocalPorts }, goto(CHAIN.externalLocalTraffic)],
      [...nodePortDestination(ctx, true), { op: 'vmap', parts: [...PROTO_PORT], map: SET.serviceNodePorts }],
      toNodePort(SET.nodePorts, CHAIN.nodePortTraffic),
      toNodePort(SET.nodePortsLocal, CHAIN.nodePortLocalTraffic),
    ] },
    { name: CHAIN.markMasq, rules: [[{ op: 'markOr', bits: mark }]] },
    { name: CHAIN.masquerading, rules: [
      [{ op: 'markAnd', mask: mark, value: 0 }, { op: 'verdict', verdict: { kind: 'return' } }],
      [{ op: 'markXor', bits: mark }],
      [{ op: 'masquerade', fullyRandom: true }],
    ] },
  ];
}

/** Masquerade ClusterIP traffic that did not come from a local pod (all of it with masqueradeAll). */
function clusterIPMasq(ctx: FamilyContext): RuleDef[] {
  if (ctx.masqueradeAll) return [[jump(CHAIN.markMasq)]];
  const notLocal = localMatch(ctx.detector, true);
  return notLocal ? [[notLocal, jump(CHAIN.markMasq)]] : [];
}

/**
 * Local external policy, as upstream's `external-` chain: pods and the node itself reach every
 * endpoint (the node's traffic masqueraded, its source being the LB IP's node); everyone else
 * only this node's endpoints, with the source kept. `jump`, not goto: a Service whose endpoints
 * are all local still falls through to the local selection.
 */
function localPolicyRules(ctx: FamilyContext, cluster: string, local: string): RuleDef[] {
  const rules: RuleDef[] = [];
  const fromPod = localMatch(ctx.detector, false);
  if (fromPod) rules.push([fromPod, jump(cluster), comment('short-circuit pod traffic')]);
  rules.push([{ op: 'fibSaddrLocal' }, jump(CHAIN.markMasq), comment('masquerade local traffic')]);
  rules.push([{ op: 'fibSaddrLocal' }, jump(cluster), comment('short-circuit local traffic')]);
  rules.push([goto(local)]);
  return rules;
}

function trafficChains(ctx: FamilyContext): Chain[] {
  const sel = (f: EndpointMapFamily) => ENDPOINT_MAPS[f].select;
  return [
    { name: CHAIN.clusterIPTraffic, rules: [...clusterIPMasq(ctx), [goto(sel('cluster'))]] },
    { name: CHAIN.externalTraffic, rules: [[jump(CHAIN.markMasq)], [goto(sel('cluster'))]] },
    { name: CHAIN.externalLocalTraffic, rules: localPolicyRules(ctx, sel('cluster'), sel('local')) },
    { name: CHAIN.nodePortTraffic, rules: [[jump(CHAIN.markMasq)], [goto(sel('nodePort'))]] },
    { name: CHAIN.nodePortLocalTraffic, rules: localPolicyRules(ctx, sel('nodePort'), sel('nodePortLocal')) },
  ];
}

function mapKeyParts(fam: EndpointMapFamily, count: number): KeyExpr[] {
  return ENDPOINT_MAPS[fam].nodePort ? ['l4proto', 'dport', { numgen: count }] : ['daddr', 'l4proto', 'dport', { numgen: count }];
}

/** One rule per endpoint map of the family, fewest endpoints first: each Service is in one map. */
function selectChains(maps: readonly { fam: EndpointMapFamily; count: number; name: string }[]): Chain[] {
  return (Object.keys(ENDPOINT_MAPS) as EndpointMapFamily[]).map((fam) => ({
    name: ENDPOINT_MAPS[fam].select,
    rules: maps.filter((m) => m.fam === fam).map((m): RuleDef => [{ op: 'dnatMap', parts: mapKeyParts(fam, m.count), map: m.name }]),
  }));
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
const PORT_KEY: NftType[] = ['inet_proto', 'inet_service'];

function fixedSets(ctx: FamilyContext): Set_[] {
  const addr = addrType(ctx);
  const sets: Set_[] = [
    { name: SET.clusterIPs, key: [addr], comment: 'Active ClusterIPs' },
    { name: SET.noEndpointServices, key: vipKey(ctx), comment: 'services with no endpoints: rejected' },
    { name: SET.noEndpointNodePorts, key: PORT_KEY, comment: 'service nodeports with no endpoints: rejected' },
    { name: SET.noLocalEndpointServices, key: vipKey(ctx), comment: 'Local-policy services with no local endpoints: dropped' },
    { name: SET.noLocalEndpointNodePorts, key: PORT_KEY, comment: 'Local-policy service nodeports with no local endpoints: dropped' },
    { name: SET.firewallIPs, key: vipKey(ctx), map: 'verdict', comment: 'destinations that are subject to LoadBalancerSourceRanges' },
    { name: SET.serviceIPs, key: vipKey(ctx), map: 'verdict', comment: 'Services with session affinity (per-Service chains)' },
    { name: SET.serviceNodePorts, key: PORT_KEY, map: 'verdict', comment: 'NodePorts of Services with session affinity' },
    // One set for the session affinity of every Service: client . ClusterIP . port . endpoint IP . endpoint port.
    { name: SET.affinity, key: [addr, addr, 'inet_service', addr, 'inet_service'], timeout: true, dynamic: true,
      size: ctx.affinitySetSize, keepElements: true, comment: 'ClientIP session affinity of every Service' },
    { name: SET.clusterIPPorts, key: vipKey(ctx), comment: 'ClusterIP traffic' },
    { name: SET.externalPorts, key: vipKey(ctx), comment: 'ExternalIP and LoadBalancer IP traffic, Cluster policy' },
    { name: SET.externalLocalPorts, key: vipKey(ctx), comment: 'ExternalIP and LoadBalancer IP traffic, Local policy' },
    { name: SET.nodePorts, key: PORT_KEY, comment: 'NodePort traffic, Cluster policy' },
    { name: SET.nodePortsLocal, key: PORT_KEY, comment: 'NodePort traffic, Local policy' },
    { name: SET.hairpin, key: [addr, addr], comment: 'endpoint IP . endpoint IP: traffic an endpoint sent to itself' },
  ];
  if (ctx.nodePorts.kind === 'cidrs') sets.push({ name: SET.nodePortIPs, key: [addr], interval: true, comment: 'IPs that accept NodePort traffic' });
  return sets;
}

function endpointMapSet(ctx: FamilyContext, fam: EndpointMapFamily, count: number, name: string): Set_ {
  const addr = addrType(ctx);
  const ipw = ctx.family;
  const keyText = ENDPOINT_MAPS[fam].nodePort ? 'meta l4proto . th dport' : `${ipw} daddr . meta l4proto . th dport`;
  return {
    name,
    key: ENDPOINT_MAPS[fam].nodePort ? ['inet_proto', 'inet_service', 'integer'] : [addr, 'inet_proto', 'inet_service', 'integer'],
    map: [addr, 'inet_service'],
    typeof: `${keyText} . numgen random mod ${count} : ${ipw} daddr . th dport`,
  };
}

const inTable = <T>(objs: T[]): (T & { table: string })[] => objs.map((o) => ({ table: TABLE, ...o }));

/** `endpointMaps`: names of the endpoint maps some ServicePort has elements in. */
export function compileBase(ctx: FamilyContext, endpointMaps: Iterable<string> = []): BaseObjects {
  const maps = [...new Set(endpointMaps)].map((name) => ({ name, ...parseEndpointMapName(name)! }))
    .filter((m) => m.fam !== undefined).sort((a, b) => a.count - b.count);
  const chains = inTable([...filterChains(ctx), ...natChains(ctx), ...trafficChains(ctx), ...selectChains(maps)]);
  const sets = inTable([...fixedSets(ctx), ...maps.map((m) => endpointMapSet(ctx, m.fam, m.count, m.name))]);
  const elements: ElementDef[] = ctx.nodePorts.kind === 'cidrs'
    ? ctx.nodePorts.cidrs.map((cidr) => ({ table: TABLE, set: SET.nodePortIPs, key: [cidr] })) : [];
  return { family: ctx.family, tables: [TABLE], chains, sets, elements };
}

/** Whether a set of the base is an endpoint map (derived from the Services, not fixed). */
export function isEndpointMap(name: string): boolean {
  return parseEndpointMapName(name) !== null;
}

/** Every set some ServicePort puts an element in (compileBase picks the endpoint maps out). */
export function setNamesOf(services: readonly ServiceObjects[]): Set<string> {
  const names = new Set<string>();
  for (const s of services) for (const e of s.elements) names.add(e.set);
  return names;
}
