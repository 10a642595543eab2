// `npm run bench [-- shapes] [--quick]`: entry point of the benchmarks (docs/benchmarks.md).
import { runShapes } from './shapes/run-shapes';
import { runProbe } from './probe/commit-floor';
import { runMonitorCost } from './probe/monitor-cost';
import { isScenarioChild, runPipeline, scenarioChild } from './pipeline/run-pipeline';

const USAGE = `usage: npm run bench -- [pipeline|shapes|probe|monitor] [--quick] [--sizes N,N,...] [--repeats R]
  pipeline (default)  synthetic clusters through model -> NftablesProxier -> addon -> kernel,
                      full and partial sync times from sync_proxy_rules_duration_seconds, vs nft -f
  shapes              linear vs upstream ruleset shape, addon vs nft -f
  probe               kernel cost of a one-object transaction as the table grows
  monitor             what an open NftMonitor costs our own big commits (best of --repeats, default 3)
  --quick             small sizes, finishes in under a minute
  --sizes             override the Service counts (pipeline, probe)
  --repeats           repeats per sync kind (pipeline) or per mode (monitor)`;

export interface CliOptions { command: 'pipeline' | 'shapes' | 'probe' | 'monitor'; quick: boolean; sizes?: number[]; repeats?: number }

export function parseArgs(argv: string[]): CliOptions {
  const opts: CliOptions = { command: 'pipeline', quick: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === 'shapes' || a === 'pipeline' || a === 'probe' || a === 'monitor') opts.command = a;
    else if (a === '--quick') opts.quick = true;
    else if (a === '--sizes') opts.sizes = positiveInts('--sizes', argv[++i]);
    else if (a === '--repeats') opts.repeats = positiveInts('--repeats', argv[++i])[0];
    else if (a === '--help' || a === '-h') { process.stdout.write(`${USAGE}\n`); process.exit(0); }
    else throw new RangeError(`unknown argument ${JSON.stringify(a)}\n${USAGE}`);
  }
  return opts;
}

function positiveInts(flag: string, value: string | undefined): number[] {
  const list = (value ?? '').split(',').map((s) => Number(s.trim()));
  if (!value || list.some((n) => !Number.isInteger(n) || n < 1)) {
    throw new RangeError(`${flag} wants positive integers separated by commas, got ${JSON.stringify(value)}`);
  }
  return list;
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) throw new Error('the bench creates network namespaces and needs root');
  if (isScenarioChild(process.argv.slice(2))) return scenarioChild(process.argv.slice(2));
  const opts = parseArgs(process.argv.slice(2));
  if (opts.command === 'shapes') await runShapes(opts);
  else if (opts.command === 'probe') await runProbe(opts);
  else if (opts.command === 'monitor') await runMonitorCost(opts);
  else await runPipeline(opts);
}

main().catch((e: Error) => {
  process.stderr.write(`bench failed: ${e.message}\n`);
  process.exitCode = 1;
});
