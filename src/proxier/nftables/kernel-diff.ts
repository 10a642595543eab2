// What a sync would change in one family's table, judged from what the kernel holds (Nft.dumpTable
// with elements) against the desired state: the ops, in a TxWriter, for `--dry-run --diff` to print.
// The kernel's objects are judged as start-up adoption judges them (plan-full.ts): a set is kept when
// dumpedSetMatcher accepts it and replaced otherwise, an anonymous set belongs to its rule, a chain
// we do not want goes, a base chain with another hook is re-created. Beyond adoption, which rewrites
// every rule and element anyway, it compares rules and elements. A dump describes a rule only by its
// expression names and jump targets (rule-refs.ts), so a rule that differs in an operand alone (an
// address, a port) is not seen; elements are compared exactly, as the kernel encodes them.
import type { TableDump } from '../../native';
import { decodeValue } from '../../native/txn/element-decode';
import { encodeElements } from '../../native/txn/elements';
import { keyTypesOf, NFT_DATA_VERDICT, SET_F, VERDICT_CODE, type NftType } from '../../native/txn/nft-types';
import { ruleRefs } from '../../native/txn/rule-refs';
import type { ChainDef, ElementDef, NftFamily, SetDef } from './desired';
import type { DesiredTable } from './desired-tables';
import { dumpedSetMatcher } from './plan-full';
import { desiredWriter, winningElements } from './render-script';
import { BASE_OWNER, TxWriter, nativeSetSpec } from './tx-writer';

type DumpedSet = TableDump['sets'][number];
type DumpedChain = TableDump['chains'][number];
type DumpedElement = DumpedSet['elements'][number];

/** `dump`: our table of the family as the kernel holds it, or null when the kernel has none. */
export function planKernelDiff(table: DesiredTable, dump: TableDump | null): TxWriter {
  if (!dump) return desiredWriter(table.base, table.services);
  const sets = judgeSets(table, dump);
  const chains = judgeChains(table, dump, sets.replaced);
  const w = new TxWriter({ small: true });
  const f = table.family;
  w.existingSets(f, sets.declared);
  for (const name of [...chains.rewrite, ...chains.flushGone]) w.flushChain(f, name, BASE_OWNER);
  for (const def of chains.recreate) w.deleteChain(f, def.name, BASE_OWNER);
  const elements = judgeElements(table, sets);
  for (const el of elements.del) w.deleteElements(f, el.set, [el], BASE_OWNER);
  for (const name of [...sets.replaced, ...sets.gone]) w.deleteSet(f, name);
  for (const s of sets.add) w.addSet(f, s);
  for (const def of [...chains.add, ...chains.recreate]) w.addChain(f, def, BASE_OWNER);
  for (const def of chains.fill) w.addRules(f, def, BASE_OWNER);
  for (const name of elements.flush) w.flushSet(f, name);
  for (const el of elements.add) w.addElements(f, el.set, [el], BASE_OWNER);
  for (const name of chains.gone) w.deleteChain(f, name, BASE_OWNER);
  return w;
}

interface SetJudgement {
  /** Sets to add: wanted and absent, or replaced. */
  add: SetDef[];
  /** Held with another type: deleted, then added. */
  replaced: Set<string>;
  /** Held and not wanted. */
  gone: string[];
  /** Held and kept: their elements are compared. */
  kept: Map<string, { want: SetDef; have: DumpedSet }>;
  /** What each set an op names is, for the transaction (a deleted one as the kernel holds it). */
  declared: Map<string, SetDef>;
}

function judgeSets(table: DesiredTable, dump: TableDump): SetJudgement {
  const want = new Map(table.base.sets.map((s) => [s.name, s]));
  // An anonymous set (a rule's `{ ... }`) goes with its rule.
  const have = new Map(dump.sets.filter((s) => (s.flags & SET_F.anonymous) === 0).map((s) => [s.name, s]));
  const j: SetJudgement = { add: [], replaced: new Set(), gone: [], kept: new Map(), declared: new Map() };
  for (const [name, h] of have) {
    const w = want.get(name);
    if (!w) j.gone.push(name);
    else if (!dumpedSetMatcher(h)(w)) j.replaced.add(name);
    else j.kept.set(name, { want: w, have: h });
    j.declared.set(name, w && j.kept.has(name) ? w : heldSetDef(h));
  }
  for (const s of table.base.sets) if (!have.has(s.name) || j.replaced.has(s.name)) j.add.push(s);
  return j;
}

/** A held set as the transaction needs to name it in a delete: a map or a set (its types, where they are ours). */
function heldSetDef(h: DumpedSet): SetDef {
  const key: NftType[] = keyTypesOf(h.keyType) ?? ['integer'];
  if ((h.flags & SET_F.map) === 0) return { name: h.name, key };
  return { name: h.name, key, map: h.dataType === NFT_DATA_VERDICT ? 'verdict' : keyTypesOf(h.dataType) ?? ['integer'] };
}

interface ChainJudgement {
  /** Wanted, absent: added with their rules. */
  add: ChainDef[];
  /** Base chains held with another hook, type or priority: deleted, added again with their rules. */
  recreate: ChainDef[];
  /** Held with other rules (or rules that name a replaced set): flushed, their rules added again. */
  rewrite: string[];
  /** Chains whose rules are added: add, recreate and rewrite, in the desired order. */
  fill: ChainDef[];
  /** Held and not wanted: deleted last. */
  gone: string[];
  /** Of `gone`, those with rules: flushed first, so that their jumps go before the chains they jump to. */
  flushGone: string[];
}

function judgeChains(table: DesiredTable, dump: TableDump, replacedSets: ReadonlySet<string>): ChainJudgement {
  const have = new Map(dump.chains.map((c) => [c.name, c]));
  const heldRules = rulesByChain(dump);
  const j: ChainJudgement = { add: [], recreate: [], rewrite: [], fill: [], gone: [], flushGone: [] };
  const wanted = [...table.base.chains, ...table.services.flatMap((s) => s.chains)];
  for (const def of wanted) {
    const h = have.get(def.name);
    if (!h) j.add.push(def);
    else if (!sameHook(def, h)) j.recreate.push(def);
    else if (!sameRules(def, heldRules.get(def.name) ?? []) || namesAny(def, replacedSets)) j.rewrite.push(def.name);
    else continue;
    j.fill.push(def);
  }
  const names = new Set(wanted.map((c) => c.name));
  for (const name of have.keys()) if (!names.has(name)) j.gone.push(name);
  j.flushGone = j.gone.filter((name) => (heldRules.get(name) ?? []).length > 0);
  return j;
}

function sameHook(def: ChainDef, h: DumpedChain): boolean {
  if (!def.base) return h.hook === undefined;
  return h.hook === def.base.hook && h.type === def.base.type && h.priority === def.base.priority;
}

/** A rule as a dump shows it: its expressions' names, then the chains it jumps or goes to. */
const ruleSignature = (exprs: string, jumps: readonly string[]): string => `${exprs} -> ${jumps.join(',')}`;

/**
 * nft 1.0.6 loads a concatenated-range lookup's `meta l4proto` with a `byteorder` after it (hton of
 * size 2 over 1 byte: a no-op in the kernel; nft 1.1 emits none, nor do we): a firewall-check rule
 * reloaded from a listing by that nft is the same rule. The dump gives names only, so any
 * `byteorder` is passed over; none of our rules has one.
 */
const heldExprs = (exprs: readonly string[]): string => exprs.filter((e) => e !== 'byteorder').join(' ');

function rulesByChain(dump: TableDump): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of dump.rules) {
    let list = out.get(r.chain);
    if (!list) out.set(r.chain, list = []);
    list.push(ruleSignature(heldExprs(r.exprs), r.jumps));
  }
  return out;
}

function sameRules(def: ChainDef, held: readonly string[]): boolean {
  if (def.rules.length !== held.length) return false;
  return def.rules.every((r, i) => {
    const refs = ruleRefs(r.exprs);
    const jumps = (refs.refs ?? []).flatMap((ref) => ('chain' in ref ? [ref.chain] : []));
    return ruleSignature(refs.exprs, jumps) === held[i];
  });
}

const namesAny = (def: ChainDef, sets: ReadonlySet<string>): boolean => def.rules.some((r) => r.setRefs.some((ref) => sets.has(ref.set)));

interface ElementJudgement {
  del: ElementDef[];
  /** Interval sets whose ranges differ: flushed, then every wanted range added. */
  flush: string[];
  add: ElementDef[];
}

function judgeElements(table: DesiredTable, sets: SetJudgement): ElementJudgement {
  const bySet = new Map<string, ElementDef[]>();
  for (const el of winningElements(table.base, table.services)) {
    let list = bySet.get(el.set);
    if (!list) bySet.set(el.set, list = []);
    list.push(el);
  }
  const j: ElementJudgement = { del: [], flush: [], add: [] };
  for (const s of sets.add) j.add.push(...(bySet.get(s.name) ?? []));
  for (const [name, { want, have }] of sets.kept) {
    // The packet path fills the affinity set; a sync never touches its elements.
    if (want.keepElements) continue;
    const els = bySet.get(name) ?? [];
    if (want.interval) diffRanges(want, els, have, j);
    else diffPlain(want, els, have, j);
  }
  return j;
}

const hex = (b: Uint8Array | readonly number[] | undefined): string => (b ? Buffer.from(b as Uint8Array).toString('hex') : '');

/** An element's value as a comparable string: its verdict, or a data map's data bytes. */
function heldValue(e: DumpedElement): string {
  if (e.verdict) return `verdict ${VERDICT_CODE[e.verdict.kind]} ${'chain' in e.verdict ? e.verdict.chain : ''}`;
  return `data ${hex(e.data)}`;
}

function diffPlain(want: SetDef, els: readonly ElementDef[], have: DumpedSet, j: ElementJudgement): void {
  const spec = nativeSetSpec(want);
  const held = new Map(have.elements.map((e) => [hex(e.key), e]));
  const wanted = new Set<string>();
  for (const el of els) {
    const [enc] = encodeElements(spec, [el], `${want.name} element`, { firstAdd: false, add: true });
    const key = hex(enc.key);
    wanted.add(key);
    const value = enc.verdict ? `verdict ${enc.verdict.code} ${enc.verdict.chain}` : `data ${hex(enc.data)}`;
    const h = held.get(key);
    if (h && heldValue(h) === value) continue;
    if (h) j.del.push(heldElement(want, h));
    j.add.push(el);
  }
  for (const [key, h] of held) if (!wanted.has(key)) j.del.push(heldElement(want, h));
}

/** A held element as a delete names it: its key, and a verdict map's verdict. */
function heldElement(want: SetDef, h: DumpedElement): ElementDef {
  const el: ElementDef = { set: want.name, key: decodeValue(want.key, h.key) };
  if (h.verdict) el.verdict = h.verdict;
  return el;
}

/** A single-field interval set holds start and end elements: compared as a whole, rewritten as a whole. */
function diffRanges(want: SetDef, els: readonly ElementDef[], have: DumpedSet, j: ElementJudgement): void {
  const encoded = els.length === 0 ? [] : encodeElements(nativeSetSpec(want), els.map(({ key }) => ({ key })), `${want.name} elements`, { firstAdd: true, add: true });
  const wanted = encoded.map((e) => `${hex(e.key)}/${hex(e.keyEnd)}/${e.flags}`).sort();
  const held = have.elements.map((e) => `${hex(e.key)}/${hex(e.keyEnd)}/${e.flags}`).sort();
  if (wanted.length === held.length && wanted.every((x, i) => x === held[i])) return;
  j.flush.push(want.name);
  j.add.push(...els);
}
