// The IPVS bench's tables (plain markdown) and the page written to bench/results/ipvs-*.md.
import { markdownTable, type Cell } from '../report/table';
import type { SyncTiming } from './ours';
import type { ProcTiming } from './peer';
import type { SizeResult } from './size';

export interface IpvsBenchRun {
  date: string;
  guestKernel: string;
  guestCpus: number;
  node: string;
  repeats: number;
  /** The same pure-JS workload on the host and in the guest (ms): the guest's slowdown. */
  calibration: { hostMs?: number; guestMs: number };
  sizes: SizeResult[];
}

/** The sample whose wall time is the q-quantile (so its parts add up to it). */
function atQuantile(xs: readonly SyncTiming[], q: number): SyncTiming {
  const s = [...xs].sort((a, b) => a.wallMs - b.wallMs);
  return s[Math.max(0, Math.min(s.length - 1, Math.ceil(q * s.length) - 1))];
}

export function quantile(values: readonly number[], q: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] : NaN;
}

/** Milliseconds as text: whole above 100, one decimal below (a fixed 3 decimals reads as false precision). */
const ms = (v: number): string => (Number.isNaN(v) ? '-' : v >= 100 ? v.toFixed(0) : v.toFixed(1));
const p = (xs: readonly { wallMs: number }[], q: number): string => ms(quantile(xs.map((x) => x.wallMs), q));
const part = (t: SyncTiming, name: string): number => t.parts[name] ?? 0;
/** A sync's wall time without the helper table and rtnetlink: IPVS and the proxier's planning. */
const ipvsOnly = (t: SyncTiming): number => t.wallMs - part(t, 'helper') - part(t, 'rtnl');
const withAddresses = (t: SyncTiming): number => t.wallMs - part(t, 'helper');
const own = (t: SyncTiming): number => t.wallMs - part(t, 'helper') - part(t, 'rtnl') - part(t, 'ipvs');
const sum = (...t: ProcTiming[]): number => t.reduce((a, x) => a + x.wallMs, 0);

export function mainTable(r: IpvsBenchRun): string {
  const rows: Cell[][] = r.sizes.map((s) => [
    s.services, `${s.virtualServices} / ${s.realServers}`,
    ms(s.ours.cold.wallMs), ms(withAddresses(s.ours.cold)), ms(ipvsOnly(s.ours.cold)),
    ms(s.peer.restore.wallMs), ms(sum(s.peer.restore, s.peer.addresses)),
    p(s.ours.partial, 0.5), p(s.ours.partial, 0.9), p(s.peer.partial, 0.5), p(s.peer.partial, 0.9), p(s.peer.floor, 0.5),
  ]);
  return markdownTable([
    'N', 'VS / real servers', 'ours full (all)', 'ours full w/o helper', 'ours full IPVS only', 'ipvsadm -R', 'ipvsadm -R + ip -batch',
    'ours partial p50', 'ours partial p90', 'peer partial p50', 'peer partial p90', 'ipvsadm floor p50',
  ], rows);
}

export function breakdownTable(r: IpvsBenchRun): string {
  const rows: Cell[][] = [];
  for (const s of r.sizes) {
    const kinds: [string, SyncTiming][] = [['cold full', s.ours.cold], ['full, nothing changed', s.ours.fullUnchanged],
      ['partial (the p50 one)', atQuantile(s.ours.partial, 0.5)]];
    for (const [kind, t] of kinds) {
      rows.push([s.services, kind, ms(t.wallMs), ms(t.cpuMs), ms(part(t, 'helper')), ms(part(t, 'ipvs')), ms(part(t, 'rtnl')), ms(own(t))]);
    }
  }
  return markdownTable(['N', 'sync', 'wall', 'CPU', 'helper table', 'IPVS (netlink + serialize)', 'rtnetlink', 'proxier own'], rows);
}

export function slowdownLine(r: IpvsBenchRun): string {
  const { hostMs, guestMs } = r.calibration;
  const ratio = hostMs ? ` vs ${hostMs.toFixed(0)} ms on the host: the guest is ${(guestMs / hostMs).toFixed(1)}x slower` : '';
  return `Calibration (the same pure-JS workload: the 10k cluster built and its 55k IPVS ops serialized, best of 3): `
    + `${guestMs.toFixed(0)} ms in the guest${ratio}.`;
}

export function resultPage(r: IpvsBenchRun): string {
  return [
    `# IPVS bench, ${r.date}`,
    '',
    `Measured inside the IPVS guest (qemu software emulation, kernel ${r.guestKernel}, ${r.guestCpus} vCPUs, node ${r.node}): `
      + 'every figure is the guest\'s, not the host\'s. ' + slowdownLine(r),
    `Other helpers boot guests and run tests on the same 2-core machine at the same time: expect noise. Partial syncs: ${r.repeats} per size. Times in ms.`,
    '',
    '## Ours vs ipvsadm',
    '',
    mainTable(r),
    '',
    flatnessLine(r),
    '',
    '- ours full (all): the first sync into an empty kernel: adoption (empty dumps), kube-ipvs0, the helper table, IPVS, the VIPs on kube-ipvs0.',
    '- w/o helper: less the time waiting on the helper table (its TypeScript build and its nftables commit); IPVS only: less rtnetlink too (kube-ipvs0, addresses, the node address dump).',
    '- ipvsadm -R: the same virtual services and real servers restored into a fresh namespace, one process; + ip -batch: kube-ipvs0 and the VIPs. The peer has no helper table (upstream would add ipset and iptables).',
    '- partial: one endpoint of one Service replaced (old one to weight 0, new one added, the previous change\'s drained one deleted); the peer is one `ipvsadm -R` of those lines, wall time of the whole process (started with `nsenter --net`); the process floor is `ipvsadm -R` of an empty input, so the difference is the kernel work and the parsing of those lines.',
    r.sizes.some((s) => s.verified) ? `- Verified at N = ${r.sizes.filter((s) => s.verified).map((s) => s.services).join(', ')}: \`ipvsadm -Sn\` of both namespaces equal after the cold load and after the changes.` : '',
    '',
    '## Where our time goes',
    '',
    breakdownTable(r),
    '',
    problemsText(r),
  ].join('\n');
}

function problemsText(r: IpvsBenchRun): string {
  const lines = r.sizes.flatMap((s) => s.ours.problems.slice(0, 5).map((x) => `- N = ${s.services}: ${x}`));
  return lines.length ? `## Problems seen\n\n${lines.join('\n')}\n` : 'No warnings or errors from the proxier.\n';
}

/** The partial sync's p50 at the largest size over the smallest: near 1 when it does not grow with N. */
export function flatnessLine(r: IpvsBenchRun): string {
  if (r.sizes.length < 2) return '';
  const [a, b] = [r.sizes[0], r.sizes[r.sizes.length - 1]];
  const pa = quantile(a.ours.partial.map((t) => t.wallMs), 0.5);
  const pb = quantile(b.ours.partial.map((t) => t.wallMs), 0.5);
  return `Our one-endpoint partial sync p50 is ${pa.toFixed(1)} ms at N = ${a.services} and ${pb.toFixed(1)} ms at N = ${b.services} `
    + `(${(pb / pa).toFixed(2)}x for ${(b.services / a.services).toFixed(0)}x the Services).`;
}
