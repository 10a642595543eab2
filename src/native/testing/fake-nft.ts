// FakeNft: a handle on a FakeKernel with Nft's methods (commit, dumpTable, listTables,
// generation, close, portId), so code written against Nft runs on the fake without root. Tests
// observe through it (every commit it was given, every dump) and make the kernel fail on purpose:
// refuse a chosen op, or apply a batch and report it lost (ENOBUFS), as the real socket can.
import { ENOBUFS, errnoNumber } from './fake-state';
import type { FakeKernel, OpError } from './fake-kernel';
import { toNetlinkError, type NetlinkError } from '../addon/netlink-error';
import type { CommitStats, NftApi, TableDump } from '../nft/nft';
import type { Family } from '../txn/nft-types';
import type { Transaction } from '../txn/transaction';
import type { KeyPart } from '../txn/elements';
import type { SetSpec } from '../txn/set-spec';
import { encodeLookupKeys, expectedChainTransaction, type ChainRule, type ElementLookup, type ExpectedChain } from '../nft/lookups';

export interface FakeCommit {
  tx: Transaction;
  /** Whether the fake kernel holds the batch now (also true for a reply reported lost). */
  applied: boolean;
  error?: NetlinkError;
}

/** An error to inject: errno by number or name, at an op index (-1: the whole batch) or at the first op whose description matches. */
export interface FakeFault { errno: number | string; at: number | RegExp }

const LOST_REPLY = 'kernel dropped replies (receive queue overflow); the batch failed';

export class FakeNft implements NftApi {
  /** Every commit this handle was given, in order, with its outcome. */
  readonly commits: FakeCommit[] = [];
  /** Every dumpTable call, in order. */
  readonly dumps: { family: Family; name: string; elements: boolean }[] = [];
  private readonly faults: FakeFault[] = [];
  private loseReply = false;
  private closed = false;

  /** @internal Use FakeKernel.open(). */
  constructor(private readonly kernel: FakeKernel, readonly portId: number) {}

  /** Refuses an op of a later commit: the first commit with an op at that index or matching that text. */
  inject(fault: FakeFault): this {
    errnoNumber(fault.errno);
    this.faults.push(fault);
    return this;
  }

  /** The next commit the kernel accepts is applied, and then rejected with ENOBUFS as if its replies were lost. */
  loseNextReply(): this {
    this.loseReply = true;
    return this;
  }

  /** The fault that fires on this transaction, taken off the list. */
  private takeFault(tx: Transaction): OpError | undefined {
    for (let i = 0; i < this.faults.length; i++) {
      const f = this.faults[i];
      let opIndex = -2;
      if (typeof f.at === 'number') opIndex = f.at;
      else for (let k = 0; k < tx.opCount && opIndex === -2; k++) if (f.at.test(tx.describe(k))) opIndex = k;
      if (opIndex === -2) continue;
      if (opIndex >= tx.opCount) throw new RangeError(`FakeNft: a fault at op ${opIndex}, but the transaction has ${tx.opCount} ops`);
      this.faults.splice(i, 1);
      return { errno: errnoNumber(f.errno), opIndex, extack: 'injected by FakeNft' };
    }
    return undefined;
  }

  private live(): void {
    if (this.closed) throw new Error('Nft: the socket is closed');
  }

  commit(tx: Transaction): Promise<CommitStats> {
    try {
      this.live();
      const errors = this.kernel.apply(tx.opRecords(), this.takeFault(tx));
      if (errors.length > 0) {
        const [first] = errors;
        const error = toNetlinkError({ ...first, errors }, (i) => tx.describe(i)) as NetlinkError;
        this.commits.push({ tx, applied: false, error });
        return Promise.reject(error);
      }
      if (this.loseReply && tx.opCount > 0) {
        this.loseReply = false;
        const error = toNetlinkError({ errno: ENOBUFS, extack: LOST_REPLY }, () => '') as NetlinkError;
        this.commits.push({ tx, applied: true, error });
        return Promise.reject(error);
      }
      this.commits.push({ tx, applied: true });
      return Promise.resolve({ messages: tx.opCount + 2, sends: 1, bytes: tx.serialize().length });
    } catch (e) {
      return Promise.reject(e);
    }
  }

  listTables(): Promise<{ family: Family; name: string }[]> {
    return this.call(() => this.kernel.listTables());
  }

  generation(): Promise<number> {
    return this.call(() => this.kernel.generation());
  }

  dumpTable(family: Family, name: string, opts: { elements?: boolean } = {}): Promise<TableDump> {
    return this.call(() => {
      const elements = opts.elements ?? true;
      this.dumps.push({ family, name, elements });
      try {
        return this.kernel.dumpTable(family, name, elements);
      } catch (e) {
        throw toNetlinkError(e, () => '', `list table ${family} ${name}`);
      }
    });
  }

  /** Nft.dumpSet on the fake kernel: the table's dump, that set alone (ENOENT when absent). */
  dumpSet(family: Family, table: string, set: string): Promise<TableDump['sets'][number]> {
    return this.call(() => {
      try {
        const found = this.kernel.dumpTable(family, table, true).sets.find((s) => s.name === set);
        if (!found) throw Object.assign(new Error(`no set ${set}`), { errno: 2, code: 'ENOENT' });
        return found;
      } catch (e) {
        throw toNetlinkError(e, () => '', `list set ${family} ${table} ${set}`);
      }
    });
  }

  /** Nft.getElements on the fake kernel: the same checks, the same answers. */
  getElements(family: Family, table: string, set: SetSpec, keys: readonly (readonly KeyPart[])[]): Promise<ElementLookup[]> {
    return this.call(() => {
      const encoded = encodeLookupKeys(set, keys);
      try {
        return this.kernel.getElements(family, table, set.name, encoded)
          .map((r, i) => (r.element ? { key: [...keys[i]], element: r.element } : { key: [...keys[i]] }));
      } catch (e) {
        throw toNetlinkError(e, () => '', `get elements of set ${family} ${table} ${set.name}`);
      }
    });
  }

  /** Nft.dumpChain on the fake kernel (rules compared by their nft text). */
  dumpChain(family: Family, table: string, chain: string, expected?: ExpectedChain): Promise<ChainRule[]> {
    return this.call(() => {
      if (expected !== undefined) expectedChainTransaction(family, table, chain, expected); // the checks Nft makes
      try {
        return this.kernel.dumpChain(family, table, chain, expected?.rules);
      } catch (e) {
        throw toNetlinkError(e, () => '', `list chain ${family} ${table} ${chain}`);
      }
    });
  }

  close(): void {
    this.closed = true;
  }

  private call<T>(fn: () => T): Promise<T> {
    try {
      this.live();
      return Promise.resolve(fn());
    } catch (e) {
      return Promise.reject(e);
    }
  }
}
