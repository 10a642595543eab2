// The linear-shape ruleset (see nft-text.ts) built through the Transaction API: the same objects,
// in the same order, as the text form, so `tx.toNftScript()` is what `nft -f` is compared with.
import { CLUSTER_CIDR, SynthService } from '../lib/cluster';
import { endpointChain, externalChain, serviceChain } from './chain-names';
import type { NativeApi, Transaction } from '../lib/native';

const F = 'ip';
const T = 'kube-proxy';
const MASQ_BIT = 0x4000;
const jump = (chain: string) => ({ kind: 'jump' as const, chain });
const goto = (chain: string) => ({ kind: 'goto' as const, chain });

function addSkeleton(api: NativeApi, tx: Transaction): void {
  const r = () => api.rule(F);
  tx.addTable(F, T)
    .addSet(F, T, { name: 'service-ips', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' })
    .addSet(F, T, { name: 'service-nodeports', key: ['inet_proto', 'inet_service'], map: 'verdict' })
    .addSet(F, T, { name: 'cluster-ips', key: ['ipv4_addr'] })
    .addChain(F, T, { name: 'nat-prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100, policy: 'accept' } })
    .addChain(F, T, { name: 'nat-output', base: { type: 'nat', hook: 'output', priority: -100, policy: 'accept' } })
    .addChain(F, T, { name: 'nat-postrouting', base: { type: 'nat', hook: 'postrouting', priority: 100, policy: 'accept' } })
    .addChain(F, T, { name: 'services' })
    .addChain(F, T, { name: 'masquerading' })
    .addChain(F, T, { name: 'mark-for-masquerade' })
    .addRule(F, T, 'nat-prerouting', r().verdict(jump('services')).build())
    .addRule(F, T, 'nat-output', r().verdict(jump('services')).build())
    .addRule(F, T, 'nat-postrouting', r().verdict(jump('masquerading')).build())
    .addRule(F, T, 'masquerading', r().markAnd(MASQ_BIT, 0).verdict({ kind: 'return' }).build())
    .addRule(F, T, 'masquerading', r().markXor(MASQ_BIT).build())
    .addRule(F, T, 'masquerading', r().masquerade(true).build())
    .addRule(F, T, 'mark-for-masquerade', r().markOr(MASQ_BIT).build())
    .addRule(F, T, 'services', r().vmap(['daddr', 'l4proto', 'dport'], 'service-ips').build())
    .addRule(F, T, 'services', r().fibDaddrLocal().vmap(['l4proto', 'dport'], 'service-nodeports').build());
}

function addService(api: NativeApi, tx: Transaction, s: SynthService): void {
  const r = () => api.rule(F);
  const chain = serviceChain(s);
  tx.addChain(F, T, { name: chain });
  const targets: string[] = [];
  for (const ep of s.endpoints) {
    const epc = endpointChain(s, ep);
    targets.push(epc);
    tx.addChain(F, T, { name: epc })
      .addRule(F, T, epc, r().saddr(ep.ip).verdict(jump('mark-for-masquerade')).build())
      .addRule(F, T, epc, r().l4proto('tcp').dnat(ep.ip, ep.port).build());
  }
  tx.addRule(F, T, chain, r().daddr(s.clusterIP).l4proto('tcp').dport(s.port).saddr(CLUSTER_CIDR, true)
    .verdict(jump('mark-for-masquerade')).build());
  const k = targets.length;
  targets.forEach((t, i) => {
    const rb = i === k - 1 ? r() : r().numgenMod(k - i, 0);
    tx.addRule(F, T, chain, rb.verdict(goto(t)).build());
  });
  if (s.nodePort) {
    const ext = externalChain(s);
    tx.addChain(F, T, { name: ext })
      .addRule(F, T, ext, r().verdict(jump('mark-for-masquerade')).build())
      .addRule(F, T, ext, r().verdict(goto(chain)).build());
  }
}

export function linearTransaction(api: NativeApi, services: SynthService[]): Transaction {
  const tx = new api.Transaction();
  addSkeleton(api, tx);
  for (const s of services) addService(api, tx, s);
  tx.addElements(F, T, 'service-ips', services.map((s) => ({ key: [s.clusterIP, 'tcp', s.port], verdict: goto(serviceChain(s)) })));
  tx.addElements(F, T, 'service-nodeports', services.filter((s) => s.nodePort)
    .map((s) => ({ key: ['tcp', s.nodePort], verdict: goto(externalChain(s)) })));
  tx.addElements(F, T, 'cluster-ips', services.map((s) => ({ key: [s.clusterIP] })));
  return tx;
}

/** Kernel objects in the linear (or upstream) shape, for the report. */
export function objectCounts(services: SynthService[], shape: 'linear' | 'upstream'): { chains: number; rules: number; elements: number; anonSets: number } {
  let chains = 6;
  let rules = 9;
  for (const s of services) {
    const k = s.endpoints.length;
    chains += 1 + k + (s.nodePort ? 1 : 0);
    rules += 2 * k + 1 + (shape === 'linear' ? k : 1) + (s.nodePort ? 2 : 0);
  }
  const nodePorts = services.filter((s) => s.nodePort).length;
  return { chains, rules, elements: 2 * services.length + nodePorts, anonSets: shape === 'upstream' ? services.length : 0 };
}
