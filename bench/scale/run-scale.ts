// `npm run bench -- scale`: the real kube-proxy-native process against a test API server holding N
// Services, each size in a fresh network namespace (docs/benchmarks.md, "Memory at scale"); then, per
// size, the heap breakdown in-process (unless --no-breakdown). Tables to stdout, results to
// bench/results/scale-<timestamp>.{json,md,svg}.
import { benchEnv, envLine } from '../lib/env';
import { kindGoals, kindsReport } from '../lib/partial-kinds';
import { phaseCpuLine } from './machine-cpu';
import { jsonCompacting, timestamp, writeResult } from '../lib/results';
import { progress } from '../report/table';
import { runBreakdown, type BreakdownOptions } from './breakdown';
import { answer, removeNetns, runInNetns, scaleNetns } from './netns-child';
import { breakdownTable, churnTable, mixTable, nftMonitorTable, roundsTable, scaleChart, sizeTable, snapshotTable } from './report';
import type { BreakdownResult, SizeResult, Timing } from './scale-types';
import { runSize, type SizeRunOptions } from './size-run';

export const FULL_SIZES = [1000, 10000, 44000];
export const QUICK_SIZES = [300, 1000];
export const SEED = 11;
/** Heap snapshots above this N would be larger than is sensible to write and read on a bench machine. */
export const SNAPSHOT_MAX_N = 10_000;

export const FULL_TIMING: Timing = {
  steadyWaitMs: 10_000, samples: 5, sampleGapMs: 1000, partialRepeats: 20,
  churnMs: 45_000, churnEndpointChanges: 3000, churnServiceSwaps: 200, churnRounds: 1, startTimeoutMs: 600_000,
  kindRepeats: 100,
};
export const QUICK_TIMING: Timing = {
  steadyWaitMs: 3000, samples: 3, sampleGapMs: 500, partialRepeats: 6,
  churnMs: 8000, churnEndpointChanges: 300, churnServiceSwaps: 20, churnRounds: 1, startTimeoutMs: 120_000,
  kindRepeats: 10,
};

const SIZE_CHILD = '_scale-size';
const BREAKDOWN_CHILD = '_scale-breakdown';

export function isScaleChild(argv: string[]): boolean {
  return argv[0] === SIZE_CHILD || argv[0] === BREAKDOWN_CHILD;
}

/** Child side (inside the size's namespace): one size, or one breakdown. */
export function scaleChild(argv: string[]): Promise<void> {
  const opts = JSON.parse(argv[1]);
  return answer(() => (argv[0] === SIZE_CHILD ? runSize(opts as SizeRunOptions) : runBreakdown(opts as BreakdownOptions)));
}

/** One size of the process run, in a namespace made for it. */
export async function measureSize(opts: SizeRunOptions): Promise<SizeResult> {
  const ns = scaleNetns();
  try {
    // The bench's own API server holds the cluster too: room for it, not for the proxy (a process of its own, default flags).
    return await runInNetns<SizeResult>(ns, ['--max-old-space-size=8192'], [SIZE_CHILD, JSON.stringify(opts)]);
  } finally {
    removeNetns(ns);
  }
}

export async function measureBreakdown(opts: BreakdownOptions): Promise<BreakdownResult> {
  const ns = scaleNetns();
  try {
    return await runInNetns<BreakdownResult>(ns, ['--expose-gc', '--max-old-space-size=8192'], [BREAKDOWN_CHILD, JSON.stringify(opts)]);
  } finally {
    removeNetns(ns);
  }
}

export interface ScaleOptions { quick: boolean; sizes?: number[]; breakdown?: boolean; churnRounds?: number; kindRepeats?: number; nftMonitor?: boolean }

export async function runScale(opts: ScaleOptions): Promise<void> {
  const env = benchEnv();
  const sizes = opts.sizes ?? (opts.quick ? QUICK_SIZES : FULL_SIZES);
  const timing = {
    ...(opts.quick ? QUICK_TIMING : FULL_TIMING), ...(opts.churnRounds ? { churnRounds: opts.churnRounds } : {}),
    ...(opts.kindRepeats ? { kindRepeats: opts.kindRepeats } : {}),
  };
  const results: SizeResult[] = [];
  const breakdowns: BreakdownResult[] = [];
  for (const n of sizes) {
    progress(`=== scale: N=${n} Services (load average ${benchEnv().loadavg1m.toFixed(2)}) ===`);
    results.push(await measureSize({ n, seed: SEED, timing, nftMonitor: opts.nftMonitor }));
    if (opts.breakdown === false) continue;
    progress(`N=${n}: heap breakdown (in-process, --expose-gc)`);
    breakdowns.push(await measureBreakdown({ n, seed: SEED, snapshotMaxN: SNAPSHOT_MAX_N }));
  }
  const stamp = timestamp();
  const text = reportText(env, results, breakdowns, opts.quick, opts.nftMonitor);
  const kinds = results.flatMap((r) => (r.kinds ? [r.kinds] : []));
  const json = writeResult('scale-', stamp, 'json', jsonCompacting({ env, quick: opts.quick, nftMonitor: !!opts.nftMonitor, timing, seed: SEED, results, breakdowns, kindGoals: kindGoals(kinds) }, ['samples']));
  writeResult('scale-', stamp, 'md', text);
  const svg = writeResult('scale-', stamp, 'svg', scaleChart(results, `${env.kernel}, ${env.cpus} CPUs, ${stamp}`));
  process.stdout.write(`${text}\nresults: ${json}\nchart:   ${svg}\n`);
  const warnings = results.flatMap((r) => r.proxyWarnings.map((w) => `N=${r.n}: ${w}`));
  if (warnings.length) process.stdout.write(`\nthe proxy warned (not counted as failures):\n${[...new Set(warnings)].map((w) => `  ${w}`).join('\n')}\n`);
  const problems = [...results, ...breakdowns].flatMap((r) => r.problems.map((p) => `N=${r.n}: ${p}`));
  if (problems.length) {
    process.stdout.write(`\nproblems seen:\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}

function reportText(env: ReturnType<typeof benchEnv>, rs: SizeResult[], bs: BreakdownResult[], quick: boolean, nftMonitor?: boolean): string {
  const loads = rs.map((r) => `N=${r.n}: ${r.loadavgEnd[0].toFixed(2)}`).join(', ');
  const monitoring = nftMonitor ? ', with `nft monitor` running in it throughout' : '';
  const parts = [
    `Scale: the kube-proxy-native process (nftables) against a test API server, one network namespace per size${monitoring}${quick ? ' (--quick)' : ''}`,
    `${envLine(env)}; load average at the end of each size: ${loads}`,
    '', sizeTable(rs), '', 'The cluster:', mixTable(rs), '', 'Churn, then steady again:', churnTable(rs),
  ];
  if (nftMonitor) parts.push('', 'What `nft monitor` printed and used (from before the proxy started to its end):', nftMonitorTable(rs));
  if (rs.some((r) => r.laterRounds.length > 0)) parts.push('', 'Memory over churn rounds (steady readings):', roundsTable(rs));
  const kinds = rs.flatMap((r) => (r.kinds ? [r.kinds] : []));
  if (kinds.length) parts.push('', kindsReport(kinds, 'the real process\'s sync_proxy_rules_duration_seconds (its "sync finished" lines), ops and bytes from its "committing" lines'));
  for (const r of rs) if (r.kindsCpu) parts.push(`CPU during the kinds at N=${r.n}: ${phaseCpuLine(r.kindsCpu)}`);
  if (bs.length) {
    parts.push('', 'Heap breakdown (in-process, after gc; heapUsed deltas):', breakdownTable(bs));
    for (const b of bs) parts.push('', snapshotTable(b));
  }
  return parts.join('\n') + '\n';
}
