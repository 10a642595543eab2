// `npm run bench -- proxier-memory`: the nftables proxier's memory (its state, and the full sync's
// peak) at N Services x E endpoints, one child process per size so each size's heap is its own.
import { benchEnv, envLine } from '../lib/env';
import { printResult, runResultChild } from '../lib/result-child';
import { timestamp, writeResult } from '../lib/results';
import { markdownTable, progress, type Cell } from '../report/table';
import { runMemoryScenario, type MemoryOptions, type MemoryResult } from './memory-scenario';

const SIZES = [10_000, 44_000];
const QUICK_SIZES = [1_000];
const E = 6;
const CHILD_FLAG = '_memory';

export function isMemoryChild(argv: string[]): boolean {
  return argv[0] === CHILD_FLAG;
}

export async function memoryChild(argv: string[]): Promise<void> {
  const result = await runMemoryScenario(JSON.parse(argv[1]) as MemoryOptions);
  await printResult(result);
}

function runChild(o: MemoryOptions): Promise<MemoryResult> {
  return runResultChild(process.execPath, ['--expose-gc', process.argv[1], CHILD_FLAG, JSON.stringify(o)], `N=${o.n}: memory scenario`);
}

const f0 = (v: number | undefined): Cell => (v === undefined || !Number.isFinite(v) ? undefined : v.toFixed(0));
const f1 = (v: number | undefined): Cell => (v === undefined || !Number.isFinite(v) ? undefined : v.toFixed(1));
const f2 = (v: number | undefined): Cell => (v === undefined || !Number.isFinite(v) ? undefined : v.toFixed(2));

export function memoryTables(results: MemoryResult[]): string {
  const heap = results.map((r) => {
    const model = r.model.heapUsed - r.start.heapUsed;
    const state = r.initial.after.heapUsed - r.model.heapUsed;
    const atCommit = (s: MemoryResult['initial']) => (s.commit ? s.commit.live.heapUsed + s.commit.live.arrayBuffers - r.model.heapUsed - r.model.arrayBuffers : undefined);
    return [r.n, r.servicePorts, f0(model), f0(state), f0(atCommit(r.initial)), f0(r.initial.commit?.heapWithGarbage),
      f0(r.second.after.heapUsed - r.model.heapUsed), f0(atCommit(r.second)), f1(r.freedMiB.reduce((a, [, v]) => a + v, 0)),
      f0(r.model.rss), f0(r.initial.after.rss), f0(r.initial.rssPeak), f0(r.second.rssPeak), f0(r.partial.after.rss)];
  });
  const sync = results.map((r) => [r.n, f0(r.initial.ms), f0(r.initial.cpuMs), f0(r.second.ms), f0(r.second.cpuMs), r.initial.commit?.ops,
    f1((r.initial.commit?.bytes ?? NaN) / 1e6), r.partial.count, f2(r.partial.p50Ms), f2(r.partial.cpuP50Ms), f2(r.partial.p99Ms), f1(r.partial.maxMs),
    f1(r.partial.ops / Math.max(1, r.partial.count))]);
  const counts = results.map((r) => `N=${r.n}: ${Object.entries(r.counts).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ')}`);
  const freed = results.map((r) => `N=${r.n}: ${r.freedMiB.map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ')} MiB`);
  return [
    'Heap, MiB (live, after a full GC): model alone; the proxier\'s state after the first full sync; live at the first full sync\'s commit '
      + 'beyond the model (heap + Buffers); heap at that commit with garbage; state after the periodic full sync and live at its commit; '
      + 'the state after the partial syncs (what dropping it frees: the model changes during them, so a difference of heaps would mix the two). '
      + 'RSS, MiB: after the model, after the first full sync, high-water marks during the two full syncs, after the partial syncs',
    markdownTable(['N', 'ServicePorts', 'model', 'state', 'live at commit', 'heap at commit', 'state (2nd)', 'live at commit (2nd)', 'state after partials',
      'RSS model', 'RSS after 1st', 'RSS peak 1st', 'RSS peak 2nd', 'RSS end'], heap),
    '',
    'Syncs: full sync time (proxier.sync: wall ms, and this process\'s CPU ms), the first full sync\'s transaction, one-pod partial syncs (ms) and their ops',
    markdownTable(['N', '1st full ms', '1st cpu ms', '2nd full ms', '2nd cpu ms', 'ops', 'MB', 'partials', 'p50 ms', 'p50 cpu ms', 'p99 ms', 'max ms', 'ops each'], sync),
    '',
    'The state, counted:', ...counts,
    '', 'Freed when dropped, field by field (in this order):', ...freed,
  ].join('\n');
}

export async function runProxierMemory(opts: { quick: boolean; sizes?: number[]; repeats?: number; kernel?: boolean }): Promise<void> {
  const env = benchEnv();
  const results: MemoryResult[] = [];
  for (const n of opts.sizes ?? (opts.quick ? QUICK_SIZES : SIZES)) {
    progress(`=== proxier memory: N=${n} x ${E} endpoints${opts.kernel ? ', real kernel' : ''} ===`);
    results.push(await runChild({ n, endpoints: E, partials: opts.repeats ?? (opts.quick ? 100 : 1000), kernel: !!opts.kernel }));
  }
  const json = writeResult('proxier-memory-', timestamp(), 'json', JSON.stringify({ env, results }, null, 2) + '\n');
  process.stdout.write(`\nProxier memory (${opts.kernel ? 'real kernel, fresh netns' : 'no kernel: the commit only reads the buffer'})\n${envLine(env)}\n\n`);
  process.stdout.write(`${memoryTables(results)}\n\nresults: ${json}\n`);
  const errors = results.flatMap((r) => r.errors.map((e) => `N=${r.n}: ${e}`));
  if (errors.length) {
    process.stdout.write(`\nproblems seen:\n${errors.map((e) => `  ${e}`).join('\n')}\n`);
    process.exitCode = 1;
  }
}
