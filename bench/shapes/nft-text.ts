// The kube-proxy-shaped ruleset written directly as `nft -f` input, in two shapes that differ only in
// how a Service chain picks an endpoint:
//   linear:   one rule per endpoint, `numgen random mod (k-i) == 0 goto endpoint-i` (no set per Service)
//   upstream: one anonymous verdict map per Service, `numgen random mod k vmap { 0 : goto ... }`
// The linear shape is also built through the Transaction API (linear-tx.ts); this text is what
// `nft -f` is given for the upstream shape, and for the linear shape when the addon is not built.
import { CLUSTER_CIDR, SynthService } from '../lib/cluster';
import { endpointChain, externalChain, serviceChain } from './chain-names';

export type Shape = 'linear' | 'upstream';
const T = 'ip kube-proxy';
const ELEMENTS_PER_LINE = 500;

export function skeletonText(): string[] {
  return [
    `add table ${T}`,
    `add map ${T} service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; }`,
    `add map ${T} service-nodeports { type inet_proto . inet_service : verdict ; }`,
    `add set ${T} cluster-ips { type ipv4_addr ; }`,
    `add chain ${T} nat-prerouting { type nat hook prerouting priority -100 ; policy accept ; }`,
    `add chain ${T} nat-output { type nat hook output priority -100 ; policy accept ; }`,
    `add chain ${T} nat-postrouting { type nat hook postrouting priority 100 ; policy accept ; }`,
    `add chain ${T} services`,
    `add chain ${T} masquerading`,
    `add chain ${T} mark-for-masquerade`,
    `add rule ${T} nat-prerouting jump services`,
    `add rule ${T} nat-output jump services`,
    `add rule ${T} nat-postrouting jump masquerading`,
    `add rule ${T} masquerading meta mark & 0x00004000 == 0x00000000 return`,
    `add rule ${T} masquerading meta mark set meta mark xor 0x00004000`,
    `add rule ${T} masquerading masquerade fully-random`,
    `add rule ${T} mark-for-masquerade meta mark set meta mark or 0x00004000`,
    `add rule ${T} services ip daddr . meta l4proto . th dport vmap @service-ips`,
    `add rule ${T} services fib daddr type local meta l4proto . th dport vmap @service-nodeports`,
  ];
}

function loadBalanceText(s: SynthService, shape: Shape): string[] {
  const chain = serviceChain(s);
  const targets = s.endpoints.map((ep) => endpointChain(s, ep));
  if (shape === 'upstream') {
    const entries = targets.map((t, i) => `${i} : goto ${t}`).join(' , ');
    return [`add rule ${T} ${chain} numgen random mod ${targets.length} vmap { ${entries} }`];
  }
  const k = targets.length;
  return targets.map((t, i) => (i === k - 1
    ? `add rule ${T} ${chain} goto ${t}`
    : `add rule ${T} ${chain} numgen random mod ${k - i} == 0 goto ${t}`));
}

export function serviceText(s: SynthService, shape: Shape): string[] {
  const chain = serviceChain(s);
  const out = [`add chain ${T} ${chain}`];
  for (const ep of s.endpoints) {
    const epc = endpointChain(s, ep);
    out.push(
      `add chain ${T} ${epc}`,
      `add rule ${T} ${epc} ip saddr ${ep.ip} jump mark-for-masquerade`,
      `add rule ${T} ${epc} meta l4proto tcp dnat to ${ep.ip}:${ep.port}`,
    );
  }
  out.push(`add rule ${T} ${chain} ip daddr ${s.clusterIP} meta l4proto tcp th dport ${s.port} ip saddr != ${CLUSTER_CIDR} jump mark-for-masquerade`);
  out.push(...loadBalanceText(s, shape));
  if (s.nodePort) {
    const ext = externalChain(s);
    out.push(`add chain ${T} ${ext}`, `add rule ${T} ${ext} jump mark-for-masquerade`, `add rule ${T} ${ext} goto ${chain}`);
  }
  return out;
}

function elementLines(target: string, items: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < items.length; i += ELEMENTS_PER_LINE) {
    out.push(`add element ${T} ${target} { ${items.slice(i, i + ELEMENTS_PER_LINE).join(', ')} }`);
  }
  return out;
}

export function elementsText(services: SynthService[]): string[] {
  return [
    ...elementLines('service-ips', services.map((s) => `${s.clusterIP} . tcp . ${s.port} : goto ${serviceChain(s)}`)),
    ...elementLines('service-nodeports', services.filter((s) => s.nodePort)
      .map((s) => `tcp . ${s.nodePort} : goto ${externalChain(s)}`)),
    ...elementLines('cluster-ips', services.map((s) => s.clusterIP)),
  ];
}

/** The whole ruleset as one `nft -f` script (one atomic transaction). */
export function rulesetText(services: SynthService[], shape: Shape): string {
  const lines = skeletonText();
  for (const s of services) lines.push(...serviceText(s, shape));
  lines.push(...elementsText(services));
  return lines.join('\n') + '\n';
}
