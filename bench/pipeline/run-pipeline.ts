// Part B of the bench (`npm run bench`): synthetic clusters through the real pipeline, one child
// process per size, then a table, bench/results/<timestamp>.json and an SVG chart.
import { benchEnv, envLine } from '../lib/env';
import { printResult, runResultChild } from '../lib/result-child';
import { jsonCompacting, timestamp, writeResult } from '../lib/results';
import { progress } from '../report/table';
import { lineChartSvg } from '../report/svg';
import { pipelineMissing, makeParts } from './parts';
import { runScenario, ScenarioOptions, SizeResult } from './scenario';
import { pipelineTables, partialScaling, seriesOf } from './summary';
import { runKindsScenario, type KindsOptions, type KindsResult } from './kinds-scenario';
import { kindGoals, kindsReport } from '../lib/partial-kinds';

const FULL_SIZES = [1000, 5000, 10000, 30000, 50000];
const QUICK_SIZES = [100, 1000];
const E = 4;
const NODEPORT_SHARE = 0.1;
const CHILD_FLAG = '_scenario';
/** Issue 32's partial syncs by kind: the realistic mix at these sizes, 6 endpoints per Service, R syncs of each kind. */
export const KIND_SIZES = [1000, 10000, 44000];
const QUICK_KIND_SIZES = [1000];
const KIND_E = 6;
const KIND_REPEATS = 200;
const QUICK_KIND_REPEATS = 30;
const KINDS_FLAG = '_kinds';
const KIND_SEED = 32;

export function isScenarioChild(argv: string[]): boolean {
  return argv[0] === CHILD_FLAG || argv[0] === KINDS_FLAG;
}

/** Child side: one size (or one size's partial syncs by kind), result as the last stdout line. */
export async function scenarioChild(argv: string[]): Promise<void> {
  const result = argv[0] === KINDS_FLAG
    ? await runKindsScenario(JSON.parse(argv[1]) as KindsOptions, makeParts)
    : await runScenario(JSON.parse(argv[1]) as ScenarioOptions, makeParts);
  await printResult(result);
}

function runChild(opts: ScenarioOptions): Promise<SizeResult> {
  return runResultChild(process.execPath, ['--max-old-space-size=8192', '--expose-gc', process.argv[1], CHILD_FLAG, JSON.stringify(opts)], `N=${opts.n}: scenario process`);
}

function runKindsChild(opts: KindsOptions): Promise<KindsResult> {
  return runResultChild(process.execPath, ['--max-old-space-size=8192', '--expose-gc', process.argv[1], KINDS_FLAG, JSON.stringify(opts)], `N=${opts.n}: kinds process`);
}

export interface PipelineOptions {
  quick: boolean;
  sizes?: number[];
  repeats?: number;
  /** Sizes of the partial syncs by kind (default 1k, 10k, 44k; --quick 1k). */
  kindSizes?: number[];
  /** Syncs of each kind per size (default 200; --quick 30). */
  kindRepeats?: number;
  /** Only the partial syncs by kind. */
  kindsOnly?: boolean;
}

export async function runPipeline(opts: PipelineOptions): Promise<void> {
  const missing = pipelineMissing();
  if (missing) {
    throw new Error(`the pipeline bench needs pieces that are not built yet: ${missing}.\n`
      + 'Run `npm run build` first; `npm run bench -- shapes` measures ruleset shapes without the proxier.');
  }
  const env = benchEnv();
  const sizes = opts.sizes ?? (opts.quick ? QUICK_SIZES : FULL_SIZES);
  const partialRepeats = opts.repeats ?? (opts.quick ? 5 : 20);
  const results: SizeResult[] = [];
  for (const n of opts.kindsOnly ? [] : sizes) {
    progress(`=== N=${n} Services x ${E} endpoints ===`);
    results.push(await runChild({
      n, endpoints: E, nodePortShare: NODEPORT_SHARE, partialRepeats,
      fullRepeats: opts.quick ? 2 : Math.max(2, Math.min(3, Math.ceil(partialRepeats / 5))),
      addRepeats: opts.quick ? 3 : 5,
    }));
  }
  const kinds: KindsResult[] = [];
  const kindRepeats = opts.kindRepeats ?? (opts.quick ? QUICK_KIND_REPEATS : KIND_REPEATS);
  for (const n of opts.kindSizes ?? (opts.quick ? QUICK_KIND_SIZES : KIND_SIZES)) {
    progress(`=== N=${n} Services x ${KIND_E} endpoints, the realistic mix: partial syncs by kind, ${kindRepeats} each (load average ${benchEnv().loadavg1m.toFixed(2)}) ===`);
    kinds.push(await runKindsChild({ n, endpoints: KIND_E, nodePortShare: NODEPORT_SHARE, repeats: kindRepeats, seed: KIND_SEED }));
  }
  const stamp = timestamp();
  const json = writeResult('', stamp, 'json', jsonCompacting({ env, quick: opts.quick, results, kinds, kindGoals: kindGoals(kinds) }, ['samples']));
  const parts: string[] = [];
  let svg: string | undefined;
  if (results.length) {
    svg = writeResult('', stamp, 'svg', lineChartSvg({
      title: `kube-proxy-native nftables sync time vs Services (x${E} endpoints)`,
      subtitle: `${env.kernel}, ${env.cpus} CPUs, ${stamp}; p50 of sync_proxy_rules_duration_seconds`,
      xLabel: 'Services (N)', yLabel: 'seconds', series: seriesOf(results),
    }));
    parts.push(`Pipeline: N Services x ${E} endpoints, NodePorts on ${NODEPORT_SHARE * 100}%: model -> NftablesProxier -> addon -> kernel (fresh netns)`,
      envLine(env), `model: ${results[0]?.model}`, '', pipelineTables(results), '', partialScaling(results));
  } else parts.push(envLine(env));
  if (kinds.length) {
    const loads = kinds.map((k) => `N=${k.n}: ${k.loadavgEnd[0].toFixed(2)}`).join(', ');
    const first = kinds.map((k) => `N=${k.n}: ${k.firstSyncMs.toFixed(0)} ms`).join(', ');
    parts.push('', kindsReport(kinds, `the SyncLoop's own measure (sync_proxy_rules_duration_seconds), the commit timed around Nft.commit; NodePorts on ${NODEPORT_SHARE * 100}%`),
      `first full sync of the mixed cluster: ${first}; load average at the end of each size: ${loads}`);
  }
  const text = parts.join('\n') + '\n';
  writeResult('', stamp, 'md', text);
  process.stdout.write(`\n${text}\nresults: ${json}\n${svg ? `chart:   ${svg}\n` : ''}`);
  const errors = [...results, ...kinds].flatMap((r) => r.errors.map((e) => `N=${r.n}: ${e}`));
  if (errors.length) {
    process.stdout.write(`\nproblems seen:\n${errors.map((e) => `  ${e}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}
