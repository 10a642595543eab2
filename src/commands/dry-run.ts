// `--dry-run`: what the nftables mode's first full sync would write for this node, as `nft -f` text
// with a summary comment last (so the output stays loadable); `--dry-run --diff`: only what a sync
// would change in the tables the kernel holds now. The cluster is listed once as the proxy lists it
// (list-once.ts). Nothing is written anywhere but to `out`: no table, sysctl, conntrack entry, OOM
// score, server or Event. The kernel is only read: nf_conntrack_tcp_be_liberal (the ruleset depends
// on it, as the proxy's does) and, with --diff, our tables.
import { Nft, type TableDump } from '../native';
import {
  compileDesiredTables, countAdded, countChanges, desiredWriter, leaveOut, planKernelDiff, TABLE, type DesiredTable, type ScriptCounts,
} from '../proxier/nftables';
import { OwnedBuildError, type TxWriter } from '../proxier/nftables/tx-writer';
import { nftablesCompileOptions } from '../app/nftables-options';
import { readTcpBeLiberal } from '../app/tcp-be-liberal';
import { listOnce, type ReadOnlyCommandOptions } from './list-once';
import { requireNftablesMode } from './nftables-only';

export interface DryRunOptions extends ReadOnlyCommandOptions {
  /** --diff: print only what a sync would change against the kernel's tables. */
  diff: boolean;
}

/** Throws, with the reason, where the command exits 1: another mode, a failed list or dump. */
export async function runDryRun(o: DryRunOptions): Promise<void> {
  requireNftablesMode(o.config, 'it compiles');
  const conntrackTCPLiberal = readTcpBeLiberal({ netns: o.netns });
  const model = await listOnce({ config: o.config, log: o.log, master: o.master, timeoutMs: o.listTimeoutMs });
  const { tables, refused } = compileDesiredTables({ ...nftablesCompileOptions(o.config, model.families), conntrackTCPLiberal }, model.snapshot);
  const dumps = o.diff ? await readTables(tables, o.netns) : undefined;
  const scripts = tables.map((t, i) => {
    const w = leavingOutRefused(t, refused, (table) => (dumps ? planKernelDiff(table, dumps[i]) : desiredWriter(table.base, table.services)));
    return w.tx.opCount > 0 ? w.tx.toNftScript() : '';
  });
  for (const [servicePort, reason] of refused) o.log.warn({ servicePort, reason }, 'ServicePort refused; the ruleset leaves it out, as the proxy would');
  o.out.write(scripts.join('') + closingComments(tables, scripts, refused, o.diff));
}

/** The ServicePorts left out, then the summary: comments, so the output stays loadable. */
function closingComments(tables: readonly DesiredTable[], scripts: readonly string[], refused: ReadonlyMap<string, string>, diff: boolean): string {
  const text = scripts.join('');
  const left = [...refused].sort(([a], [b]) => a.localeCompare(b)).map(([key, why]) => `# left out: ${key}: ${oneLine(why)}\n`);
  const summary = diff ? diffSummary(text)
    : `# dry run: ${tables.map((t, i) => familySummary(t.family, scripts[i])).join('; ')}; ${Buffer.byteLength(text)} bytes\n`;
  return left.join('') + summary;
}

/** A ServicePort whose objects the transaction builder refuses is left out (and said), as the proxier leaves it out. */
function leavingOutRefused(t: DesiredTable, refused: Map<string, string>, build: (t: DesiredTable) => TxWriter): TxWriter {
  for (let table = t; ;) {
    try {
      return build(table);
    } catch (e) {
      if (!(e instanceof OwnedBuildError) || !table.services.some((s) => s.key === e.owner)) throw e;
      refused.set(e.owner, e.message);
      table = leaveOut(table, e.owner);
    }
  }
}

/** Our table of each family as the kernel holds it (read, never written); null where it has none. */
async function readTables(tables: readonly DesiredTable[], netns: string | undefined): Promise<(TableDump | null)[]> {
  const nft = Nft.open(netns ? { netns } : undefined);
  try {
    const out: (TableDump | null)[] = [];
    for (const t of tables) out.push(await dumpOrAbsent(nft, t.family));
    return out;
  } finally {
    nft.close();
  }
}

async function dumpOrAbsent(nft: Nft, family: DesiredTable['family']): Promise<TableDump | null> {
  try {
    return await nft.dumpTable(family, TABLE, { elements: true });
  } catch (e) {
    if ((e as { code?: string }).code === 'ENOENT') return null;
    throw new Error(`--dry-run --diff: cannot read table ${family} ${TABLE}: ${(e as Error).message}`);
  }
}

function familySummary(family: string, script: string): string {
  const c: ScriptCounts = countAdded(script);
  return `${family}: ${c.chains} chains (${c.baseChains} base), ${c.sets} sets, ${c.maps} maps, ${c.rules} rules, ${c.elements} elements`;
}

function diffSummary(script: string): string {
  const c = countChanges(script);
  const total = c.add + c.delete + c.flush;
  if (total === 0) return '# dry run --diff: no changes\n';
  const flush = c.flush > 0 ? `, ${c.flush} flush` : '';
  return `# dry run --diff: ${total} change${total === 1 ? '' : 's'} (${c.add} add, ${c.delete} delete${flush})\n`;
}

const oneLine = (s: string): string => s.replace(/\s+/g, ' ');
