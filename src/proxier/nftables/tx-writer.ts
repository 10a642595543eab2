// Writes desired objects into a native Transaction on our table and remembers, for every op,
// which ServicePort it belongs to: when the kernel refuses an op (NetlinkError.opIndex) the sync
// knows whom to leave out on the retry.
import type { Element, ElementBatch, SetSpec } from '../../native';
import { isFrozenSpec } from '../../native/txn/set-spec';
import { Transaction } from '../../native/txn/transaction';
import type { ChainDef, ElementDef, NftFamily, SetDef } from './desired';
import { TABLE } from './names';

/** Owner of ops that belong to no ServicePort (table, base chains, shared sets). */
export const BASE_OWNER = '';
/** Owner of a batched op that carries several ServicePorts' elements. */
export const MIXED_OWNER = '*';

/**
 * A one-endpoint partial sync writes 0.3-1.2 KiB. Under 4 KiB, Buffer.allocUnsafe takes the bytes
 * from Node's shared pool instead of allocating a buffer of their own.
 */
const SMALL_TX_BYTES = 2048;

/** The native Transaction refused one ServicePort's object (a chain, its rules, its elements) while it was being written. */
export class OwnedBuildError extends Error {
  constructor(readonly owner: string, override readonly cause: Error) {
    super(`${cause.message}`);
  }
}

/** Runs a native builder call for `owner`: a ServicePort's refused object becomes an OwnedBuildError. */
export function owned<T>(owner: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (owner === BASE_OWNER || owner === MIXED_OWNER || !(e instanceof Error)) throw e;
    throw new OwnedBuildError(owner, e);
  }
}

export class TxWriter {
  readonly tx: Transaction;
  readonly owners: string[] = [];
  /** Chains this transaction adds, per family: they may exist if the commit's outcome is unclear. */
  readonly addedChains: { family: NftFamily; name: string }[] = [];

  /** Whether each op adds (a ServicePort's new objects) or removes (what the mirror says exists). */
  readonly adds: boolean[] = [];

  /** Per family: sets the kernel holds, told to the transaction only when an op first names one. */
  private readonly existing = new Map<NftFamily, ReadonlyMap<string, SetDef>>();
  /** Per family: sets the transaction knows (declared from `existing`, or added). */
  private readonly known = new Map<NftFamily, Set<string>>();

  /** `small`: a transaction of a few ops (a partial sync), whose buffer starts small and grows as needed. */
  constructor(opts?: { small?: boolean }) {
    this.tx = new Transaction(opts?.small ? { initialBytes: SMALL_TX_BYTES } : undefined);
  }

  /** Records the owner of the ops written since the last call. */
  private recordOwner(owner: string, adds = true): void {
    while (this.owners.length < this.tx.opCount) { this.owners.push(owner); this.adds.push(adds); }
  }

  /**
   * The sets `family`'s table holds: ops that name one declare it to the transaction first (a
   * partial sync names a few of them, and declaring one validates and copies its spec).
   */
  existingSets(family: NftFamily, sets: ReadonlyMap<string, SetDef>): void {
    this.existing.set(family, sets);
  }

  private knownSets(family: NftFamily): Set<string> {
    let k = this.known.get(family);
    if (!k) this.known.set(family, k = new Set());
    return k;
  }

  /** Declares an existing set the first time an op names it (one the transaction added is known already). */
  private need(family: NftFamily, name: string): void {
    const k = this.knownSets(family);
    if (k.has(name)) return;
    const def = this.existing.get(family)?.get(name);
    if (!def) return; // unknown: the transaction's own check names it
    this.tx.declareSet(family, TABLE, declaredSpec(def));
    k.add(name);
  }

  addTable(family: NftFamily): void { this.tx.addTable(family, TABLE); this.recordOwner(BASE_OWNER); }
  flushTable(family: NftFamily): void { this.tx.flushTable(family, TABLE); this.recordOwner(BASE_OWNER); }

  addChain(family: NftFamily, chain: Pick<ChainDef, 'name' | 'base'>, owner: string): void {
    owned(owner, () => this.tx.addChain(family, TABLE, chain.base ? { name: chain.name, base: chain.base } : { name: chain.name }));
    this.addedChains.push({ family, name: chain.name });
    this.recordOwner(owner);
  }
  flushChain(family: NftFamily, name: string, owner: string): void {
    this.tx.flushChain(family, TABLE, name); this.recordOwner(owner, false);
  }
  deleteChain(family: NftFamily, name: string, owner: string): void {
    this.tx.deleteChain(family, TABLE, name); this.recordOwner(owner, false);
  }

  addRules(family: NftFamily, chain: ChainDef, owner: string): void {
    for (const r of chain.rules) for (const ref of r.setRefs) this.need(family, ref.set);
    owned(owner, () => { for (const r of chain.rules) this.tx.addRule(family, TABLE, chain.name, r); });
    this.recordOwner(owner);
  }

  addSet(family: NftFamily, set: SetDef): void {
    this.tx.addSet(family, TABLE, nativeSetSpec(set));
    this.knownSets(family).add(set.name);
    this.recordOwner(BASE_OWNER);
  }
  flushSet(family: NftFamily, name: string): void { this.need(family, name); this.tx.flushSet(family, TABLE, name); this.recordOwner(BASE_OWNER); }
  deleteSet(family: NftFamily, name: string): void { this.need(family, name); this.tx.deleteSet(family, TABLE, name); this.recordOwner(BASE_OWNER); }

  /** Elements of one set (all of `els` must name `set`). */
  addElements(family: NftFamily, set: string, els: Omit<ElementDef, 'set'>[], owner: string): void {
    this.need(family, set);
    owned(owner, () => this.tx.addElements(family, TABLE, set, els.map(nativeElement)));
    this.recordOwner(owner);
  }
  /** Elements already encoded (a full sync's), one op. */
  addElementBatch(family: NftFamily, batch: ElementBatch, owner: string): void {
    owned(owner, () => this.tx.addElementBatch(family, TABLE, batch));
    this.recordOwner(owner);
  }
  deleteElements(family: NftFamily, set: string, els: Omit<ElementDef, 'set'>[], owner: string): void {
    this.need(family, set);
    this.tx.deleteElements(family, TABLE, set, els.map(keyOnly));
    this.recordOwner(owner, false);
  }
}

/** What a delete names: the key (and a verdict map's verdict, which the builder asks for); a data map's data is not sent. */
function keyOnly(e: Omit<ElementDef, 'set'>): Element {
  return e.verdict ? { key: e.key, verdict: e.verdict } : { key: e.key };
}

function nativeElement(e: Omit<ElementDef, 'set'>): Element {
  return e.verdict ? { key: e.key, verdict: e.verdict } : e.data ? { key: e.key, data: e.data } : { key: e.key };
}

const declaredSpecs = new WeakMap<SetDef, SetSpec>();

/**
 * nativeSetSpec, made once for a set that cannot change (compileBase freezes the base's sets), and
 * frozen itself: the transaction then checks it once, not in every partial sync that declares it.
 */
function declaredSpec(def: SetDef): SetSpec {
  let spec = declaredSpecs.get(def);
  if (spec) return spec;
  spec = nativeSetSpec(def);
  if (isFrozenSpec(def)) declaredSpecs.set(def, spec = Object.freeze(spec));
  return spec;
}

/** The set as the native builder takes it: without what only the sync reads (keepElements). */
export function nativeSetSpec(s: SetDef): SetSpec {
  return {
    name: s.name, key: s.key, ...(s.map ? { map: s.map } : {}), ...(s.typeof ? { typeof: s.typeof } : {}), ...(s.interval ? { interval: true } : {}),
    ...(s.timeout ? { timeout: true } : {}), ...(s.dynamic ? { dynamic: true } : {}), ...(s.size ? { size: s.size } : {}),
    ...(s.comment ? { comment: s.comment } : {}),
  };
}
