// Wraps the addon's Nft so the bench sees each transaction the proxier commits (its op count, the
// bytes sent, and, for the first one, the transaction itself for the `nft -f` comparison) without
// changing what is sent. Later transactions are not kept: a full sync's is tens of MB, and keeping
// them would charge the proxy's memory with the bench's.
import type { CommitStats, Nft, Transaction } from '../lib/native';

/** `ms`: the commit's wall time, around Nft.commit (the kernel's part of a sync). */
export interface CommitRecord { tx?: Transaction; stats: CommitStats; ops: number; ms: number }

export function recordingNft<T extends Nft>(inner: T): { nft: T; commits: CommitRecord[] } {
  const commits: CommitRecord[] = [];
  const commit = async (tx: Transaction): Promise<CommitStats> => {
    const t = performance.now();
    const stats = await inner.commit(tx);
    const ms = performance.now() - t;
    commits.push(commits.length === 0 ? { tx, stats, ops: tx.opCount, ms } : { stats, ops: tx.opCount, ms });
    return stats;
  };
  // A Proxy rather than a subclass: methods run on the real object, so private fields keep working.
  const nft = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'commit') return commit;
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { nft, commits };
}
