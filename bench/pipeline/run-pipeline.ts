// Part B of the bench (`npm run bench`): synthetic clusters through the real pipeline, one child
// process per size, then a table, bench/results/<timestamp>.json and an SVG chart.
import { benchEnv, envLine } from '../lib/env';
import { printResult, runResultChild } from '../lib/result-child';
import { timestamp, writeResult } from '../lib/results';
import { progress } from '../report/table';
import { lineChartSvg } from '../report/svg';
import { pipelineMissing, makeParts } from './parts';
import { runScenario, ScenarioOptions, SizeResult } from './scenario';
import { pipelineTables, partialScaling, seriesOf } from './summary';

const FULL_SIZES = [1000, 5000, 10000, 30000, 50000];
const QUICK_SIZES = [100, 1000];
const E = 4;
const NODEPORT_SHARE = 0.1;
const CHILD_FLAG = '_scenario';

export function isScenarioChild(argv: string[]): boolean {
  return argv[0] === CHILD_FLAG;
}

/** Child side: one size, result as the last stdout line. */
export async function scenarioChild(argv: string[]): Promise<void> {
  const opts = JSON.parse(argv[1]) as ScenarioOptions;
  const result = await runScenario(opts, makeParts);
  await printResult(result);
}

function runChild(opts: ScenarioOptions): Promise<SizeResult> {
  return runResultChild(process.execPath, ['--max-old-space-size=8192', '--expose-gc', process.argv[1], CHILD_FLAG, JSON.stringify(opts)], `N=${opts.n}: scenario process`);
}

export async function runPipeline(opts: { quick: boolean; sizes?: number[]; repeats?: number }): Promise<void> {
  const missing = pipelineMissing();
  if (missing) {
    throw new Error(`the pipeline bench needs pieces that are not built yet: ${missing}.\n`
      + 'Run `npm run build` first; `npm run bench -- shapes` measures ruleset shapes without the proxier.');
  }
  const env = benchEnv();
  const sizes = opts.sizes ?? (opts.quick ? QUICK_SIZES : FULL_SIZES);
  const partialRepeats = opts.repeats ?? (opts.quick ? 5 : 20);
  const results: SizeResult[] = [];
  for (const n of sizes) {
    progress(`=== N=${n} Services x ${E} endpoints ===`);
    results.push(await runChild({
      n, endpoints: E, nodePortShare: NODEPORT_SHARE, partialRepeats,
      fullRepeats: opts.quick ? 2 : Math.max(2, Math.min(3, Math.ceil(partialRepeats / 5))),
      addRepeats: opts.quick ? 3 : 5,
    }));
  }
  const stamp = timestamp();
  const summary = pipelineTables(results);
  const scaling = partialScaling(results);
  const json = writeResult('', stamp, 'json', JSON.stringify({ env, quick: opts.quick, results }, null, 2) + '\n');
  const svg = writeResult('', stamp, 'svg', lineChartSvg({
    title: `kube-proxy-native nftables sync time vs Services (x${E} endpoints)`,
    subtitle: `${env.kernel}, ${env.cpus} CPUs, ${stamp}; p50 of sync_proxy_rules_duration_seconds`,
    xLabel: 'Services (N)', yLabel: 'seconds', series: seriesOf(results),
  }));
  process.stdout.write(`\nPipeline: N Services x ${E} endpoints, NodePorts on ${NODEPORT_SHARE * 100}%: model -> NftablesProxier -> addon -> kernel (fresh netns)\n`);
  process.stdout.write(`${envLine(env)}\nmodel: ${results[0]?.model}\n\n${summary}\n\n${scaling}\n\nresults: ${json}\nchart:   ${svg}\n`);
  const errors = results.flatMap((r) => r.errors.map((e) => `N=${r.n}: ${e}`));
  if (errors.length) {
    process.stdout.write(`\nproblems seen:\n${errors.map((e) => `  ${e}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}
