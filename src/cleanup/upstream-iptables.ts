// --cleanup's part for upstream's iptables-nft rules: in each ip/ip6 table nat, filter and mangle,
// what planUpstreamTable picks goes in one transaction per table (the jumps from base chains
// deleted by handle, upstream's chains flushed, then deleted), so a table is cleaned whole or not
// at all. Everything else in the tables stays as it was: iptables-nft rules of other owners are
// never re-written, since nothing but the named objects is touched.
import * as os from 'node:os';
import type { Log } from '../base/log';
import { type Family, NetlinkError, type Nft, Transaction } from '../native';
import { UPSTREAM_TABLES } from './upstream-names';
import { planUpstreamTable, type UpstreamTablePlan } from './upstream-plan';

export interface UpstreamTableResult {
  /** "ip nat", "ip6 filter", ... */
  table: string;
  deletedChains: string[];
  /** Rules that were inside the deleted chains. */
  deletedRulesInChains: number;
  /** Rules of built-in chains that jumped to them. */
  deletedJumps: number;
  keptChains: UpstreamTablePlan['kept'];
}

export interface UpstreamIptablesResult {
  tables: UpstreamTableResult[];
  failed: { what: string; error: string }[];
}

const ENOENT = os.constants.errno.ENOENT;
const FAMILIES: Family[] = ['ip', 'ip6'];

export async function cleanupUpstreamIptables(nft: Pick<Nft, 'dumpTable' | 'commit'>, log: Pick<Log, 'info' | 'warn' | 'error'>): Promise<UpstreamIptablesResult> {
  const result: UpstreamIptablesResult = { tables: [], failed: [] };
  for (const family of FAMILIES) {
    for (const name of UPSTREAM_TABLES) {
      const table = `${family} ${name}`;
      try {
        const r = await cleanTable(nft, family, name);
        if (r) report(r, log, result);
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        result.failed.push({ what: `upstream kube-proxy's chains in ${table}`, error });
        log.error({ table, error }, 'Could not remove upstream kube-proxy\'s iptables chains');
      }
    }
  }
  return result;
}

const EBUSY = os.constants.errno.EBUSY;
/** Another program changed the table between our dump and our commit: a rule we named is gone
 *  (ENOENT) or a new one jumps to a chain we delete (EBUSY). Dump and plan again, once. */
const RACE_RETRIES = 1;

/** undefined: no such table (iptables never used it in this family). */
async function cleanTable(nft: Pick<Nft, 'dumpTable' | 'commit'>, family: Family, name: string): Promise<UpstreamTableResult | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await cleanTableOnce(nft, family, name);
    } catch (e) {
      const raced = e instanceof NetlinkError && (e.errno === ENOENT || e.errno === EBUSY);
      if (!raced || attempt >= RACE_RETRIES) throw e;
    }
  }
}

async function cleanTableOnce(nft: Pick<Nft, 'dumpTable' | 'commit'>, family: Family, name: string): Promise<UpstreamTableResult | undefined> {
  let dump;
  try {
    dump = await nft.dumpTable(family, name, { elements: false });
  } catch (e) {
    if (e instanceof NetlinkError && e.errno === ENOENT) return undefined;
    throw e;
  }
  const plan = planUpstreamTable(name, dump);
  if (plan.chains.length > 0) await nft.commit(planTransaction(family, name, plan));
  return {
    table: `${family} ${name}`, deletedChains: plan.chains, deletedRulesInChains: plan.rulesInChains,
    deletedJumps: plan.jumps.length, keptChains: plan.kept,
  };
}

/** Jumps first, then every flush before any delete: a chain's use count drops with the rules that jump to it. */
export function planTransaction(family: Family, table: string, plan: UpstreamTablePlan): Transaction {
  const tx = new Transaction();
  for (const j of plan.jumps) tx.deleteRule(family, table, j.chain, j.handle);
  for (const c of plan.chains) tx.flushChain(family, table, c);
  for (const c of plan.chains) tx.deleteChain(family, table, c);
  return tx;
}

function report(r: UpstreamTableResult, log: Pick<Log, 'info' | 'warn'>, result: UpstreamIptablesResult): void {
  if (r.deletedChains.length > 0 || r.keptChains.length > 0) result.tables.push(r);
  if (r.deletedChains.length > 0) {
    log.info({ table: r.table, chains: r.deletedChains.length, rulesInChains: r.deletedRulesInChains, jumps: r.deletedJumps, deletedChains: r.deletedChains },
      'Removed upstream kube-proxy\'s iptables chains');
  }
  for (const k of r.keptChains) {
    log.warn({ table: r.table, chain: k.chain, referencedBy: k.referencedBy },
      'Kept an upstream kube-proxy iptables chain: a rule of another owner jumps to it (directly or through another kept chain)');
  }
}
