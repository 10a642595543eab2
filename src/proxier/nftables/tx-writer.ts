// Writes desired objects into a native Transaction on our table and remembers, for every op,
// which ServicePort it belongs to: when the kernel refuses an op (NetlinkError.opIndex) the sync
// knows whom to leave out on the retry.
import type { Element, ElementBatch, SetSpec } from '../../native';
import { Transaction } from '../../native/transaction';
import type { ChainDef, ElementDef, NftFamily, SetDef } from './desired';
import { TABLE } from './names';

/** Owner of ops that belong to no ServicePort (table, base chains, shared sets). */
export const BASE_OWNER = '';
/** Owner of a batched op that carries several ServicePorts' elements. */
export const MIXED_OWNER = '*';

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
  readonly tx = new Transaction();
  readonly owners: string[] = [];
  /** Chains this transaction adds, per family: they may exist if the commit's outcome is unclear. */
  readonly addedChains: { family: NftFamily; name: string }[] = [];

  /** Whether each op adds (a ServicePort's new objects) or removes (what the mirror says exists). */
  readonly adds: boolean[] = [];

  /** Records the owner of the ops written since the last call. */
  private recordOwner(owner: string, adds = true): void {
    while (this.owners.length < this.tx.opCount) { this.owners.push(owner); this.adds.push(adds); }
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
    owned(owner, () => { for (const r of chain.rules) this.tx.addRule(family, TABLE, chain.name, r); });
    this.recordOwner(owner);
  }

  addSet(family: NftFamily, set: SetDef): void { this.tx.addSet(family, TABLE, nativeSetSpec(set)); this.recordOwner(BASE_OWNER); }
  declareSet(family: NftFamily, set: SetDef): void { this.tx.declareSet(family, TABLE, nativeSetSpec(set)); }
  flushSet(family: NftFamily, name: string): void { this.tx.flushSet(family, TABLE, name); this.recordOwner(BASE_OWNER); }
  deleteSet(family: NftFamily, name: string): void { this.tx.deleteSet(family, TABLE, name); this.recordOwner(BASE_OWNER); }

  /** Elements of one set (all of `els` must name `set`). */
  addElements(family: NftFamily, set: string, els: Omit<ElementDef, 'set'>[], owner: string): void {
    owned(owner, () => this.tx.addElements(family, TABLE, set, els.map(nativeElement)));
    this.recordOwner(owner);
  }
  /** Elements already encoded (a full sync's), one op. */
  addElementBatch(family: NftFamily, batch: ElementBatch, owner: string): void {
    owned(owner, () => this.tx.addElementBatch(family, TABLE, batch));
    this.recordOwner(owner);
  }
  deleteElements(family: NftFamily, set: string, els: Omit<ElementDef, 'set'>[], owner: string): void {
    this.tx.deleteElements(family, TABLE, set, els.map(nativeElement));
    this.recordOwner(owner, false);
  }
}

function nativeElement(e: Omit<ElementDef, 'set'>): Element {
  return e.verdict ? { key: e.key, verdict: e.verdict } : e.data ? { key: e.key, data: e.data } : { key: e.key };
}

/** The set as the native builder takes it: without what only the sync reads (keepElements). */
export function nativeSetSpec(s: SetDef): SetSpec {
  return {
    name: s.name, key: s.key, ...(s.map ? { map: s.map } : {}), ...(s.typeof ? { typeof: s.typeof } : {}), ...(s.interval ? { interval: true } : {}),
    ...(s.timeout ? { timeout: true } : {}), ...(s.dynamic ? { dynamic: true } : {}), ...(s.size ? { size: s.size } : {}),
    ...(s.comment ? { comment: s.comment } : {}),
  };
}
