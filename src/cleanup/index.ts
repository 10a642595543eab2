// --cleanup: removes everything any proxy mode of ours (or upstream's) may have created, and nothing else. Start-up
// never does this; it is the one path that deletes another mode's rules: the nftables mode's table
// `kube-proxy` and the IPVS mode's `kube-proxy-ipvs` (ip and ip6 families), and the IPVS mode's
// virtual services, addresses and kube-ipvs0 (ipvs.ts). It also removes what upstream kube-proxy's
// iptables and IPVS modes left (upstream.ts): their iptables-nft chains and the jumps to them,
// their ipsets; iptables-legacy tables get a warning with the commands to run.
import * as os from 'node:os';
import type { Log } from '../base/log';
import { Family, IpvsSocket, NetlinkError, Nft, RtnlSocket, Transaction } from '../native';
import type { IpvsHandle } from '../native/ipvs/ipvs-types';
import { cleanupIpvs, type IpvsCleanupResult } from './ipvs';
import { cleanupUpstream, upstreamCleanupFailures, type UpstreamCleanupResult } from './upstream';

const OWNED_TABLES: ReadonlyArray<{ family: Family; name: string }> = [
  { family: 'ip', name: 'kube-proxy' },
  { family: 'ip6', name: 'kube-proxy' },
  { family: 'ip', name: 'kube-proxy-ipvs' },
  { family: 'ip6', name: 'kube-proxy-ipvs' },
];

export type CleanupLog = Pick<Log, 'info' | 'warn' | 'error'>;

export interface CleanupResult {
  deleted: string[];
  absent: string[];
  /** Tables that could not be deleted, with the kernel's reason; non-empty means exit non-zero. */
  failed: { table: string; error: string }[];
  ipvs: IpvsCleanupResult;
  upstream: UpstreamCleanupResult;
}

export interface CleanupOptions {
  netns?: string;
  log: CleanupLog;
  /** ipvs.excludeCIDRs: virtual services in them are never removed. */
  excludeCIDRs?: readonly string[];
  /** The namespace's /proc/net, for iptables-legacy detection (default /proc/net). */
  procNet?: string;
}

/** Exit 0 unless something failed to go; what stays on purpose (ipvs.excludeCIDRs' services, chains and
 *  ipsets another owner's rules use, iptables-legacy tables) is not a failure. */
export function cleanupSucceeded(r: CleanupResult): boolean {
  return r.failed.length === 0 && r.ipvs.failed.length === 0 && upstreamCleanupFailures(r.upstream).length === 0;
}

const ENOENT = os.constants.errno.ENOENT;

/** The IPVS mode's kernel objects first (its addresses and services), then every owned table, then upstream's leftovers. */
export async function runCleanup(opts: CleanupOptions): Promise<CleanupResult> {
  const ipvs = await runIpvsCleanup(opts);
  const tables = await deleteTables(opts);
  const upstream = await cleanupUpstream({ netns: opts.netns, procNet: opts.procNet, log: opts.log });
  return { ...tables, ipvs, upstream };
}

/** Deletes each owned table in its own transaction, so one that is already gone does not stop the others. */
async function deleteTables(opts: CleanupOptions): Promise<Omit<CleanupResult, 'ipvs' | 'upstream'>> {
  const result: Omit<CleanupResult, 'ipvs' | 'upstream'> = { deleted: [], absent: [], failed: [] };
  const nft = Nft.open(opts.netns ? { netns: opts.netns } : undefined);
  try {
    for (const t of OWNED_TABLES) {
      const table = `${t.family} ${t.name}`;
      try {
        await nft.commit(new Transaction().deleteTable(t.family, t.name));
        result.deleted.push(table);
        opts.log.info({ table }, 'Deleted nftables table');
      } catch (e) {
        if (e instanceof NetlinkError && e.errno === ENOENT) {
          result.absent.push(table);
          opts.log.info({ table }, 'Nothing to clean up: table not present');
        } else {
          const error = e instanceof Error ? e.message : String(e);
          result.failed.push({ table, error });
          opts.log.error({ table, error }, 'Could not delete nftables table');
        }
      }
    }
  } finally {
    nft.close();
  }
  return result;
}

/** The IPVS part; a kernel without IPVS has none of it (the family lookup's ENOENT). */
async function runIpvsCleanup(opts: CleanupOptions): Promise<IpvsCleanupResult> {
  const where = opts.netns ? { netns: opts.netns } : undefined;
  let ipvs: IpvsHandle | undefined;
  try {
    ipvs = await IpvsSocket.open(where);
  } catch (e) {
    if ((e as { errno?: number }).errno !== ENOENT) throw e;
    opts.log.info({}, 'Nothing to clean up in IPVS: the kernel has no IPVS');
  }
  const rtnl = new RtnlSocket(where);
  try {
    return await cleanupIpvs({ ipvs, rtnl, excludeCIDRs: opts.excludeCIDRs ?? [], log: opts.log });
  } finally {
    ipvs?.close();
    rtnl.close();
  }
}
