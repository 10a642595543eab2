// A batch of nftables operations, validated as it is built and written straight into the wire
// buffer (docs/wire-format.md). It remembers enough per op to describe it (errors) and to render
// the whole batch as an `nft -f` script.
import { ByteWriter } from '../wire/byte-writer';
import { batchRecord, checkBatchFits, ElementBatch } from './element-batch';
import { Element, encodeElements, writePlainElements } from './elements';
import { checkName, checkSetName } from './names';
import { describeOp, scriptLines } from './nft-script';
import { ChainSpec, Op } from './ops';
import { Family, FAMILY_CODE, HOOK_CODE } from './nft-types';
import { Expr } from './expressions';
import { natForMapData, Rule, SetRef } from './rule-builder';
import { ruleRefs } from './rule-refs';
import { beginOp, endOp, HEADER_LEN, OP_F_CREATE, OPCODE, writeElement, writeExpr, writeHeader } from './serialize';
import { checkScriptable, checkSetSpec, checkSetSpecOnce, mapData, setAttrs, SetSpec } from './set-spec';
import { setUserdata } from './set-userdata';

interface KnownSet { spec: SetSpec; id: number; createdHere: boolean; filled: boolean }

const CHAIN_TYPES: ReadonlySet<string> = new Set(['filter', 'nat', 'route']);
const POLICY_CODE = { accept: 1, drop: 2 } as const;
const MAX_RULE_EXPRS = 0xffff;
const MAX_DESCRIBED_ELEMENTS = 3;
const NO_BYTES: readonly number[] = [];

export type { ChainSpec };

function checkFamily(family: unknown): Family {
  if (family !== 'ip' && family !== 'ip6' && family !== 'inet') {
    throw new TypeError(`family: expected 'ip', 'ip6' or 'inet', got '${String(family)}'`);
  }
  return family;
}

function checkChainSpec(chain: unknown): ChainSpec {
  if (typeof chain !== 'object' || chain === null) throw new TypeError('chain: expected a ChainSpec object');
  const c = chain as ChainSpec;
  checkName(c.name, 'chain.name');
  if (c.base === undefined) return c;
  const b = c.base;
  if (typeof b !== 'object' || b === null) throw new TypeError('chain.base: expected an object');
  if (!CHAIN_TYPES.has(b.type)) throw new TypeError(`chain.base.type: '${String(b.type)}' is not filter, nat or route`);
  if (!Object.prototype.hasOwnProperty.call(HOOK_CODE, b.hook)) throw new TypeError(`chain.base.hook: '${String(b.hook)}' is not a hook`);
  if (!Number.isInteger(b.priority) || b.priority < -0x80000000 || b.priority > 0x7fffffff) {
    throw new RangeError(`chain.base.priority: ${String(b.priority)} is not a 32-bit integer`);
  }
  if (b.policy !== undefined && b.policy !== 'accept' && b.policy !== 'drop') {
    throw new TypeError(`chain.base.policy: '${String(b.policy)}' is not accept or drop`);
  }
  if (b.type === 'nat' && b.hook === 'forward') throw new RangeError('chain.base.hook: nat chains cannot hook forward');
  if (b.type === 'route' && b.hook !== 'output') throw new RangeError('chain.base.hook: route chains hook output only');
  return c;
}

export class Transaction {
  private readonly w: ByteWriter;
  private readonly ops: Op[] = [];
  private readonly sets = new Map<string, KnownSet>();
  private nextSetId = 1;

  /** `initialBytes`: the buffer's first size (64 KiB by default; a few ops need less); it doubles as needed. */
  constructor(opts?: { initialBytes?: number }) {
    const n = opts?.initialBytes;
    if (n !== undefined && (!Number.isSafeInteger(n) || n < 64 || n > 2 ** 30)) {
      throw new RangeError(`initialBytes: ${String(n)} is not a byte count in 64..${2 ** 30}`);
    }
    this.w = new ByteWriter(n);
    writeHeader(this.w, 0);
  }

  get opCount(): number {
    return this.ops.length;
  }

  /** serialize().length, without making the buffer view. */
  get byteLength(): number { return this.w.length; }

  private static setKey(family: Family, table: string, set: string): string {
    return `${family}\0${table}\0${set}`;
  }

  private setIdOf(family: Family, table: string): (set: string) => number {
    return (set) => {
      const s = this.sets.get(Transaction.setKey(family, table, set));
      return s && s.createdHere ? s.id : 0;
    };
  }

  /** Runs `write` for a new op; if validation inside throws, the buffer is rolled back. */
  private record(op: Op, write: () => void): this {
    const start = this.w.length;
    try {
      write();
    } catch (e) {
      this.w.truncate(start);
      throw e;
    }
    this.ops.push(op);
    return this;
  }

  private begin(opcode: number, family: Family, table: string, create?: boolean): number {
    return beginOp(this.w, opcode, create ? OP_F_CREATE : 0, FAMILY_CODE[family], table);
  }

  private simple(op: 'deleteTable' | 'flushTable', opcode: number, family: Family, table: string): this {
    checkFamily(family);
    checkName(table, 'table');
    return this.record({ op, family, table }, () => endOp(this.w, this.begin(opcode, family, table)));
  }

  addTable(family: Family, table: string, opts?: { create?: boolean }): this {
    checkFamily(family);
    checkName(table, 'table');
    const create = !!opts?.create;
    return this.record({ op: 'addTable', family, table, create }, () => {
      const at = this.begin(OPCODE.addTable, family, table, create);
      this.w.u32(0);
      endOp(this.w, at);
    });
  }

  deleteTable(family: Family, table: string): this {
    this.simple('deleteTable', OPCODE.delTable, family, table);
    for (const k of [...this.sets.keys()]) if (k.startsWith(`${family}\0${table}\0`)) this.sets.delete(k);
    return this;
  }

  flushTable(family: Family, table: string): this {
    return this.simple('flushTable', OPCODE.flushTable, family, table);
  }

  addChain(family: Family, table: string, chain: ChainSpec, opts?: { create?: boolean }): this {
    checkFamily(family);
    checkName(table, 'table');
    checkChainSpec(chain);
    const create = !!opts?.create;
    return this.record({ op: 'addChain', family, table, chain, create }, () => {
      const at = this.begin(OPCODE.addChain, family, table, create);
      this.w.str(chain.name);
      const b = chain.base;
      this.w.u8(b ? 1 : 0);
      if (b) {
        this.w.u32(HOOK_CODE[b.hook]);
        this.w.i32(b.priority);
        this.w.str(b.type);
        this.w.u8(b.policy ? POLICY_CODE[b.policy] : 0);
      }
      endOp(this.w, at);
    });
  }

  private chainOp(op: 'flushChain' | 'deleteChain', opcode: number, family: Family, table: string, chain: string): this {
    checkFamily(family);
    checkName(table, 'table');
    checkName(chain, 'chain');
    return this.record({ op, family, table, chain }, () => {
      const at = this.begin(opcode, family, table);
      this.w.str(chain);
      endOp(this.w, at);
    });
  }

  flushChain(family: Family, table: string, chain: string): this {
    return this.chainOp('flushChain', OPCODE.flushChain, family, table, chain);
  }

  deleteChain(family: Family, table: string, chain: string): this {
    return this.chainOp('deleteChain', OPCODE.delChain, family, table, chain);
  }

  addRule(family: Family, table: string, chain: string, rule: Rule): this {
    checkFamily(family);
    checkName(table, 'table');
    checkName(chain, 'chain');
    if (!(rule instanceof Rule)) throw new TypeError('rule: expected a Rule from rule(...).build()');
    if (rule.family !== family) throw new RangeError(`rule: built for family ${rule.family}, added to a ${family} table`);
    if (rule.exprs.length > MAX_RULE_EXPRS) throw new RangeError(`rule: more than ${MAX_RULE_EXPRS} expressions`);
    for (const ref of rule.setRefs) this.checkSetRef(family, table, ref);
    return this.record({ op: 'addRule', family, table, chain, text: rule.text, refs: ruleRefs(rule.exprs) }, () => {
      const at = this.begin(OPCODE.addRule, family, table);
      this.w.str(chain);
      this.w.blob(rule.userdata ?? NO_BYTES);
      this.w.u16(rule.exprs.length);
      const ids = this.setIdOf(family, table);
      for (const e of rule.exprs) writeExpr(this.w, e.type === 'nat' && e.map !== undefined ? this.natForMap(family, table, e) : e, ids);
      endOp(this.w, at);
    });
  }

  /** Deletes one rule by the handle the kernel gave it (see Nft.dumpTable). */
  deleteRule(family: Family, table: string, chain: string, handle: number): this {
    checkFamily(family);
    checkName(table, 'table');
    checkName(chain, 'chain');
    if (!Number.isSafeInteger(handle) || handle < 1) throw new RangeError(`handle: ${String(handle)} is not a rule handle`);
    return this.record({ op: 'deleteRule', family, table, chain, handle }, () => {
      const at = this.begin(OPCODE.delRule, family, table);
      this.w.str(chain);
      this.w.u64(handle);
      endOp(this.w, at);
    });
  }

  /** A dnatMap's nat expression as the map's data needs it (the builder cannot know the map). */
  private natForMap(family: Family, table: string, e: Extract<Expr, { type: 'nat' }>): Expr {
    const spec = this.sets.get(Transaction.setKey(family, table, e.map!))?.spec;
    const data = spec && mapData(spec);
    // Only reachable with a Rule whose set references were dropped (checkSetRef covers the rest).
    if (!data) throw new RangeError(`rule: dnat to '${e.map}', which is not a known data map in ${family} ${table}`);
    return natForMapData(e, data);
  }

  private checkSetRef(family: Family, table: string, ref: SetRef): void {
    const known = this.sets.get(Transaction.setKey(family, table, ref.set));
    if (!known) {
      throw new RangeError(`${ref.arg}: unknown set '${ref.set}' in ${family} ${table}; add it with addSet() or declareSet() first`);
    }
    const s = known.spec;
    if (s.key.join(' . ') !== ref.key.join(' . ')) {
      throw new RangeError(`${ref.arg}: '${ref.set}' has key ${s.key.join(' . ')}, the rule gives ${ref.key.join(' . ')}`);
    }
    if (ref.use === 'vmap' && s.map !== 'verdict') throw new RangeError(`${ref.arg}: '${ref.set}' is not a verdict map`);
    if (ref.use === 'dnatMap') return Transaction.checkNatMap(ref, s);
    if (ref.use === 'dynset' && !s.dynamic) throw new RangeError(`${ref.arg}: '${ref.set}' is not dynamic; updating it from a rule needs dynamic: true`);
    if (ref.use === 'dynset' && ref.data) return Transaction.checkDynsetData(ref, s);
    if (ref.use !== 'vmap' && s.map) throw new RangeError(`${ref.arg}: '${ref.set}' is a map; use ${s.map === 'verdict' ? 'vmap()' : 'dnatMap()'}`);
  }

  /** A dynset that writes a value needs a data map of the value's types. */
  private static checkDynsetData(ref: SetRef, s: SetSpec): void {
    const data = mapData(s);
    if (!data) throw new RangeError(`${ref.arg}: '${ref.set}' is not a data map; a value needs one`);
    if (data.join(' . ') !== ref.data!.join(' . ')) {
      throw new RangeError(`${ref.arg}: '${ref.set}' maps to ${data.join(' . ')}, the rule writes ${ref.data!.join(' . ')}`);
    }
  }

  /** dnat takes an address, or an address and a port, of the rule's IP version. */
  private static checkNatMap(ref: SetRef, s: SetSpec): void {
    const data = mapData(s);
    if (!data) throw new RangeError(`${ref.arg}: '${ref.set}' is not a data map`);
    if (data[0] !== ref.natAddr || data.length > 2 || (data.length === 2 && data[1] !== 'inet_service')) {
      throw new RangeError(`${ref.arg}: '${ref.set}' maps to ${data.join(' . ')}; this dnat needs ${ref.natAddr} or ${ref.natAddr} . inet_service`);
    }
  }

  addSet(family: Family, table: string, set: SetSpec, opts?: { create?: boolean }): this {
    checkFamily(family);
    checkName(table, 'table');
    checkSetSpec(set);
    checkScriptable(set, 'set');
    checkSetName(set.name, 'set.name');
    const create = !!opts?.create;
    const id = this.nextSetId;
    const a = setAttrs(set);
    const userdata = setUserdata(set);
    this.record({ op: 'addSet', family, table, set, create }, () => {
      const at = this.begin(OPCODE.addSet, family, table, create);
      this.w.str(set.name);
      this.w.u32(id);
      this.w.u32(a.flags);
      this.w.u32(a.keyType);
      this.w.u32(a.keyLen);
      this.w.u32(a.dataType);
      this.w.u32(a.dataLen);
      this.w.u64(a.timeoutMs);
      this.w.u32(0);
      this.w.u8(a.concatFieldLens.length);
      for (const l of a.concatFieldLens) this.w.u8(l);
      this.w.u32(a.size);
      this.w.blob(userdata);
      endOp(this.w, at);
    });
    this.nextSetId++;
    this.sets.set(Transaction.setKey(family, table, set.name), { spec: set, id, createdHere: true, filled: false });
    return this;
  }

  /**
   * Tells the transaction about a set that already exists in the kernel, so rules and elements can
   * refer to it (element encoding needs its key types). Emits no operation.
   */
  declareSet(family: Family, table: string, set: SetSpec): this {
    checkFamily(family);
    checkName(table, 'table');
    checkSetSpecOnce(set);
    this.sets.set(Transaction.setKey(family, table, set.name), { spec: set, id: 0, createdHere: false, filled: true });
    return this;
  }

  private setOp(op: 'flushSet' | 'deleteSet', opcode: number, family: Family, table: string, set: string): this {
    checkFamily(family);
    checkName(table, 'table');
    checkName(set, 'set');
    const known = this.sets.get(Transaction.setKey(family, table, set));
    return this.record({ op, family, table, set, isMap: !!known?.spec.map }, () => {
      const at = this.begin(opcode, family, table);
      this.w.str(set);
      endOp(this.w, at);
    });
  }

  flushSet(family: Family, table: string, set: string): this {
    return this.setOp('flushSet', OPCODE.flushSet, family, table, set);
  }

  deleteSet(family: Family, table: string, set: string): this {
    this.setOp('deleteSet', OPCODE.delSet, family, table, set);
    this.sets.delete(Transaction.setKey(family, table, set));
    return this;
  }

  private elementsOp(op: 'addElements' | 'deleteElements', family: Family, table: string, set: string, elements: Element[]): this {
    checkFamily(family);
    checkName(table, 'table');
    checkName(set, 'set');
    const known = this.sets.get(Transaction.setKey(family, table, set));
    if (!known) throw new RangeError(`set: unknown set '${set}' in ${family} ${table}; add it with addSet() or declareSet() first`);
    if (!Array.isArray(elements)) throw new TypeError('elements: expected an array of elements');
    if (elements.length === 0) return this;
    const add = op === 'addElements';
    const spec = known.spec;
    const firstAdd = add && !known.filled;
    this.record({ op, family, table, set: spec, elements, firstAdd }, () => {
      const at = this.begin(add ? OPCODE.addElems : OPCODE.delElems, family, table);
      this.w.str(set);
      this.w.u32(known.createdHere ? known.id : 0);
      if (spec.interval) {
        const encoded = encodeElements(spec, elements, 'elements', { firstAdd, add });
        this.w.u32(encoded.length);
        for (const el of encoded) writeElement(this.w, el);
      } else {
        this.w.u32(elements.length);
        writePlainElements(this.w, spec, elements, 'elements', add);
      }
      endOp(this.w, at);
    });
    if (add) known.filled = true;
    return this;
  }

  addElements(family: Family, table: string, set: string, elements: Element[]): this {
    return this.elementsOp('addElements', family, table, set, elements);
  }

  deleteElements(family: Family, table: string, set: string, elements: Element[]): this {
    return this.elementsOp('deleteElements', family, table, set, elements);
  }

  /**
   * Adds an ElementBatch's elements (already encoded) as one op. Its record keeps no element
   * objects: describe(), toNftScript() and the fake kernel decode them from the buffer.
   */
  addElementBatch(family: Family, table: string, batch: ElementBatch): this {
    checkFamily(family);
    checkName(table, 'table');
    const known = this.sets.get(Transaction.setKey(family, table, (batch as ElementBatch)?.spec?.name));
    checkBatchFits(batch, known?.spec, `${family} ${table}`);
    if (batch.count === 0 || !known) return this;
    const { w } = this;
    const at = { start: 0 };
    this.record(batchRecord({ family, table, set: known.spec, firstAdd: !known.filled }, w, at, batch.count), () => {
      const op = this.begin(OPCODE.addElems, family, table);
      w.str(known.spec.name);
      w.u32(known.createdHere ? known.id : 0);
      w.u32(batch.count);
      at.start = w.length;
      for (const chunk of batch.bytes()) w.bytes(chunk);
      endOp(w, op);
    });
    known.filled = true;
    return this;
  }

  /** Makes room for `bytes` more of ops at once (e.g. before adding large batches): the buffer then grows once, not by doubling. */
  reserve(bytes: number): this {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`bytes: ${String(bytes)} is not a byte count`);
    this.w.reserve(bytes);
    return this;
  }

  /** @internal The op records in order: FakeNft applies them the way the kernel applies the buffer. */
  opRecords(): readonly Op[] {
    return this.ops;
  }

  /** The wire buffer. A view into the transaction's storage: use it before adding more ops. */
  serialize(): Buffer {
    const buf = this.w.view();
    buf.writeUInt32LE(this.ops.length, HEADER_LEN - 4);
    return buf;
  }

  /** One op as nft would phrase it, e.g. "add rule ip kube-proxy services: ip daddr 10.0.0.1 ...". */
  describe(opIndex: number): string {
    if (!Number.isInteger(opIndex) || opIndex < 0 || opIndex >= this.ops.length) {
      throw new RangeError(`opIndex: ${String(opIndex)} is outside 0..${this.ops.length - 1}`);
    }
    return describeOp(this.ops[opIndex], MAX_DESCRIBED_ELEMENTS);
  }

  /** The same transaction as `nft -f` input. */
  toNftScript(): string {
    const lines: string[] = [];
    for (const op of this.ops) lines.push(...scriptLines(op));
    return lines.join('\n') + '\n';
  }
}
