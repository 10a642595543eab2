// --cleanup: removes everything any proxy mode of ours may have created, and nothing else. Start-up
// never does this; it is the one path that deletes another mode's rules. Today that is the nftables
// table `kube-proxy` in the ip and ip6 families, and the shard tables `kube-proxy-svc-NN` an
// earlier version made (IPVS objects will join when that mode creates them).
import { Family, NetlinkError, Nft, Transaction } from '../native';
import { isOurTable } from '../proxier/nftables/layout';

/** The main tables: reported as absent when missing. Shard tables are found by listing. */
export const OWNED_TABLES: ReadonlyArray<{ family: Family; name: string }> = [
  { family: 'ip', name: 'kube-proxy' },
  { family: 'ip6', name: 'kube-proxy' },
];

const FAMILIES: ReadonlySet<string> = new Set(OWNED_TABLES.map((t) => t.family));

/** The main tables, then every other listed table of ours (earlier versions' shards) in the ip and ip6 families. */
async function tablesToDelete(nft: Nft): Promise<{ family: Family; name: string }[]> {
  const listed = (await nft.listTables()).filter((t) => FAMILIES.has(t.family) && isOurTable(t.name));
  const key = (t: { family: string; name: string }) => `${t.family} ${t.name}`;
  const main = new Set(OWNED_TABLES.map(key));
  const shards = listed.filter((t) => !main.has(key(t))).sort((a, b) => key(a).localeCompare(key(b)));
  return [...OWNED_TABLES, ...shards];
}

export interface CleanupLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

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
    for (const t of await tablesToDelete(nft)) {
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
