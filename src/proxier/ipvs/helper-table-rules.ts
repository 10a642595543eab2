// The fixed chains and rules of one family's helper table. IPVS takes packets at LOCAL_IN
// (priority 98/99), LOCAL_OUT (-99/-98) and FORWARD (99/100): the marks are set in nat
// prerouting/output at -100 and the filter chains run at -110, both before IPVS rewrites the
// destination, so every rule here sees the Service address the client used.
import { rule, type Rule } from '../../native/txn/rule-builder';
import type { ChainSpec } from '../../native/txn/transaction';
import { localMatch } from '../../policy/local-detector';
import type { FamilyContext } from './helper-table-context';
import { CHAIN, SET } from './helper-table-names';

export interface ChainRules { chain: ChainSpec; rules: Rule[] }

const FILTER_PRIORITY = -110;
const NAT_DST_PRIORITY = -100;
const NAT_SRC_PRIORITY = 100;
const VIP = ['daddr', 'l4proto', 'dport'] as const;

function base(name: string, type: 'nat' | 'filter', hook: 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting', priority: number): ChainSpec {
  return { name, base: { type, hook, priority, policy: 'accept' } };
}

export function helperChains(ctx: FamilyContext): ChainRules[] {
  const f = ctx.family;
  const r = () => rule(f);
  const newJump = (chain: string) => r().ctState(['new']).jump(chain).build();
  return [
    { chain: { name: CHAIN.services }, rules: servicesRules(ctx) },
    { chain: { name: CHAIN.markForMasquerade }, rules: [r().markOr(ctx.mark).build()] },
    {
      chain: { name: CHAIN.masquerading },
      rules: [
        r().markAnd(ctx.mark, 0).verdict({ kind: 'return' }).build(),
        r().markXor(ctx.mark).build(),
        r().masquerade(true).comment('kubernetes service traffic requiring SNAT').build(),
      ],
    },
    {
      chain: { name: CHAIN.firewallCheck },
      rules: [r().lookup([...VIP], SET.firewallIPs).lookup([...VIP, 'saddr'], SET.firewallAllow, true)
        .verdict({ kind: 'drop' }).comment('loadBalancerSourceRanges').build()],
    },
    { chain: { name: CHAIN.endpointsCheck }, rules: endpointsCheckRules(ctx) },
    {
      chain: { name: CHAIN.ipvsFilter },
      rules: [
        r().lookup([...VIP], SET.serviceIPs).verdict({ kind: 'return' }).build(),
        r().l4proto('tcp').lookup(['dport'], SET.healthCheckPorts).verdict({ kind: 'return' }).build(),
        r().daddrInSet(SET.ipvsIPs).reject().comment('no Service on this port of a kube-ipvs0 address').build(),
      ],
    },
    { chain: base(CHAIN.natPrerouting, 'nat', 'prerouting', NAT_DST_PRIORITY), rules: [r().jump(CHAIN.services).build()] },
    { chain: base(CHAIN.natOutput, 'nat', 'output', NAT_DST_PRIORITY), rules: [r().jump(CHAIN.services).build()] },
    {
      chain: base(CHAIN.natPostrouting, 'nat', 'postrouting', NAT_SRC_PRIORITY),
      rules: [
        r().lookup(['daddr', 'l4proto', 'dport', 'saddr'], SET.hairpin).masquerade().comment('an endpoint reaching its own Service').build(),
        r().jump(CHAIN.masquerading).build(),
      ],
    },
    {
      chain: base(CHAIN.filterInput, 'filter', 'input', FILTER_PRIORITY),
      rules: [newJump(CHAIN.firewallCheck), newJump(CHAIN.endpointsCheck), newJump(CHAIN.ipvsFilter)],
    },
    {
      chain: base(CHAIN.filterForward, 'filter', 'forward', FILTER_PRIORITY),
      rules: [
        newJump(CHAIN.firewallCheck),
        newJump(CHAIN.endpointsCheck),
        // Upstream's KUBE-FORWARD `ctstate INVALID -j DROP` unless nf_conntrack_tcp_be_liberal (kubernetes#74839).
        ...(ctx.dropInvalid ? [r().ctState(['invalid']).verdict({ kind: 'drop' }).build()] : []),
        r().markAnd(ctx.mark, ctx.mark).verdict({ kind: 'accept' }).comment('kubernetes forwarding rules').build(),
        r().ctState(['established', 'related']).verdict({ kind: 'accept' }).comment('kubernetes forwarding conntrack rule').build(),
      ],
    },
    {
      chain: base(CHAIN.filterOutput, 'filter', 'output', FILTER_PRIORITY),
      rules: [newJump(CHAIN.firewallCheck), newJump(CHAIN.endpointsCheck)],
    },
  ];
}

/**
 * Reject what has no endpoint; drop what a Local policy finds no local endpoint for. A ClusterIP
 * there (internalTrafficPolicy Local) is dropped for everyone. An external address or NodePort
 * (externalTrafficPolicy Local) is not dropped for the node's pods: IPVS takes them to the
 * Service's other endpoints (desired.ts, upstream PR 97081), as the nftables mode's external chain
 * short-circuits them. Without a detector no source is known to be a pod: everything is dropped.
 */
function endpointsCheckRules(ctx: FamilyContext): Rule[] {
  const r = () => rule(ctx.family);
  const drop = { kind: 'drop' } as const;
  const notLocal = localMatch(ctx.detector, true);
  const noLocalRules = notLocal
    ? [
      r().lookup([...VIP], SET.clusterIPs).lookup([...VIP], SET.noLocalEndpointServices).verdict(drop).build(),
      notLocal(r()).lookup([...VIP], SET.noLocalEndpointServices).verdict(drop).build(),
      notLocal(r()).daddrInSet(SET.nodePortIPs).lookup(['l4proto', 'dport'], SET.noLocalEndpointNodePorts).verdict(drop).build(),
    ]
    : [
      r().lookup([...VIP], SET.noLocalEndpointServices).verdict(drop).build(),
      r().daddrInSet(SET.nodePortIPs).lookup(['l4proto', 'dport'], SET.noLocalEndpointNodePorts).verdict(drop).build(),
    ];
  return [
    r().lookup([...VIP], SET.noEndpointServices).reject().build(),
    r().daddrInSet(SET.nodePortIPs).lookup(['l4proto', 'dport'], SET.noEndpointNodePorts).reject().build(),
    ...noLocalRules,
  ];
}

/** Upstream's KUBE-SERVICES, KUBE-NODE-PORT and KUBE-LOAD-BALANCER (nat): which new connections are marked. */
function servicesRules(ctx: FamilyContext): Rule[] {
  const r = () => rule(ctx.family);
  const out: Rule[] = [r().saddr(ctx.family === 'ip' ? '127.0.0.0/8' : '::1').verdict({ kind: 'return' }).build()];
  const notLocal = localMatch(ctx.detector, true);
  if (ctx.masqueradeAll) {
    out.push(r().lookup([...VIP], SET.clusterIPs).jump(CHAIN.markForMasquerade).build());
  } else if (notLocal) {
    out.push(notLocal(r()).lookup([...VIP], SET.clusterIPs).jump(CHAIN.markForMasquerade).build());
  } else {
    // No detector: as upstream, the node's own connections to a ClusterIP (the VIP is bound to
    // kube-ipvs0, so it is their source address).
    out.push(r().lookup(['saddr', 'l4proto', 'dport'], SET.clusterIPs).jump(CHAIN.markForMasquerade).build());
  }
  out.push(r().lookup([...VIP], SET.externalIPs).jump(CHAIN.markForMasquerade).build());
  out.push(r().daddrInSet(SET.nodePortIPs).lookup(['l4proto', 'dport'], SET.nodePorts).jump(CHAIN.markForMasquerade).build());
  return out;
}
