// Tables and chart series from the per-size results.
import { cpuS } from '../lib/measure';
import { Cell, markdownTable, ratio } from '../report/table';
import { Series } from '../report/svg';
import { bucketQuantile, quantile } from './histogram';
import { SizeResult, SyncKind } from './scenario';

const metricOf = (r: SizeResult, kind: SyncKind) => r.samples.filter((s) => s.kind === kind).map((s) => s.metricS);
const p = (r: SizeResult, kind: SyncKind, q: number) => quantile(metricOf(r, kind), q);
const cpuP = (r: SizeResult, kind: SyncKind, q: number) => quantile(r.samples.filter((s) => s.kind === kind).map(cpuS), q);
const sysP = (r: SizeResult, kind: SyncKind, q: number) => quantile(r.samples.filter((s) => s.kind === kind).map((s) => s.sysS), q);
const ms = (v: number | undefined) => (v === undefined ? undefined : (v * 1000).toFixed(1));
const fixed = (v: number | undefined, d: number) => (v === undefined || !Number.isFinite(v) ? undefined : v.toFixed(d));

function bucketP(r: SizeResult, kind: SyncKind, q: number): string {
  const ph = r.phaseBuckets.find((b) => b.kind === kind);
  if (!ph) return '-';
  const v = bucketQuantile(new Map(ph.buckets.map(([le, c]) => [le === '+Inf' ? Infinity : Number(le), c])), ph.count, q);
  return v === undefined ? '-' : v === Infinity ? '+Inf' : `≤${v * 1000}`;
}

export function pipelineTables(results: SizeResult[]): string {
  const sync: Cell[][] = results.map((r) => {
    const initial = metricOf(r, 'full-initial')[0];
    return [r.n, ms(initial), ms(p(r, 'full', 0.5)), ms(p(r, 'full', 0.99)),
      ms(p(r, 'partial-1-endpoint', 0.5)), ms(p(r, 'partial-1-endpoint', 0.99)),
      ms(p(r, 'partial-100-added', 0.5)), ms(p(r, 'partial-100-added', 0.99)),
      ms(r.nftFile.wallS), fixed(ratio(r.nftFile.wallS, initial), 2)];
  });
  const cpu: Cell[][] = results.map((r) => {
    const first = r.samples.find((x) => x.kind === 'full-initial');
    const us = (x: { userS: number; sysS: number } | undefined) => (x ? `${(x.userS * 1000).toFixed(0)} / ${(x.sysS * 1000).toFixed(0)}` : '-');
    return [r.n, us(first), ms(cpuP(r, 'full', 0.5)), ms(cpuP(r, 'partial-1-endpoint', 0.5)), ms(sysP(r, 'partial-1-endpoint', 0.5)),
      ms(cpuP(r, 'partial-100-added', 0.5)), us(r.nftFile), fixed(ratio(cpuS(r.nftFile), first ? cpuS(first) : NaN), 2)];
  });
  const size: Cell[][] = results.map((r) => {
    const one = (k: SyncKind) => r.samples.find((x) => x.kind === k);
    const first = one('full-initial');
    const part = one('partial-1-endpoint');
    const add = one('partial-100-added');
    return [r.n, first?.ops, fixed(first ? first.bytes / 1e6 : undefined, 1), part?.ops, part?.bytes, add?.ops, add?.bytes,
      fixed(r.rssMiB.afterInitialSync, 0), fixed(r.rssMiB.peak, 0), r.kernelServiceIps];
  });
  const buckets: Cell[][] = results.map((r) => [r.n,
    ...(['full', 'partial-1-endpoint', 'partial-100-added'] as SyncKind[]).flatMap((k) => [bucketP(r, k, 0.5), bucketP(r, k, 0.99)])]);
  const reps = results[0] ? (['full', 'partial-1-endpoint', 'partial-100-added'] as SyncKind[]).map((k) => `${k} x${metricOf(results[0], k).length}`).join(', ') : '';
  return [
    `Sync duration, ms, from sync_proxy_rules_duration_seconds (each sync's own observation; repeats: ${reps})`,
    markdownTable(['N', 'full (initial)', 'full p50', 'full p99', '1-endpoint p50', '1-endpoint p99', '+100 Svc p50', '+100 Svc p99', 'nft -f ms', 'nft -f / initial'], sync),
    '',
    'CPU, ms: this process during the sync (user + sys; netlink\'s kernel work is our sys time), p50 over the repeats; nft -f: the nft process',
    markdownTable(['N', 'full initial user / sys', 'full p50 cpu', '1-endpoint p50 cpu', '1-endpoint p50 sys', '+100 Svc p50 cpu', 'nft -f user / sys', 'nft -f / initial (cpu)'], cpu),
    '',
    'Size and memory: ops and bytes of the committed transactions (first sync of each kind), RSS of the bench process (peak: before the nft -f comparison), ClusterIP destinations (cluster-ip-ports elements) read back from the kernel at the end',
    markdownTable(['N', 'initial ops', 'initial MB sent', '1-ep ops', '1-ep bytes', '+100 ops', '+100 bytes', 'RSS after initial MiB', 'peak RSS MiB', 'ClusterIPs in kernel'], size),
    '',
    'The histogram\'s own resolution: p50/p99 as bucket upper bounds, ms',
    markdownTable(['N', 'full p50', 'full p99', '1-ep p50', '1-ep p99', '+100 p50', '+100 p99'], buckets),
  ].join('\n');
}

export function partialScaling(results: SizeResult[]): string {
  if (results.length < 2) return '';
  const lo = results[0];
  const hi = results[results.length - 1];
  const a = p(lo, 'partial-1-endpoint', 0.5);
  const b = p(hi, 'partial-1-endpoint', 0.5);
  const x = a && b ? b / a : undefined;
  const sys = (r: SizeResult) => ms(sysP(r, 'partial-1-endpoint', 0.5)) ?? '-';
  return `one-Service partial sync p50: N=${hi.n} ${ms(b)} ms (sys ${sys(hi)} ms) vs N=${lo.n} ${ms(a)} ms (sys ${sys(lo)} ms)`
    + ` = ${fixed(x, 2) ?? '-'}x (issue 5 asks for at most 2x)`;
}

export function seriesOf(results: SizeResult[]): Series[] {
  const line = (name: string, f: (r: SizeResult) => number | undefined, dashed = false): Series => ({
    name, dashed, points: results.map((r) => ({ x: r.n, y: f(r) ?? NaN })).filter((q) => Number.isFinite(q.y)),
  });
  return [
    line('full sync (initial)', (r) => metricOf(r, 'full-initial')[0]),
    line('full resync p50', (r) => p(r, 'full', 0.5)),
    line('partial: 1 endpoint p50', (r) => p(r, 'partial-1-endpoint', 0.5)),
    line('partial: +100 Services p50', (r) => p(r, 'partial-100-added', 0.5)),
    line('nft -f (same ruleset)', (r) => r.nftFile.wallS, true),
  ];
}
