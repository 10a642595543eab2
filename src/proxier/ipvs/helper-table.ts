// The IPVS mode's own nftables table (HelperTable): a full sync rewrites both families' tables in
// one transaction, linear in Services; a partial sync adds and deletes only the elements that the
// changed ServicePorts gained or lost (refcounted across ServicePorts). No sync reads the kernel.
import { ElementBatch } from '../../native/txn/element-batch';
import type { Element } from '../../native/txn/elements';
import { Transaction } from '../../native/txn/transaction';
import type { HelperTable, HelperTableSyncInput } from './helper-table-api';
import { ElementClaims } from './helper-table-claims';
import { contextKey, familyContext, resolveOptions, type FamilyContext, type HelperTableOptions, type ResolvedOptions } from './helper-table-context';
import { servicePortElements, spFamily, type ElementDef } from './helper-table-elements';
import { FIREWALL_SOURCES, FirewallAllow, splitSources } from './helper-table-firewall';
import { HELPER_TABLE, SET, SET_SPECS, type HelperFamily, type SetName } from './helper-table-names';
import { helperChains } from './helper-table-rules';

/** The owner of the table's own elements (the NodePort addresses); no ServicePort key looks like it. */
const NODE_OWNER = '@node';

export interface HelperSyncStats {
  full: boolean;
  /** Operations in the committed transaction (0: nothing to commit). */
  ops: number;
  elementsAdded: number;
  elementsDeleted: number;
}

export class IpvsHelperTable implements HelperTable {
  private readonly opts: ResolvedOptions;
  private claims = new ElementClaims();
  private firewall = new FirewallAllow();
  private ctxKeys: string | null = null;
  private needFull = true;
  /** What the last successful sync did (for tests and logs). */
  lastSync: HelperSyncStats | null = null;

  constructor(options: HelperTableOptions) {
    this.opts = resolveOptions(options);
  }

  async sync(input: HelperTableSyncInput): Promise<void> {
    const ctxs = this.opts.families.map((f) => familyContext(this.opts, f, input.snapshot, input.nodePortIPs));
    const keys = JSON.stringify(ctxs.map(contextKey));
    const full = input.full || this.needFull || keys !== this.ctxKeys;
    try {
      if (full) await this.fullSync(input, ctxs);
      else await this.partialSync(input, ctxs);
      this.ctxKeys = keys;
      this.needFull = false;
    } catch (err) {
      // The kernel kept the table as it was, but whatever made it refuse is best mended whole.
      this.needFull = true;
      throw err;
    }
  }

  private async fullSync(input: HelperTableSyncInput, ctxs: FamilyContext[]): Promise<void> {
    const tx = new Transaction();
    const claims = new ElementClaims();
    const sink = new ElementSink();
    for (const ctx of ctxs) {
      // add, delete, add: the table goes whatever it held (older shapes, foreign changes) and
      // comes back complete, in the same atomic commit.
      tx.addTable(ctx.family, HELPER_TABLE).deleteTable(ctx.family, HELPER_TABLE).addTable(ctx.family, HELPER_TABLE);
      for (const spec of SET_SPECS[ctx.family].values()) tx.addSet(ctx.family, HELPER_TABLE, spec);
      const chains = helperChains(ctx);
      for (const c of chains) tx.addChain(ctx.family, HELPER_TABLE, c.chain);
      for (const c of chains) for (const r of c.rules) tx.addRule(ctx.family, HELPER_TABLE, c.chain.name, r);
      for (const ip of ctx.nodePortIPs) {
        const def: ElementDef = { family: ctx.family, set: SET.nodePortIPs, key: [ip] };
        if (claims.claim(NODE_OWNER, def)) sink.add(def);
      }
    }
    const byFamily = new Map(ctxs.map((c) => [c.family, c]));
    const sources: ElementDef[] = [];
    for (const [key, sp] of input.snapshot.services) {
      const ctx = byFamily.get(spFamily(sp));
      if (!ctx) continue;
      for (const def of servicePortElements(sp, input.snapshot.endpoints.get(key), ctx)) {
        if (!claims.claim(key, def)) continue;
        if (def.set === FIREWALL_SOURCES) sources.push(def); else sink.add(def);
      }
    }
    const firewall = new FirewallAllow();
    const fw = firewall.change(sources, []);
    for (const def of fw.added) sink.add(def);
    const added = sink.writeTo(tx);
    await this.opts.nft.commit(tx);
    fw.apply();
    this.claims = claims;
    this.firewall = firewall;
    this.lastSync = { full: true, ops: tx.opCount, elementsAdded: added, elementsDeleted: 0 };
  }

  private async partialSync(input: HelperTableSyncInput, ctxs: FamilyContext[]): Promise<void> {
    const byFamily = new Map(ctxs.map((c) => [c.family, c]));
    const wanted = new Map<string, ElementDef[]>();
    for (const key of [...input.changed, ...input.removed.keys()]) {
      const sp = input.snapshot.services.get(key);
      const ctx = sp && byFamily.get(spFamily(sp));
      wanted.set(key, sp && ctx ? servicePortElements(sp, input.snapshot.endpoints.get(key), ctx) : []);
    }
    const diff = this.claims.diff(wanted);
    const gained = splitSources(diff.added);
    const lost = splitSources(diff.deleted);
    const fw = this.firewall.change(gained.sources, lost.sources);
    const added = [...gained.kernel, ...fw.added];
    const deleted = [...lost.kernel, ...fw.deleted];
    if (added.length === 0 && deleted.length === 0) {
      diff.apply();
      fw.apply();
      this.lastSync = { full: false, ops: 0, elementsAdded: 0, elementsDeleted: 0 };
      return;
    }
    const tx = new Transaction({ initialBytes: 4096 });
    writeGrouped(tx, deleted, 'delete');
    writeGrouped(tx, added, 'add');
    await this.opts.nft.commit(tx);
    diff.apply();
    fw.apply();
    this.lastSync = { full: false, ops: tx.opCount, elementsAdded: added.length, elementsDeleted: deleted.length };
  }
}

function nativeElement(def: ElementDef): Element {
  return { key: def.key };
}

/** A partial sync's elements: one op per family, set and direction, each set declared once. */
function writeGrouped(tx: Transaction, defs: readonly ElementDef[], op: 'add' | 'delete'): void {
  const groups = new Map<string, { family: HelperFamily; set: SetName; elements: Element[] }>();
  // Only kernel sets reach here: firewall sources were turned into firewall-allow elements.
  for (const d of defs) {
    const id = `${d.family} ${d.set}`;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = { family: d.family, set: d.set as SetName, elements: [] }));
    g.elements.push(nativeElement(d));
  }
  for (const g of groups.values()) {
    tx.declareSet(g.family, HELPER_TABLE, SET_SPECS[g.family].get(g.set)!);
    if (op === 'add') tx.addElements(g.family, HELPER_TABLE, g.set, g.elements);
    else tx.deleteElements(g.family, HELPER_TABLE, g.set, g.elements);
  }
}

/** A full sync's elements: encoded into one batch per set as they are claimed (interval sets are listed). */
class ElementSink {
  private batches = new Map<string, { family: HelperFamily; set: SetName; batch?: ElementBatch; list?: Element[] }>();

  add(def: ElementDef): void {
    const id = `${def.family} ${def.set}`;
    let s = this.batches.get(id);
    if (!s) {
      const set = def.set as SetName;
      const spec = SET_SPECS[def.family].get(set)!;
      s = spec.interval ? { family: def.family, set, list: [] } : { family: def.family, set, batch: new ElementBatch(spec) };
      this.batches.set(id, s);
    }
    if (s.batch) s.batch.add(nativeElement(def)); else s.list!.push(nativeElement(def));
  }

  /** Adds every batch to the transaction; returns the element count. */
  writeTo(tx: Transaction): number {
    let n = 0;
    for (const s of this.batches.values()) {
      if (s.batch) { tx.addElementBatch(s.family, HELPER_TABLE, s.batch); n += s.batch.count; }
      else { tx.addElements(s.family, HELPER_TABLE, s.set, s.list!); n += s.list!.length; }
    }
    return n;
  }
}
