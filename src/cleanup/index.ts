// --cleanup: removes everything any proxy mode of ours may have created, and nothing else. Start-up
// never does this; it is the one path that deletes another mode's rules. Today that is the nftables
// table `kube-proxy` in the ip and ip6 families (IPVS objects will join when that mode creates them).
import type { Log } from '../base/log';
import { Family, NetlinkError, Nft, Transaction } from '../native';

const OWNED_TABLES: ReadonlyArray<{ family: Family; name: string }> = [
  { family: 'ip', name: 'kube-proxy' },
  { family: 'ip6', name: 'kube-proxy' },
];

export type CleanupLog = Pick<Log, 'info' | 'error'>;

export interface CleanupResult {
  deleted: string[];
  absent: string[];
  /** Tables that could not be deleted, with the kernel's reason; non-empty means exit non-zero. */
  failed: { table: string; error: string }[];
}

const ENOENT = 2;

/** Deletes each owned table in its own transaction, so one that is already gone does not stop the others. */
export async function runCleanup(opts: { netns?: string; log: CleanupLog }): Promise<CleanupResult> {
  const result: CleanupResult = { deleted: [], absent: [], failed: [] };
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
