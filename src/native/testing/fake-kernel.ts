// FakeKernel: the nftables of one network namespace, in memory. It applies a Transaction's op
// records with the kernel's rules (docs/fake-kernel.md): every op of a batch is tried, as the
// kernel tries every message, and any refusal leaves the committed state untouched. Handles to it
// (FakeNft, like Nft.open() in a namespace) commit, dump and list; several may share one kernel.
import { addElements, deleteElements, elementFor } from './fake-elements';
import { FakeNft } from './fake-nft';
import * as objects from './fake-objects';
import { rulesetScript } from './fake-script';
import { Draft, FakeChain, FakeElement, FakeTable, Refusal, refuse, ENOENT, tableKey } from './fake-state';
import type { DumpedElement, TableDump } from '../nft/nft';
import type { ChainRule } from '../nft/lookups';
import type { Rule } from '../txn/rule';
import type { Family } from '../txn/nft-types';
import type { Op } from '../txn/ops';

/** One refused op, as the addon reports it (docs/wire-format.md, "Result"). */
export interface OpError { errno: number; opIndex: number; extack?: string }

type Apply = (d: Draft, op: never) => void;
const APPLY: Record<Op['op'], Apply> = {
  addTable: objects.addTable, deleteTable: objects.deleteTable, flushTable: objects.flushTable,
  addChain: objects.addChain, flushChain: objects.flushChain, deleteChain: objects.deleteChain,
  addRule: objects.addRule, deleteRule: objects.deleteRule,
  addSet: objects.addSet, flushSet: objects.flushSet, deleteSet: objects.deleteSet,
  addElements, deleteElements,
};

function dumpedElement(e: FakeElement): DumpedElement {
  const out: DumpedElement = { key: Buffer.from(e.key), flags: e.flags };
  if (e.keyEnd) out.keyEnd = Buffer.from(e.keyEnd);
  if (e.verdict) out.verdict = { ...e.verdict };
  if (e.data) out.data = Buffer.from(e.data);
  return out;
}

function dumpedRules(c: FakeChain): TableDump['rules'] {
  return c.rules.map((r) => ({
    chain: c.name, handle: r.handle, exprs: r.exprs === '' ? [] : r.exprs.split(' '),
    jumps: (r.refs ?? []).flatMap((ref) => ('chain' in ref ? [ref.chain] : [])),
  }));
}

function dumpTable(t: FakeTable, withElements: boolean): TableDump {
  const chains = [...t.chains.values()];
  return {
    chains: chains.map((c) => (c.base
      ? { name: c.name, handle: c.handle, hook: c.base.hook, priority: c.base.priority, type: c.base.type, policy: c.base.policy }
      : { name: c.name, handle: c.handle })),
    rules: chains.flatMap(dumpedRules),
    sets: [...t.sets.values()].map((s) => ({
      name: s.name, flags: s.attrs.flags, keyType: s.attrs.keyType, keyLen: s.attrs.keyLen,
      dataType: s.attrs.dataType, dataLen: s.attrs.dataLen,
      ...(s.attrs.concatFieldLens.length > 0 ? { concat: [...s.attrs.concatFieldLens] } : {}),
      elements: withElements ? [...s.elements.values()].map(dumpedElement) : [],
    })),
  };
}

export class FakeKernel {
  private committed: ReadonlyMap<string, FakeTable> = new Map();
  private gen = 1;
  private nextPortId = 0x7f00_0001;

  /** A new handle, as Nft.open() opens a new socket in the namespace. */
  open(): FakeNft {
    return new FakeNft(this, this.nextPortId++);
  }

  /**
   * @internal Applies a batch: every op is tried (a refused one changes nothing) and the refusals
   * are returned; the batch is committed only if there are none. `fault` refuses one op as given
   * (opIndex -1: the whole batch, before any op is looked at).
   */
  apply(ops: readonly Op[], fault?: OpError): OpError[] {
    if (fault && fault.opIndex < 0) return [fault];
    const d = new Draft(this.committed);
    const errors: OpError[] = [];
    ops.forEach((op, opIndex) => {
      if (fault?.opIndex === opIndex) { errors.push(fault); return; }
      try {
        (APPLY[op.op] as (d: Draft, op: Op) => void)(d, op);
      } catch (e) {
        if (!(e instanceof Refusal)) throw e;
        errors.push({ errno: e.errno, opIndex, extack: e.message });
      }
    });
    if (errors.length === 0 && d.changed) {
      this.committed = d.finish();
      this.gen++;
    }
    return errors;
  }

  /** Every committed batch that changed something adds one, as with the kernel's generation id. */
  generation(): number {
    return this.gen;
  }

  listTables(): { family: Family; name: string }[] {
    return [...this.committed.values()].map((t) => ({ family: t.family, name: t.name }));
  }

  /** The table as Nft.dumpTable returns it; refused with ENOENT when it does not exist. */
  dumpTable(family: Family, name: string, withElements = true): TableDump {
    const t = this.committed.get(tableKey(family, name)) ?? refuse(ENOENT, `table ${family} ${name} does not exist`);
    return dumpTable(t, withElements);
  }

  /**
   * The elements of set `set` with these keys (encoded: Nft.getElements' checks are the caller's),
   * as the kernel answers GETSETELEM key by key: ENOENT naming the set when it or the table does
   * not exist, then per key the element or none.
   */
  getElements(family: Family, table: string, set: string, keys: readonly Uint8Array[]): { found: boolean; element?: DumpedElement }[] {
    const s = this.committedTable(family, table).sets.get(set) ?? refuse(ENOENT, `set '${set}' in table ${table} does not exist`);
    return keys.map((key) => {
      const e = elementFor(s, key);
      return e ? { found: true, element: dumpedElement(e) } : { found: false };
    });
  }

  /**
   * One chain's rules, as Nft.dumpChain gives them: ENOENT naming the chain when it does not exist;
   * with `expected`, rule i matches when it was added from a rule of the same nft text as expected[i]
   * (the builder writes the text from the same expressions the kernel gets).
   */
  dumpChain(family: Family, table: string, chain: string, expected?: readonly Rule[]): ChainRule[] {
    const c = this.committedTable(family, table).chains.get(chain) ?? refuse(ENOENT, `chain '${chain}' in table ${table} does not exist`);
    return dumpedRules(c).map((r, i) => {
      const out: ChainRule = { handle: r.handle, exprs: r.exprs, jumps: r.jumps };
      if (expected && i < expected.length) out.matches = c.rules[i].text === expected[i].text;
      return out;
    });
  }

  private committedTable(family: Family, name: string): FakeTable {
    return this.committed.get(tableKey(family, name)) ?? refuse(ENOENT, `table ${family} ${name} does not exist`);
  }

  /**
   * The ruleset as nft script text, one object per line and sorted (tables, chains, sets by name,
   * elements by key), so that two rulesets with the same content print the same. Rules keep their
   * order and the text the builder gave them. `family`/`table` narrow it.
   */
  listRuleset(filter: { family?: Family; table?: string } = {}): string {
    const tables = [...this.committed.values()].filter((t) => (filter.family === undefined || t.family === filter.family)
      && (filter.table === undefined || t.name === filter.table));
    return rulesetScript(tables);
  }
}
