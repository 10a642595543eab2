// The in-memory nftables of one network namespace that FakeKernel applies transactions to, and
// the copy-on-write draft a transaction is applied to: a refused batch leaves nothing applied
// because the draft is dropped, an accepted one is swapped in whole.
import type { Element } from '../txn/elements';
import { constants } from 'node:os';
import type { ChainSpec } from '../txn/ops';
import type { ChainType, Family, Hook, Verdict } from '../txn/nft-types';
import { NFT_DATA_VERDICT } from '../txn/nft-types';
import type { RuleRef } from '../txn/rule-refs';
import { setAttrs, type SetAttrs, type SetSpec } from '../txn/set-spec';

const MAX_ERRNO = 4095;

/**
 * An errno by number, or by name. Names resolve through Node's table (os.constants.errno), not the
 * addon's, so importing the fake never loads the addon; test/native/errno-names.test.ts checks the
 * two tables agree.
 */
export function errnoNumber(e: number | string): number {
  if (typeof e === 'number' && Number.isInteger(e) && e > 0 && e <= MAX_ERRNO) return e;
  const byName = typeof e === 'string' ? (constants.errno as Record<string, number | undefined>)[e] : undefined;
  if (byName !== undefined) return byName;
  throw new RangeError(`errno: ${String(e)} is not an errno number (1..${MAX_ERRNO}) or a name os.constants.errno knows`);
}
export const ENOENT = errnoNumber('ENOENT');
export const EEXIST = errnoNumber('EEXIST');
export const EBUSY = errnoNumber('EBUSY');
export const EINVAL = errnoNumber('EINVAL');
export const ENFILE = errnoNumber('ENFILE');
export const EOPNOTSUPP = errnoNumber('EOPNOTSUPP');
export const ENOBUFS = errnoNumber('ENOBUFS');

/** What the kernel answers an op with; the reason goes where the kernel's extack would. */
export class Refusal extends Error {
  constructor(readonly errno: number, reason: string) {
    super(reason);
  }

  /** Read by toNetlinkError, as the addon's error carries the kernel's extack. */
  get extack(): string {
    return this.message;
  }
}

export function refuse(code: number, reason: string): never {
  throw new Refusal(code, reason);
}

/** sizeof(struct nft_verdict) on 64-bit: the data length the kernel gives every verdict map. */
const VERDICT_DATA_LEN = 16;

export interface FakeBase { type: ChainType; hook: Hook; priority: number; policy: 'accept' | 'drop' }
export interface FakeRule { handle: number; text: string; exprs: string; refs: readonly RuleRef[] }
export interface FakeChain { name: string; handle: number; base?: FakeBase; rules: FakeRule[] }
/** One element as the kernel stores it (an interval is a start and an INTERVAL_END element). */
export interface FakeElement {
  key: Uint8Array;
  keyEnd?: Uint8Array;
  flags: number;
  verdict?: Verdict;
  data?: Uint8Array;
  /** The API value it was added from; absent on an interval's end element. */
  value?: Element;
  /** The set's spec as the adding transaction knew it (element text is written with it). */
  spec?: SetSpec;
}
export interface FakeSet {
  name: string;
  handle: number;
  /** As first added: adding the set again changes neither its type nor its userdata (comment). */
  spec: SetSpec;
  attrs: SetAttrs;
  /** The most elements it takes (NFTA_SET_DESC_SIZE); adding the set again with a size changes it. */
  size?: number;
  elements: Map<string, FakeElement>;
}
export interface FakeTable {
  family: Family;
  name: string;
  chains: Map<string, FakeChain>;
  sets: Map<string, FakeSet>;
  /** The table's handle generator: chains, rules and sets draw from it. */
  nextHandle: number;
}

export const tableKey = (family: Family, name: string): string => `${family} ${name}`;

/** The attributes the kernel keeps for a set (a verdict map's data length is its own). */
export function kernelSetAttrs(spec: SetSpec): SetAttrs {
  const a = setAttrs(spec);
  return a.dataType === NFT_DATA_VERDICT ? { ...a, dataLen: VERDICT_DATA_LEN } : a;
}

export function chainSpecOf(c: FakeChain): ChainSpec {
  return c.base ? { name: c.name, base: { ...c.base } } : { name: c.name };
}

/**
 * A transaction's view of the tables: reads see the committed objects until an op changes one,
 * which then gets its own copy (a table, a chain's rule list, a set's elements).
 */
export class Draft {
  readonly tables: Map<string, FakeTable>;
  /** Whether an op changed anything (the kernel's generation moves only then). */
  changed = false;
  /** New set sizes: the kernel applies them when the batch commits, not to the batch's own elements. */
  readonly resizes: { table: FakeTable; set: string; size: number }[] = [];
  private readonly owned = new WeakSet<object>();

  constructor(committed: ReadonlyMap<string, FakeTable>) {
    this.tables = new Map(committed);
  }

  table(family: Family, name: string): FakeTable {
    return this.tables.get(tableKey(family, name)) ?? refuse(ENOENT, `table ${family} ${name} does not exist`);
  }

  /** The draft's current version of the table `t` (an op may have replaced it with a copy). */
  current(t: FakeTable): FakeTable {
    return this.tables.get(tableKey(t.family, t.name)) ?? t;
  }

  chain(t: FakeTable, name: string): FakeChain {
    return this.current(t).chains.get(name) ?? refuse(ENOENT, `chain '${name}' does not exist in ${t.family} ${t.name}`);
  }

  set(t: FakeTable, name: string): FakeSet {
    return this.current(t).sets.get(name) ?? refuse(ENOENT, `set '${name}' does not exist in ${t.family} ${t.name}`);
  }

  /** The object itself if this draft made it or copied it already, else its copy, put in its place. */
  private own<T extends object>(o: T, copy: (o: T) => T, put: (c: T) => void): T {
    if (this.owned.has(o)) return o;
    const c = copy(o);
    this.owned.add(c);
    put(c);
    return c;
  }

  /** The draft's own copy of the table (`t` may be a committed one the draft has replaced since). */
  writableTable(t: FakeTable): FakeTable {
    this.changed = true;
    return this.own(this.current(t), (c) => ({ ...c, chains: new Map(c.chains), sets: new Map(c.sets) }),
      (c) => this.tables.set(tableKey(t.family, t.name), c));
  }

  writableChain(t: FakeTable, name: string): FakeChain {
    const w = this.writableTable(t);
    return this.own(this.chain(w, name), (c) => ({ ...c, base: c.base && { ...c.base }, rules: [...c.rules] }), (c) => w.chains.set(name, c));
  }

  writableSet(t: FakeTable, name: string): FakeSet {
    const w = this.writableTable(t);
    return this.own(this.set(w, name), (s) => ({ ...s, elements: new Map(s.elements) }), (s) => w.sets.set(name, s));
  }

  /** Notes a change that needs no copy (the kernel queues a transaction for it, so the generation moves). */
  touch(): void {
    this.changed = true;
  }

  /** The committed result: the tables with the batch's set sizes applied. */
  finish(): Map<string, FakeTable> {
    for (const r of this.resizes) if (this.current(r.table).sets.has(r.set)) this.writableSet(r.table, r.set).size = r.size;
    return this.tables;
  }

  /** Marks a new object as this draft's own (it needs no copy when changed again). */
  adopt<T extends object>(o: T): T {
    this.changed = true;
    this.owned.add(o);
    return o;
  }
}
