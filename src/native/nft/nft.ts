// The kernel connection: one NETLINK_NETFILTER socket (optionally inside a network namespace).
// The addon allows one operation per socket at a time, so calls are queued here.
import { CallQueue } from '../addon/call-queue';
import { loadAddon } from '../addon/addon-loader';
import type { NftSocketHandle, RawChain, RawElement, RawTableDump } from '../addon/addon-types';
import { toNetlinkError } from '../addon/netlink-error';
import { ChainType, Family, FAMILY_BY_CODE, FAMILY_CODE, Hook, HOOK_BY_CODE, VERDICT_CODE, Verdict } from '../txn/nft-types';
import type { Transaction } from '../txn/transaction';
import type { KeyPart } from '../txn/elements';
import type { SetSpec } from '../txn/set-spec';
import { encodeLookupKeys, expectedChainTransaction, type ChainRule, type ElementLookup, type ExpectedChain } from './lookups';

export interface CommitStats { messages: number; sends: number; bytes: number }

export interface DumpedElement { key: Buffer; keyEnd?: Buffer; flags: number; verdict?: Verdict; data?: Buffer }
export interface TableDump {
  chains: { name: string; handle: number; hook?: Hook; priority?: number; type?: ChainType; policy?: string }[];
  /** jumps: the chains the rule's verdicts jump or go to, in order. */
  rules: { chain: string; handle: number; exprs: string[]; jumps: string[] }[];
  /** concat: a concatenated interval set's field lengths in bytes, as the kernel holds them. */
  sets: { name: string; flags: number; keyType: number; keyLen: number; dataType: number; dataLen: number; concat?: number[]; elements: DumpedElement[] }[];
}

const VERDICT_BY_CODE = new Map<number, Verdict['kind']>(
  Object.entries(VERDICT_CODE).filter(([k]) => k !== 'break').map(([k, v]) => [v, k as Verdict['kind']]));

function toVerdict(v: { code: number; chain?: string }): Verdict {
  const kind = VERDICT_BY_CODE.get(v.code);
  if (kind === 'jump' || kind === 'goto') return { kind, chain: v.chain ?? '' };
  if (kind) return { kind };
  throw new RangeError(`the kernel returned an unknown verdict code ${v.code}`);
}

function toChain(c: RawChain): TableDump['chains'][number] {
  const out: TableDump['chains'][number] = { name: c.name, handle: c.handle };
  if (c.hook !== undefined) out.hook = HOOK_BY_CODE[c.hook];
  if (c.priority !== undefined) out.priority = c.priority;
  if (c.type !== undefined) out.type = c.type as ChainType;
  if (c.policy !== undefined) out.policy = c.policy === 1 ? 'accept' : c.policy === 0 ? 'drop' : String(c.policy);
  return out;
}

function toElement(e: RawElement): DumpedElement {
  const out: DumpedElement = { key: e.key, flags: e.flags };
  if (e.keyEnd) out.keyEnd = e.keyEnd;
  if (e.verdict) out.verdict = toVerdict(e.verdict);
  if (e.data) out.data = e.data;
  return out;
}

function toDump(raw: RawTableDump): TableDump {
  return {
    chains: raw.chains.map(toChain),
    rules: raw.rules.map((r) => ({ chain: r.chain, handle: r.handle, exprs: r.exprs, jumps: r.jumps })),
    sets: raw.sets.map((s) => ({
      name: s.name, flags: s.flags, keyType: s.keyType, keyLen: s.keyLen, dataType: s.dataType, dataLen: s.dataLen,
      ...(s.concat ? { concat: s.concat } : {}),
      elements: s.elements.map(toElement),
    })),
  };
}

/**
 * What the proxier and the app use of a kernel handle: Nft has it, and FakeNft (../testing/fake-nft.ts)
 * implements it.
 */
export type NftApi = Pick<Nft, 'commit' | 'dumpTable' | 'dumpSet' | 'listTables' | 'generation' | 'getElements' | 'dumpChain' | 'close' | 'portId'>;

export class Nft {
  private readonly calls = new CallQueue('Nft');

  private constructor(private readonly sock: NftSocketHandle) {}

  /** netns: a namespace file such as /run/netns/X; the current namespace when absent. */
  static open(opts?: { netns?: string }): Nft {
    if (opts !== undefined && (typeof opts !== 'object' || opts === null)) throw new TypeError('opts: expected an object');
    const netns = opts?.netns;
    if (netns !== undefined && (typeof netns !== 'string' || netns.length === 0)) throw new TypeError('opts.netns: expected a path string');
    const { NftSocket } = loadAddon();
    return new Nft(new NftSocket(netns ?? null));
  }

  /** The socket's netlink port id: the nlmsg_pid of the change notifications our commits cause
   *  (give it to NftMonitor as an own port id). Still readable after close(). */
  get portId(): number {
    return this.sock.portId;
  }

  /** An idle socket starts a call in this turn: commit() hands the addon a view of its buffer then. */
  private run<T>(fn: () => Promise<T>): Promise<T> {
    return this.calls.run(fn, { startNowIfIdle: true });
  }

  /** Applies the transaction atomically; rejects with NetlinkError naming the op the kernel refused. */
  commit(tx: Transaction): Promise<CommitStats> {
    // serialize() is a view of the transaction's storage. An idle socket hands it to the addon at
    // once: the addon checks it then, and reads its ops again while it encodes them, holding the
    // Buffer until the commit settles (no copy); ops added meanwhile go after the bytes it reads.
    // A call that must wait its turn takes a copy, since serialize() rewrites the op count.
    const view = tx.serialize();
    const buf = this.calls.busy ? Buffer.from(view) : view;
    return this.run(async () => {
      try {
        return await this.sock.commit(buf);
      } catch (e) {
        throw toNetlinkError(e, (i) => tx.describe(i));
      }
    });
  }

  listTables(): Promise<{ family: Family; name: string }[]> {
    return this.run(async () => {
      const raw = await this.sock.listTables();
      return raw.filter((t) => FAMILY_BY_CODE[t.family]).map((t) => ({ family: FAMILY_BY_CODE[t.family], name: t.name }));
    });
  }

  /** The ruleset generation: every committed batch in the namespace, ours or another process's, adds one. */
  generation(): Promise<number> {
    return this.run(async () => {
      try {
        return await this.sock.generation();
      } catch (e) {
        throw toNetlinkError(e, () => '', 'get generation');
      }
    });
  }

  /** `elements: false` lists sets without their elements: much faster on large tables. */
  dumpTable(family: Family, name: string, opts: { elements?: boolean } = {}): Promise<TableDump> {
    const code = FAMILY_CODE[family];
    if (code === undefined) return Promise.reject(new TypeError(`family: expected 'ip', 'ip6' or 'inet', got '${String(family)}'`));
    return this.run(async () => {
      try {
        return toDump(await this.sock.dumpTable(code, name, opts.elements ?? true));
      } catch (e) {
        throw toNetlinkError(e, () => '', `list table ${family} ${name}`);
      }
    });
  }

  /**
   * One set and its elements, nothing else of the table (the affinity records, which the packet
   * path writes: affinity-records.ts). Rejects with a NetlinkError (ENOENT) when the table or set
   * does not exist.
   */
  dumpSet(family: Family, table: string, set: string): Promise<TableDump['sets'][number]> {
    const code = FAMILY_CODE[family];
    if (code === undefined) return Promise.reject(new TypeError(`family: expected 'ip', 'ip6' or 'inet', got '${String(family)}'`));
    return this.run(async () => {
      try {
        return toDump(await this.sock.dumpTable(code, table, true, set)).sets[0];
      } catch (e) {
        throw toNetlinkError(e, () => '', `list set ${family} ${table} ${set}`);
      }
    });
  }

  /**
   * The elements of `set` (a set without intervals) with these keys, looked up one by one in the
   * kernel (never a listing of the set): per key, the element as dumpTable gives it, or none.
   * Keys are checked and encoded as addElements encodes them; rejects with a NetlinkError
   * (ENOENT) naming the set when it or the table does not exist.
   */
  getElements(family: Family, table: string, set: SetSpec, keys: readonly (readonly KeyPart[])[]): Promise<ElementLookup[]> {
    const code = FAMILY_CODE[family];
    if (code === undefined) return Promise.reject(new TypeError(`family: expected 'ip', 'ip6' or 'inet', got '${String(family)}'`));
    let encoded: Buffer[];
    try {
      encoded = encodeLookupKeys(set, keys);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.run(async () => {
      try {
        const raw = await this.sock.getElements(code, table, set.name, encoded);
        return raw.map((r, i) => (r.found && r.element ? { key: [...keys[i]], element: toElement(r.element) } : { key: [...keys[i]] }));
      } catch (e) {
        throw toNetlinkError(e, () => '', `get elements of set ${family} ${table} ${set.name}`);
      }
    });
  }

  /**
   * One chain's rules in order (a rule dump filtered by the chain; never the table's). With
   * `expected`, each rule that has an expected counterpart at its position says whether it
   * matches it: the same expressions, each carrying every attribute we would send with the same
   * bytes, and the same userdata. Rejects with a NetlinkError (ENOENT) when the chain does not exist.
   */
  dumpChain(family: Family, table: string, chain: string, expected?: ExpectedChain): Promise<ChainRule[]> {
    const code = FAMILY_CODE[family];
    if (code === undefined) return Promise.reject(new TypeError(`family: expected 'ip', 'ip6' or 'inet', got '${String(family)}'`));
    let buf: Buffer | undefined;
    try {
      buf = expected === undefined ? undefined : Buffer.from(expectedChainTransaction(family, table, chain, expected).serialize());
    } catch (e) {
      return Promise.reject(e);
    }
    return this.run(async () => {
      try {
        const raw = await this.sock.dumpChain(code, table, chain, buf);
        return raw.rules.map((r) => (r.matches === undefined
          ? { handle: r.handle, exprs: r.exprs, jumps: r.jumps }
          : { handle: r.handle, exprs: r.exprs, jumps: r.jumps, matches: r.matches }));
      } catch (e) {
        throw toNetlinkError(e, () => '', `list chain ${family} ${table} ${chain}`);
      }
    });
  }

  /** Closes the socket once queued calls have finished. */
  close(): void {
    this.calls.close(() => this.sock.close());
  }
}
