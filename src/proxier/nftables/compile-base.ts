// The fixed part of one family's table: base chains hooked into netfilter, the dispatch chains,
// and the shared maps and sets every ServicePort puts its elements into. Only the endpoint
// selection chains depend on the Services, and only on which endpoint counts occur (one rule and
// one map per count in use), never on how many Services there are.
import { rule, type KeyExpr, type Rule, type RuleBuilder } from '../../native/txn/rule-builder';
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, ElementDef, NftType, ServiceObjects, SetDef } from './desired';
import { localMatch } from '../../policy/local-detector';
import {
  CHAIN, ENDPOINT_MAPS, SELECT_RULES_MAX, SET, affinityEndpointsName, affinityRecordsName, countBitSetName, parseAffinitySetName,
  parseCountBitSetName, parseEndpointMapName, selectChainName, selectRangeChainName, type EndpointMapFamily,
} from './names';
import { codeBits, countTrie, isBranch, type CountNode } from './count-trie';

const DSTNAT = -100;
const SRCNAT = 100;

const DADDR_PROTO_PORT: KeyExpr[] = ['daddr', 'l4proto', 'dport'];
const PROTO_PORT: KeyExpr[] = ['l4proto', 'dport'];

function filterChains(ctx: FamilyContext): ChainDef[] {
  const r = () => rule(ctx.family);
  // A base chain runs for every packet: one `ct state` test sends the established ones on.
  // Then, after the firewall, a later packet of a flow no Service took, that conntrack confirmed
  // before the checks had its element (a UDP client with a fixed port, a SYN sent again): the nat
  // hooks no longer see it. No DNAT happens to it, so its address now is the one upstream's checks
  // after DNAT look up. What arrives on lo was sent here and checked in the output hook already.
  const beforeDnat = (hook: 'prerouting' | 'output') => {
    const later = r().ctStatusConfirmedNotDnat();
    if (hook === 'prerouting') later.iifname('lo', true);
    return [
      r().ctState(['new'], true).verdict({ kind: 'return' }).build(),
      r().jump(CHAIN.firewallCheck).build(),
      later.jump(CHAIN.noServiceChecks).build(),
    ];
  };
  return [
    // Before DNAT: the firewall, as upstream's. The checks upstream runs in filter hooks after DNAT
    // (Services without endpoints, ClusterIPs' other ports) run in the nat hooks (noServiceChains).
    { name: CHAIN.filterPrerouting, base: { type: 'filter', hook: 'prerouting', priority: DSTNAT - 10 },
      rules: beforeDnat('prerouting') },
    ...forwardChain(ctx),
    { name: CHAIN.filterOutput, base: { type: 'filter', hook: 'output', priority: DSTNAT - 10 }, rules: beforeDnat('output') },
    { name: CHAIN.reject, rules: [r().reject().build()] },
    { name: CHAIN.firewallCheck, rules: [firewallRule(ctx)] },
  ];
}

/**
 * loadBalancerSourceRanges, upstream's per-Service firewall chain (allowed sources return, the rest
 * dropped) as one rule over two sets: a destination in `firewall-ips` whose source is in none of its
 * ranges in `firewall-allow` is dropped. Elements only, no chain and no verdict-map element per
 * Service, so adding a Service with ranges or changing them does not make the kernel validate the
 * table. A connection to another destination pays the hash lookup alone; the interval lookup
 * (pipapo) is paid only by connections to firewalled destinations.
 */
function firewallRule(ctx: FamilyContext): Rule {
  return rule(ctx.family).lookup(DADDR_PROTO_PORT, SET.firewallIPs)
    .lookup([...DADDR_PROTO_PORT, 'saddr'], SET.firewallAllow, true).verdict({ kind: 'drop' }).build();
}

/**
 * The connections no Service took (the nat base chains jump here after `services`; a DNAT ends the
 * hook): upstream's verdicts for a destination without a usable endpoint, reject or, under a Local
 * policy, drop; then a ClusterIP's other ports. Upstream has them in filter hooks after DNAT, where
 * every new connection pays their lookups on its endpoint's address and port; here only the first
 * packet of a connection that no Service took does (and the filter hooks send the later packets of
 * such a flow here, filterChains).
 * Plain sets, not upstream's verdict maps: a verdict-map element that jumps makes the kernel
 * re-validate the table through every element of the map (docs/nftables-ruleset.md). One lookup
 * when the destination is not there: `no-endpoint-services` holds every destination without a
 * usable endpoint, `no-local-endpoint-services` those of them to drop rather than reject.
 */
function noServiceChains(ctx: FamilyContext): ChainDef[] {
  const r = () => rule(ctx.family);
  const ret = (b: RuleBuilder) => b.verdict({ kind: 'return' }).build();
  const clusterIPsCheck = [r().daddrInSet(SET.clusterIPs).reject().comment('Reject traffic to invalid ports of ClusterIPs').build()];
  for (const cidr of ctx.serviceCIDRs) {
    clusterIPsCheck.push(r().daddr(cidr).verdict({ kind: 'drop' }).comment('Drop traffic to unallocated ClusterIPs').build());
  }
  const jump = (chain: string) => r().jump(chain).build();
  return [
    { name: CHAIN.noServiceChecks, rules: [jump(CHAIN.serviceEndpointsCheck), jump(CHAIN.nodePortEndpointsCheck), jump(CHAIN.clusterIPsCheck)] },
    { name: CHAIN.serviceEndpointsCheck, rules: [
      ret(r().lookup(DADDR_PROTO_PORT, SET.noEndpointServices, true)),
      r().lookup(DADDR_PROTO_PORT, SET.noLocalEndpointServices).verdict({ kind: 'drop' }).build(),
      r().goto(CHAIN.reject).build(),
    ] },
    // The port first (most connections leave at it), then whether the address is a NodePort one.
    { name: CHAIN.nodePortEndpointsCheck, rules: [
      ret(r().lookup(PROTO_PORT, SET.noEndpointNodePorts, true)),
      ret(r().daddr(loopback(ctx))),
      ...(ctx.nodePorts.kind === 'cidrs' ? [ret(r().daddrInSet(SET.nodePortIPs, true))] : []),
      ret(r().fibDaddrLocal(true)),
      r().lookup(PROTO_PORT, SET.noLocalEndpointNodePorts).verdict({ kind: 'drop' }).build(),
      r().goto(CHAIN.reject).build(),
    ] },
    { name: CHAIN.clusterIPsCheck, rules: clusterIPsCheck },
  ];
}

/**
 * Upstream's `ct state invalid drop` (kubernetes#74839): a reply conntrack finds INVALID (out of
 * the TCP window) is not un-DNATed; forwarded as it is, the client answers the pod's address with a
 * RST that kills the real connection. nf_conntrack_tcp_be_liberal makes only out-of-window RSTs
 * INVALID, so with it set upstream installs no rule (asymmetric routing needs the packets), and we
 * no chain: it would hold nothing, and forwarded packets would still pass its hook.
 */
function forwardChain(ctx: FamilyContext): ChainDef[] {
  if (!ctx.dropInvalid) return [];
  const drop = rule(ctx.family).ctState(['invalid']).verdict({ kind: 'drop' }).build();
  return [{ name: CHAIN.filterForward, base: { type: 'filter', hook: 'forward', priority: DSTNAT - 10 }, rules: [drop] }];
}

/** A DNAT in `services` ends the hook: only the connections no Service took reach the checks after it. */
function natBaseRules(ctx: FamilyContext): Rule[] {
  const jump = (chain: string) => rule(ctx.family).jump(chain).build();
  return [jump(CHAIN.services), jump(CHAIN.noServiceChecks)];
}

function natChains(ctx: FamilyContext, affinity: AffinityInUse): ChainDef[] {
  const r = () => rule(ctx.family);
  const mark = ctx.masqueradeMark;
  const record = affinity.size > 0 ? [r().ctStatusDnat().jump(CHAIN.recordAffinity).comment('session affinity: what a connection was sent to').build()] : [];
  return [
    { name: CHAIN.natPrerouting, base: { type: 'nat', hook: 'prerouting', priority: DSTNAT }, rules: natBaseRules(ctx) },
    { name: CHAIN.natOutput, base: { type: 'nat', hook: 'output', priority: DSTNAT }, rules: natBaseRules(ctx) },
    { name: CHAIN.natPostrouting, base: { type: 'nat', hook: 'postrouting', priority: SRCNAT }, rules: [
      ...record,
      // Only a connection not yet marked needs the pair looked up (ClusterIP traffic from outside the
      // cluster, NodePorts and external IPs are marked already).
      r().ctStatusDnat().markAnd(mark, 0).lookup(['saddr', 'daddr'], SET.hairpin).jump(CHAIN.markMasq)
        .comment('hairpin: an endpoint reached itself through a Service').build(),
      r().jump(CHAIN.masquerading).build(),
    ] },
    // ClusterIPs first: most connections are to them. The rarer kinds behind one union set each, so
    // that a connection to no Service (most of a node's) misses two sets. A destination is in one
    // of the second stage's sets or maps at most.
    { name: CHAIN.services, rules: [
      r().lookup(DADDR_PROTO_PORT, SET.clusterIPPorts).goto(CHAIN.clusterIPTraffic).build(),
      r().lookup(DADDR_PROTO_PORT, SET.otherServicePorts).goto(CHAIN.otherServices).build(),
      // The set lookup before the fib: a NodePort's connection asks the FIB, no other does.
      nodePortDestination(r().lookup(PROTO_PORT, SET.allNodePorts), ctx).goto(CHAIN.nodePortServices).build(),
    ] },
    { name: CHAIN.otherServices, rules: [
      r().lookup(DADDR_PROTO_PORT, SET.externalPorts).goto(CHAIN.externalTraffic).build(),
      r().lookup(DADDR_PROTO_PORT, SET.externalLocalPorts).goto(CHAIN.externalLocalTraffic).build(),
      ...(ctx.family === 'ip6' ? [r().vmap(DADDR_PROTO_PORT, SET.serviceIPs).build()] : []),
    ] },
    { name: CHAIN.nodePortServices, rules: [
      r().lookup(PROTO_PORT, SET.nodePorts).goto(CHAIN.nodePortTraffic).build(),
      r().lookup(PROTO_PORT, SET.nodePortsLocal).goto(CHAIN.nodePortLocalTraffic).build(),
      ...(ctx.family === 'ip6' ? [r().vmap(PROTO_PORT, SET.serviceNodePorts).build()] : []),
    ] },
    { name: CHAIN.markMasq, rules: [r().markOr(mark).build()] },
    { name: CHAIN.masquerading, rules: [
      r().markAnd(mark, 0).verdict({ kind: 'return' }).build(),
      r().markXor(mark).build(),
      r().masquerade(true).build(),
    ] },
  ];
}

/** Masquerade ClusterIP traffic that did not come from a local pod (all of it with masqueradeAll). */
function clusterIPMasq(ctx: FamilyContext): Rule[] {
  if (ctx.masqueradeAll) return [rule(ctx.family).jump(CHAIN.markMasq).build()];
  const notLocal = localMatch(ctx.detector, true);
  return notLocal ? [notLocal(rule(ctx.family)).jump(CHAIN.markMasq).build()] : [];
}

/**
 * Local external policy, as upstream's `external-` chain: pods and the node itself reach every
 * endpoint (the node's traffic masqueraded, its source being the LB IP's node); everyone else
 * only this node's endpoints, with the source kept. `jump`, not goto: a Service whose endpoints
 * are all local still falls through to the local selection.
 */
function localPolicyRules(ctx: FamilyContext, cluster: string, local: string): Rule[] {
  const r = () => rule(ctx.family);
  const rules: Rule[] = [];
  const fromPod = localMatch(ctx.detector, false);
  if (fromPod) rules.push(fromPod(r()).jump(cluster).comment('short-circuit pod traffic').build());
  rules.push(r().fibSaddrLocal().jump(CHAIN.markMasq).comment('masquerade local traffic').build());
  rules.push(r().fibSaddrLocal().jump(cluster).comment('short-circuit local traffic').build());
  rules.push(r().goto(local).build());
  return rules;
}

function trafficChains(ctx: FamilyContext): ChainDef[] {
  const toSelect = (f: EndpointMapFamily) => rule(ctx.family).goto(ENDPOINT_MAPS[f].select).build();
  const select = (f: EndpointMapFamily) => ENDPOINT_MAPS[f].select;
  const masquerade = () => rule(ctx.family).jump(CHAIN.markMasq).build();
  return [
    { name: CHAIN.clusterIPTraffic, rules: [...clusterIPMasq(ctx), toSelect('cluster')] },
    { name: CHAIN.externalTraffic, rules: [masquerade(), toSelect('cluster')] },
    { name: CHAIN.externalLocalTraffic, rules: localPolicyRules(ctx, select('cluster'), select('local')) },
    { name: CHAIN.nodePortTraffic, rules: [masquerade(), toSelect('nodePort')] },
    { name: CHAIN.nodePortLocalTraffic, rules: localPolicyRules(ctx, select('nodePort'), select('nodePortLocal')) },
  ];
}

interface EndpointMap { fam: EndpointMapFamily; count: number; name: string }

function mapKeyParts(fam: EndpointMapFamily, count: number): KeyExpr[] {
  return ENDPOINT_MAPS[fam].nodePort ? ['l4proto', 'dport', { numgen: count }] : ['daddr', 'l4proto', 'dport', { numgen: count }];
}

function destinationKey(fam: EndpointMapFamily): KeyExpr[] {
  return ENDPOINT_MAPS[fam].nodePort ? PROTO_PORT : DADDR_PROTO_PORT;
}

const countRule = (ctx: FamilyContext, m: EndpointMap): Rule => rule(ctx.family).dnatMap(mapKeyParts(m.fam, m.count), m.name).build();

/**
 * Per family: the select chain tests the larger counts' code bits (count-trie.ts), each test going
 * to the chain of the codes with that bit, and ends with the rules of the counts up to
 * SELECT_RULES_MAX, fewest first (each destination is in one map). Every chain of the tree is a
 * branch's `one` side; its `zero` side follows inline. A destination of a larger count pays one
 * set lookup per bit that tells its code from the others in use, then its count's rule; a small
 * one the tests of the all-zero path, then at most SELECT_RULES_MAX rules.
 *
 * A larger count's rule is always in its own chain (`select-endpoint-6`), reached by a `goto` where
 * the tree would have it inline: the chain a map is looked up from never changes while the count
 * is in use. Looking a map up from a chain new to it makes the kernel walk all its elements
 * (nf_tables_bind_set: 65 ms for the 264,000 slots of `endpoints-6` at 44k Services), which a
 * count new to the cluster did when it split the branch holding a big count's rule.
 */
function selectChains(ctx: FamilyContext, maps: readonly EndpointMap[], affinity: AffinityInUse): ChainDef[] {
  const chains: ChainDef[] = [];
  for (const fam of Object.keys(ENDPOINT_MAPS) as EndpointMapFamily[]) {
    const check = affinity.has(fam) ? [affinityCheckRule(ctx, fam)] : [];
    const own = maps.filter((m) => m.fam === fam);
    const small = own.filter((m) => m.count <= SELECT_RULES_MAX).map((m) => countRule(ctx, m));
    const byCount = new Map(own.map((m) => [m.count, m]));
    const countChain = (code: number): string => {
      const name = selectChainName(fam, code + SELECT_RULES_MAX);
      chains.push({ name, rules: [countRule(ctx, byCount.get(code + SELECT_RULES_MAX)!)] });
      return name;
    };
    const inline = (n: CountNode): Rule[] => {
      if (!isBranch(n)) return n.code === 0 ? small : [rule(ctx.family).goto(countChain(n.code)).build()];
      const test = rule(ctx.family).lookup(destinationKey(fam), countBitSetName(fam, n.bit)).goto(nodeChainName(fam, n.one)).build();
      if (isBranch(n.one)) chains.push({ name: nodeChainName(fam, n.one), rules: inline(n.one) });
      else countChain(n.one.code);
      return [test, ...inline(n.zero)];
    };
    const large = own.filter((m) => m.count > SELECT_RULES_MAX).map((m) => m.count);
    chains.push({ name: ENDPOINT_MAPS[fam].select, rules: [...check, ...inline(countTrie(large))] });
  }
  return chains;
}

/** The timeouts in use per endpoint map family, from the names of the affinity endpoint sets in use. */
type AffinityInUse = Map<EndpointMapFamily, number[]>;

function affinityInUse(setNames: Iterable<string>): AffinityInUse {
  const out: AffinityInUse = new Map();
  for (const name of setNames) {
    const a = parseAffinitySetName(name);
    if (a && a.timeoutSeconds > 0) (out.get(a.fam) ?? out.set(a.fam, []).get(a.fam)!).push(a.timeoutSeconds);
  }
  for (const ts of out.values()) ts.sort((a, b) => a - b);
  return out;
}

/**
 * A client with a record for this destination goes back to the endpoint it names: the record's
 * client . destination key, the endpoint its value (docs/nftables-ruleset.md, "Session affinity").
 * No record: the lookup fails, the rule ends, and the count's rule picks, as without affinity.
 */
function affinityCheckRule(ctx: FamilyContext, fam: EndpointMapFamily): Rule {
  return rule(ctx.family).dnatMap(['saddr', ...destinationKey(fam)], affinityRecordsName(fam)).comment('session affinity').build();
}

const PROTOS = ['tcp', 'udp', 'sctp'] as const;
const CT_DESTINATION: KeyExpr[] = ['ct original daddr', 'l4proto', 'ct original proto-dst'];
const CT_NODEPORT: KeyExpr[] = ['l4proto', 'ct original proto-dst'];
const CT_ENDPOINT: KeyExpr[] = ['ct reply saddr', 'ct reply proto-src'];

/**
 * After the DNAT (nat postrouting): a connection sent to an endpoint of an affinity destination
 * records it, client . destination -> endpoint, with the destination's timeout. The pair must be in
 * that timeout's endpoint set: a record names only an endpoint its destination has, whoever made
 * the DNAT. One rule per protocol: nft types conntrack's ports by the rule's protocol.
 */
function recordAffinityChain(ctx: FamilyContext, affinity: AffinityInUse): ChainDef {
  const rules: Rule[] = [];
  for (const [fam, timeouts] of affinity) {
    const destination = ENDPOINT_MAPS[fam].nodePort ? CT_NODEPORT : CT_DESTINATION;
    for (const t of timeouts) {
      for (const proto of PROTOS) {
        rules.push(rule(ctx.family).l4proto(proto).lookup([...destination, ...CT_ENDPOINT], affinityEndpointsName(fam, t))
          .dynsetUpdate(['saddr', ...destination], affinityRecordsName(fam), t, CT_ENDPOINT).build());
      }
    }
  }
  return { name: CHAIN.recordAffinity, rules };
}

/** A node's chain: a count's own (`select-endpoint-6`), or the range of counts a branch covers (`select-endpoint-5-8`). */
function nodeChainName(fam: EndpointMapFamily, n: CountNode): string {
  return isBranch(n)
    ? selectRangeChainName(fam, n.lo + SELECT_RULES_MAX, n.hi + SELECT_RULES_MAX)
    : selectChainName(fam, n.code + SELECT_RULES_MAX);
}

/** Never a NodePort address: upstream's nftables mode serves no NodePort on loopback either. */
const loopback = (ctx: FamilyContext): string => (ctx.family === 'ip' ? '127.0.0.0/8' : '::1');

/** Adds "addressed to a NodePort address": every local address but loopback, or our CIDR set. */
function nodePortDestination(b: RuleBuilder, ctx: FamilyContext): RuleBuilder {
  b.daddr(loopback(ctx), true);
  if (ctx.nodePorts.kind === 'cidrs') b.daddrInSet(SET.nodePortIPs);
  return b.fibDaddrLocal();
}

const addrType = (ctx: FamilyContext): NftType => (ctx.family === 'ip' ? 'ipv4_addr' : 'ipv6_addr');
const vipKey = (ctx: FamilyContext): NftType[] => [addrType(ctx), 'inet_proto', 'inet_service'];
const PORT_KEY: NftType[] = ['inet_proto', 'inet_service'];

function fixedSets(ctx: FamilyContext): SetDef[] {
  const addr = addrType(ctx);
  const sets: SetDef[] = [
    { name: SET.clusterIPs, key: [addr], comment: 'Active ClusterIPs' },
    { name: SET.noEndpointServices, key: vipKey(ctx), comment: 'services with no usable endpoints: rejected (dropped if in no-local-endpoint-services)' },
    { name: SET.noEndpointNodePorts, key: PORT_KEY, comment: 'service nodeports with no usable endpoints: rejected (dropped if in no-local-endpoint-nodeports)' },
    { name: SET.noLocalEndpointServices, key: vipKey(ctx), comment: 'Local-policy services with no local endpoints: dropped' },
    { name: SET.noLocalEndpointNodePorts, key: PORT_KEY, comment: 'Local-policy service nodeports with no local endpoints: dropped' },
    { name: SET.firewallIPs, key: vipKey(ctx), comment: 'destinations that are subject to LoadBalancerSourceRanges' },
    { name: SET.firewallAllow, key: [...vipKey(ctx), addr], interval: true, comment: 'destination . source range that LoadBalancerSourceRanges allow' },
    { name: SET.clusterIPPorts, key: vipKey(ctx), comment: 'ClusterIP traffic' },
    { name: SET.externalPorts, key: vipKey(ctx), comment: 'ExternalIP and LoadBalancer IP traffic, Cluster policy' },
    { name: SET.externalLocalPorts, key: vipKey(ctx), comment: 'ExternalIP and LoadBalancer IP traffic, Local policy' },
    { name: SET.nodePorts, key: PORT_KEY, comment: 'NodePort traffic, Cluster policy' },
    { name: SET.nodePortsLocal, key: PORT_KEY, comment: 'NodePort traffic, Local policy' },
    { name: SET.otherServicePorts, key: vipKey(ctx), comment: 'external-ports and external-local-ports together' },
    { name: SET.allNodePorts, key: PORT_KEY, comment: 'nodeports and nodeports-local together' },
    { name: SET.hairpin, key: [addr, addr], comment: 'endpoint IP . endpoint IP: traffic an endpoint sent to itself' },
  ];
  if (ctx.nodePorts.kind === 'cidrs') sets.push({ name: SET.nodePortIPs, key: [addr], interval: true, comment: 'IPs that accept NodePort traffic' });
  if (ctx.family === 'ip6') sets.push(...affinityChainSets(ctx));
  return sets;
}

/** IPv6 session affinity's dispatch maps and records (affinity-chains.ts). */
function affinityChainSets(ctx: FamilyContext): SetDef[] {
  const addr = addrType(ctx);
  return [
    { name: SET.serviceIPs, key: vipKey(ctx), map: 'verdict', comment: 'Services with session affinity (per-Service chains)' },
    { name: SET.serviceNodePorts, key: PORT_KEY, map: 'verdict', comment: 'NodePorts of Services with session affinity' },
    // client . ClusterIP . port . endpoint IP . endpoint port.
    { name: SET.affinity, key: [addr, addr, 'inet_service', addr, 'inet_service'], timeout: true, dynamic: true,
      size: ctx.affinitySetSize, keepElements: true, comment: 'ClientIP session affinity of every Service' },
  ];
}

function endpointMapSet(ctx: FamilyContext, fam: EndpointMapFamily, count: number, name: string): SetDef {
  const addr = addrType(ctx);
  const daddr = `${ctx.family} daddr`;
  const keyText = ENDPOINT_MAPS[fam].nodePort ? 'meta l4proto . th dport' : `${daddr} . meta l4proto . th dport`;
  return {
    name,
    key: ENDPOINT_MAPS[fam].nodePort ? ['inet_proto', 'inet_service', 'integer'] : [addr, 'inet_proto', 'inet_service', 'integer'],
    map: [addr, 'inet_service'],
    typeof: `${keyText} . numgen random mod ${count} : ${daddr} . th dport`,
  };
}

/** A family's destination key, as a set's key types. */
function destinationTypes(ctx: FamilyContext, fam: EndpointMapFamily): NftType[] {
  return ENDPOINT_MAPS[fam].nodePort ? PORT_KEY : vipKey(ctx);
}

/** The records a client's connections to `fam`'s destinations leave: written by the packet path, kept by every sync. */
function affinityRecordsSet(ctx: FamilyContext, fam: EndpointMapFamily): SetDef {
  return {
    name: affinityRecordsName(fam), key: [addrType(ctx), ...destinationTypes(ctx, fam)], map: [addrType(ctx), 'inet_service'],
    timeout: true, dynamic: true, size: ctx.affinitySetSize, keepElements: true,
    comment: 'ClientIP session affinity: client . destination -> the endpoint it was sent to',
  };
}

function affinityEndpointsSet(ctx: FamilyContext, fam: EndpointMapFamily, timeoutSeconds: number): SetDef {
  return {
    name: affinityEndpointsName(fam, timeoutSeconds), key: [...destinationTypes(ctx, fam), addrType(ctx), 'inet_service'],
    comment: `destination . endpoint of the Services with session affinity of ${timeoutSeconds}s`,
  };
}

function affinitySets(ctx: FamilyContext, affinity: AffinityInUse): SetDef[] {
  return [...affinity].flatMap(([fam, ts]) => [affinityRecordsSet(ctx, fam), ...ts.map((t) => affinityEndpointsSet(ctx, fam, t))]);
}

/** The plain set of the destinations of `fam` whose count's code has `bit` set (count-trie.ts). */
function countBitSet(ctx: FamilyContext, fam: EndpointMapFamily, bit: number): SetDef {
  return {
    name: countBitSetName(fam, bit), key: ENDPOINT_MAPS[fam].nodePort ? PORT_KEY : vipKey(ctx),
    comment: `destinations with more than ${SELECT_RULES_MAX} endpoints whose count - ${SELECT_RULES_MAX} has bit ${bit} set`,
  };
}

/** The count-bit sets the maps in use need: every bit of every larger count's code. */
function countBitSets(ctx: FamilyContext, maps: readonly EndpointMap[]): SetDef[] {
  const bits = new Map<EndpointMapFamily, Set<number>>();
  for (const m of maps) for (const b of codeBits(m.count)) (bits.get(m.fam) ?? bits.set(m.fam, new Set()).get(m.fam)!).add(b);
  return [...bits].flatMap(([fam, bs]) => [...bs].sort((a, b) => a - b).map((b) => countBitSet(ctx, fam, b)));
}

/**
 * `setNames`: names of the sets some ServicePort has elements in; the endpoint maps among them
 * decide the select chains and the derived sets (isDerivedSet).
 */
export function compileBase(ctx: FamilyContext, setNamesIn: Iterable<string> = []): BaseObjects {
  const setNames = new Set(setNamesIn);
  const maps: EndpointMap[] = [];
  for (const name of setNames) {
    const m = parseEndpointMapName(name);
    if (m) maps.push({ name, ...m });
  }
  maps.sort((a, b) => a.count - b.count);
  const affinity = affinityInUse(setNames);
  const chains = [
    ...filterChains(ctx), ...natChains(ctx, affinity), ...noServiceChains(ctx), ...trafficChains(ctx), ...selectChains(ctx, maps, affinity),
    ...(affinity.size > 0 ? [recordAffinityChain(ctx, affinity)] : []),
  ];
  const derived = [...maps.map((m) => endpointMapSet(ctx, m.fam, m.count, m.name)), ...countBitSets(ctx, maps), ...affinitySets(ctx, affinity)];
  const sets = [...fixedSets(ctx), ...derived].map(frozen);
  return { family: ctx.family, chains, sets, elements: baseElements(ctx) };
}

/** A base set cannot change once made: a transaction then checks its spec once (tx-writer.ts declaredSpec). */
function frozen(s: SetDef): SetDef {
  Object.freeze(s.key);
  if (Array.isArray(s.map)) Object.freeze(s.map);
  return Object.freeze(s);
}

const setsByName = new WeakMap<BaseObjects, ReadonlyMap<string, SetDef>>();

/** The base's sets by name, made once per base (a partial sync looks up the few it names). */
export function baseSetsByName(base: BaseObjects): ReadonlyMap<string, SetDef> {
  let m = setsByName.get(base);
  if (!m) setsByName.set(base, m = new Map(base.sets.map((s) => [s.name, s])));
  return m;
}

/** Elements not owned by any ServicePort: they depend on the context alone. */
export function baseElements(ctx: FamilyContext): ElementDef[] {
  return ctx.nodePorts.kind === 'cidrs' ? ctx.nodePorts.cidrs.map((cidr) => ({ set: SET.nodePortIPs, key: [cidr] })) : [];
}

/** The set a ServicePort's element names, as compileBase declares it (a full sync encodes elements before it has the base). */
export function setDefFor(ctx: FamilyContext, name: string): SetDef {
  const m = parseEndpointMapName(name);
  const bit = m ? null : parseCountBitSetName(name);
  const aff = m || bit ? null : parseAffinitySetName(name);
  const def = m ? endpointMapSet(ctx, m.fam, m.count, name) : bit ? countBitSet(ctx, bit.fam, bit.bit)
    : aff ? (aff.timeoutSeconds > 0 ? affinityEndpointsSet(ctx, aff.fam, aff.timeoutSeconds) : affinityRecordsSet(ctx, aff.fam))
    : fixedSets(ctx).find((s) => s.name === name);
  if (!def) throw new Error(`no set '${name}' in the ${ctx.family} table`);
  return def;
}

/**
 * Whether a set of the base is derived from the sets the ServicePorts use (an endpoint map, a
 * count-bit set, an affinity set: they exist while in use), not fixed.
 */
export function isDerivedSet(name: string): boolean {
  return parseEndpointMapName(name) !== null || parseCountBitSetName(name) !== null || parseAffinitySetName(name) !== null;
}

/** Every set some ServicePort puts an element in (compileBase picks the endpoint maps out). */
export function setNamesOf(services: readonly ServiceObjects[]): Set<string> {
  const names = new Set<string>();
  for (const s of services) for (const e of s.elements) names.add(e.set);
  return names;
}
