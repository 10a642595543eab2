// The kernel handle the memory bench gives the proxier: it records each committed transaction's
// size and, at the moment of the commit (when the whole desired state, the new state and the
// transaction exist at once), the live heap. Without a kernel it only reads the buffer, as the
// addon would; with one it passes the commit on.
import type { NftHandle } from '../../src/proxier/nftables/options';
import type { Transaction } from '../../src/native/txn/transaction';
import { reading, type HeapReading } from './heap';

export interface CommitSample {
  ops: number;
  bytes: number;
  /** Live memory at the commit (after a full GC), and the heap as it was, garbage included. */
  live: HeapReading;
  heapWithGarbage: number;
}

export interface MeasuringNft extends NftHandle {
  samples: CommitSample[];
  /** Read the heap at every commit (full syncs) or not (partial syncs: a GC per commit would be the cost measured). */
  measure: boolean;
}

const EMPTY_DUMP = { chains: [], sets: [] };

export function measuringNft(inner?: NftHandle): MeasuringNft {
  const samples: CommitSample[] = [];
  const nft: MeasuringNft = {
    samples,
    measure: true,
    async commit(tx: Transaction) {
      const bytes = tx.serialize().length;
      if (nft.measure) {
        const heapWithGarbage = process.memoryUsage().heapUsed / 1024 / 1024;
        samples.push({ ops: tx.opCount, bytes, live: reading(), heapWithGarbage });
      }
      return inner ? inner.commit(tx) : { messages: tx.opCount + 2, sends: 1, bytes };
    },
    dumpTable: (family, name, opts) => (inner ? inner.dumpTable(family, name, opts) : Promise.resolve(EMPTY_DUMP)),
    // Without a kernel there are no affinity records (no packet wrote one).
    dumpSet: (family, table, set) => (inner ? inner.dumpSet(family, table, set) : Promise.resolve({ elements: [] })),
  };
  return nft;
}
