// `npm run bench -- datapath`: what a new connection costs in our ruleset and in upstream's shape
// (v1.35 nftables mode, loaded with nft -f), at N Services whose endpoint counts take D distinct
// values, both measured in the same run (docs/benchmarks.md, "Datapath"). Results are written after
// every (N, D), so a long run that is stopped keeps what it measured.
import { loadavg } from 'node:os';
import { benchEnv, envLine } from '../lib/env';
import { timestamp, writeResult } from '../lib/results';
import { progress } from '../report/table';
import type { LoopTiming } from './connect-loop';
import { measurePair, type DatapathRow } from './measure-pair';
import { datapathChart, datapathTable, differenceTable, flatnessTable } from './report';

export interface DatapathOptions { quick: boolean; sizes?: number[]; distinct?: number[]; connections?: number; repeats?: number }

export async function runDatapath(opts: DatapathOptions): Promise<void> {
  const sizes = opts.sizes ?? (opts.quick ? [200] : [1000, 10000]);
  const counts = opts.distinct ?? (opts.quick ? [1, 10] : [1, 50, 200, 500]);
  // Many short rounds, the client at realtime priority: on a shared machine the scheduling noise is
  // otherwise larger than the differences measured, and each round pairs the three namespaces.
  const timing: LoopTiming = { perRound: opts.connections ?? (opts.quick ? 200 : 500), rounds: opts.repeats ?? (opts.quick ? 20 : 40), scheduling: 'realtime' };
  const env = benchEnv();
  const stamp = timestamp();
  const rows: DatapathRow[] = [];
  for (const n of sizes) {
    for (const d of counts) {
      progress(`datapath: ${n} Services, ${d} distinct endpoint counts, ${timing.rounds} rounds x ${timing.perRound} connections per namespace and case`);
      rows.push(await measurePair(n, d, timing));
      write(stamp, env, rows, timing);
    }
  }
  process.stdout.write(`${body(env, rows, timing)}\n`);
}

type Env = ReturnType<typeof benchEnv>;

function body(env: Env, rows: DatapathRow[], t: LoopTiming): string {
  const heading = `# Per-connection cost: our ruleset vs upstream's shape (${t.rounds} rounds x ${t.perRound} sequential connections per namespace, medians over the rounds; client ${t.scheduling === 'realtime' ? 'at realtime priority (chrt -f 10)' : 'at normal priority'})`;
  return `${heading}\n\n${envLine(env)}, load average at the end ${loadavg()[0].toFixed(2)}\n\n`
    + `## Extra µs per connection over no ruleset\n\n${datapathTable(rows)}\n\n`
    + `## Ours - upstream's, paired by round\n\n${differenceTable(rows)}\n\n`
    + `## Each ruleset at D - itself at D = 1 (the same N), paired by round\n\n${flatnessTable(rows)}\n`;
}

function write(stamp: string, env: Env, rows: DatapathRow[], t: LoopTiming): void {
  writeResult('datapath-', stamp, 'md', body(env, rows, t));
  writeResult('datapath-', stamp, 'json', `${compactJson({ env, timing: t, loadavgEnd: loadavg()[0], rows })}\n`);
  writeResult('datapath-', stamp, 'svg', datapathChart(rows, `${t.rounds} rounds x ${t.perRound} connections, medians; ours solid, upstream dashed; load ${env.loadavg1m.toFixed(2)} at start`));
}

/** Indented JSON with every array of numbers on one line: each round's figures are one line, not five. */
export function compactJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/\[\s+(-?[\d.e+-]+(?:,\s+-?[\d.e+-]+)*)\s+\]/g, (_, inner: string) => `[${inner.split(/,\s+/).join(', ')}]`);
}
