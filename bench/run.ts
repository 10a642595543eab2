// `npm run bench [-- shapes] [--quick]`: entry point of the benchmarks (docs/benchmarks.md).
import { runShapes } from './shapes/run-shapes';
import { runProbe } from './probe/commit-floor';
import { runMonitorCost } from './probe/monitor-cost';
import { runConnectCost } from './probe/connect-cost';
import { runChainWalk } from './probe/chain-walk';
import { isScenarioChild, runPipeline, scenarioChild } from './pipeline/run-pipeline';
import { isScaleChild, runScale, scaleChild } from './scale/run-scale';
import { isMemoryChild, memoryChild, runProxierMemory } from './memory/run-memory';
import { ipvsGuestChild, isIpvsGuestChild } from './ipvs/in-guest';
import { runIpvs } from './ipvs/run-ipvs';
import { runConntrackStatsCost } from './probe/conntrack-stats-cost';
import { runDatapath } from './datapath/run-datapath';
import { runCountChangeCost } from './pipeline/count-change-cost';

const USAGE = `usage: npm run bench -- [pipeline|shapes|probe|chains|monitor|connect|datapath|scale|proxier-memory|ipvs|conntrack-stats|count-change] [--quick] [--sizes N,N,...]
                                     [--repeats R] [--distinct|--counts D,D,...] [--connections C] [--no-breakdown] [--kernel]
                                     [--churn-rounds K] [--kind-sizes N,N,...] [--kind-repeats R] [--kinds-only]
                                     [--nft-monitor]
  pipeline (default)  synthetic clusters through model -> NftablesProxier -> addon -> kernel,
                      full and partial sync times from sync_proxy_rules_duration_seconds, vs nft -f;
                      then issue 32's partial syncs by kind (an endpoint count change, an endpoint
                      replaced, a Service added or removed) in the realistic mix x 6 endpoints at
                      --kind-sizes (default 1000,10000,44000; --quick 1000), --kind-repeats each
                      (default 200; --quick 30); --kinds-only skips the rest
  shapes              linear vs upstream ruleset shape, addon vs nft -f
  probe               kernel cost of a one-object transaction as the table grows
  chains              what the chains in the namespace cost a 10-element commit, warm and after 1 s idle:
                      no per-Service chains, one chain per affinity ServicePort, and 1 + 6 (upstream's)
                      (--sizes: affinity ServicePorts, default 3060 as in the 44k scale cluster; --repeats, default 15)
  monitor             what an open NftMonitor costs our own big commits (best of --repeats, default 3)
  connect             what the nat chains add to each new connection, 1,000 Services whose endpoint
                      counts take D distinct values (--distinct, default 1,10,50; --connections per figure, default 3000)
  datapath            the same kind of timing for our ruleset and upstream's shape (nft -f into another namespace),
                      side by side: a Service whose lookup comes first, last, not a Service, a NodePort, session
                      affinity; at --sizes (default 1000,10000) Services and --counts D (default 1,50,200,500)
                      distinct endpoint counts; one C client times each case in --repeats rounds (default 40) of
                      --connections per namespace (default 500), paired by round (--quick: 200 x D = 1,10, 20 x 200)
  scale               the real kube-proxy-native process against a test API server holding 1k, 10k, 44k Services:
                      start to first sync, sync times, RSS and JS heap before and after churn, then a heap
                      breakdown per size (caches, model, proxier; --no-breakdown skips it); --churn-rounds K
                      repeats the churn phase and its steady reading K times (default 1): memory over time;
                      last, issue 32's partial syncs by kind, --kind-repeats each (default 100; --quick 10):
                      about 3 x R seconds per size (minSyncPeriod is 1 s);
                      --nft-monitor runs 'nft monitor' in each size's namespace throughout (what an operator's
                      listener costs the syncs)
  proxier-memory      the nftables proxier's heap: its state, the full sync's peak, growth over --repeats
                      one-pod partial syncs (default 1000), at 10k and 44k Services x 6 endpoints (mixed);
                      --kernel commits into a fresh namespace instead of only reading the buffer
  ipvs                the IPVS mode in the IPVS guest (one qemu boot): IpvsProxier's cold full sync, one-endpoint
                      partial syncs (--repeats, default 20) and unchanged full sync vs ipvsadm --restore of the
                      same services, at 1k, 5k, 10k Services x 4 endpoints (--sizes; --quick: 300, 1000)
  conntrack-stats     what a scrape of the conntrack metrics costs with an empty table and with --sizes entries
                      (default 100000 real UDP entries; --repeats, default 300), vs one table dump
  count-change        what one Service's endpoint-count change costs the commit at --sizes Services (default 30000;
                      --repeats syncs per figure): a pod replaced, a new Service, counts moving between small
                      counts, from 4 to 5, between two larger counts both in use, to a count no Service had; two clusters
  --quick             small sizes, finishes in under a minute
  --sizes             override the Service counts (pipeline, probe, scale, ipvs, datapath, count-change; chains: affinity ServicePorts)
  --counts            the distinct endpoint counts D (datapath; the same as --distinct)
  --kind-sizes        the sizes of the partial syncs by kind (pipeline; scale uses --sizes)
  --kind-repeats      syncs of each kind per size (pipeline, scale)
  --kinds-only        pipeline: only the partial syncs by kind
  --repeats           repeats per sync kind (pipeline, ipvs), per mode (monitor), per figure (chains, count-change)
                      or rounds per case (datapath)`;

const COMMANDS = ['pipeline', 'shapes', 'probe', 'chains', 'monitor', 'connect', 'datapath', 'scale', 'proxier-memory', 'ipvs', 'conntrack-stats', 'count-change'] as const;

export interface CliOptions {
  command: (typeof COMMANDS)[number];
  quick: boolean;
  sizes?: number[];
  repeats?: number;
  distinct?: number[];
  connections?: number;
  /** scale: run the heap breakdown after each size (default true). */
  breakdown?: boolean;
  /** scale: how many churn phases, each followed by a steady reading (default 1). */
  churnRounds?: number;
  /** scale: an `nft monitor` running in each size's namespace throughout. */
  nftMonitor?: boolean;
  /** proxier-memory: commit into a fresh namespace instead of only reading the buffer. */
  kernel?: boolean;
  /** pipeline: the sizes of the partial syncs by kind (issue 32). */
  kindSizes?: number[];
  /** pipeline, scale: syncs of each kind per size. */
  kindRepeats?: number;
  /** pipeline: only the partial syncs by kind. */
  kindsOnly?: boolean;
}

export function parseArgs(argv: string[]): CliOptions {
  const opts: CliOptions = { command: 'pipeline', quick: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((COMMANDS as readonly string[]).includes(a)) opts.command = a as CliOptions['command'];
    else if (a === '--quick') opts.quick = true;
    else if (a === '--kernel') opts.kernel = true;
    else if (a === '--sizes') opts.sizes = positiveInts('--sizes', argv[++i]);
    else if (a === '--repeats') opts.repeats = positiveInts('--repeats', argv[++i])[0];
    else if (a === '--distinct' || a === '--counts') opts.distinct = positiveInts(a, argv[++i]);
    else if (a === '--connections') opts.connections = positiveInts('--connections', argv[++i])[0];
    else if (a === '--no-breakdown') opts.breakdown = false;
    else if (a === '--churn-rounds') opts.churnRounds = positiveInts('--churn-rounds', argv[++i])[0];
    else if (a === '--kind-sizes') opts.kindSizes = positiveInts('--kind-sizes', argv[++i]);
    else if (a === '--kind-repeats') opts.kindRepeats = positiveInts('--kind-repeats', argv[++i])[0];
    else if (a === '--kinds-only') opts.kindsOnly = true;
    else if (a === '--nft-monitor') opts.nftMonitor = true;
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
  if (isScaleChild(process.argv.slice(2))) return scaleChild(process.argv.slice(2));
  if (isMemoryChild(process.argv.slice(2))) return memoryChild(process.argv.slice(2));
  if (isIpvsGuestChild(process.argv.slice(2))) return ipvsGuestChild(process.argv.slice(2));
  const opts = parseArgs(process.argv.slice(2));
  if (opts.command === 'shapes') await runShapes(opts);
  else if (opts.command === 'probe') await runProbe(opts);
  else if (opts.command === 'chains') await runChainWalk(opts);
  else if (opts.command === 'monitor') await runMonitorCost(opts);
  else if (opts.command === 'connect') await runConnectCost(opts);
  else if (opts.command === 'datapath') await runDatapath(opts);
  else if (opts.command === 'count-change') await runCountChangeCost(opts);
  else if (opts.command === 'scale') await runScale(opts);
  else if (opts.command === 'proxier-memory') await runProxierMemory(opts);
  else if (opts.command === 'ipvs') await runIpvs(opts);
  else if (opts.command === 'conntrack-stats') await runConntrackStatsCost(opts);
  else await runPipeline(opts);
}

// Imported (tests read parseArgs), it runs nothing.
if (require.main === module) {
  main().catch((e: Error) => {
    process.stderr.write(`bench failed: ${e.message}\n`);
    process.exitCode = 1;
  });
}
