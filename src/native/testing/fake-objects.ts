// Tables, chains, rules and sets in the fake kernel: each op as nf_tables applies it, with the
// errno the kernel answers when it refuses (the cases docs/fake-kernel.md lists, each checked
// against a real kernel by test/native/fake-vs-kernel.test.ts).
import {
  Draft, EBUSY, EEXIST, EINVAL, ENOENT, EOPNOTSUPP, FakeChain, FakeTable, kernelSetAttrs, refuse, tableKey,
} from './fake-state';
import type { Op } from '../txn/ops';
import { NFT_DATA_VERDICT, SET_F } from '../txn/nft-types';
import type { RuleRef } from '../txn/rule-refs';
import type { SetAttrs } from '../txn/set-spec';

type OpOf<K extends Op['op']> = Op & { op: K };

export function addTable(d: Draft, op: OpOf<'addTable'>): void {
  const key = tableKey(op.family, op.table);
  if (d.tables.has(key)) {
    if (op.create) refuse(EEXIST, `table ${key} exists`);
    return;
  }
  d.tables.set(key, d.adopt({ family: op.family, name: op.table, chains: new Map(), sets: new Map(), nextHandle: 1 }));
}

/** Deleting a table takes everything in it: rules, sets and chains refer only within it. */
export function deleteTable(d: Draft, op: OpOf<'deleteTable'>): void {
  d.table(op.family, op.table);
  d.tables.delete(tableKey(op.family, op.table));
  d.touch();
}

/** Every rule of every chain goes; chains, sets and elements stay. */
export function flushTable(d: Draft, op: OpOf<'flushTable'>): void {
  const t = d.table(op.family, op.table);
  for (const c of [...t.chains.values()]) if (c.rules.length > 0) d.writableChain(t, c.name).rules = [];
}

export function addChain(d: Draft, op: OpOf<'addChain'>): void {
  const t = d.table(op.family, op.table);
  const want = op.chain.base;
  const have = t.chains.get(op.chain.name);
  if (!have) {
    const w = d.writableTable(t);
    const base = want && { type: want.type, hook: want.hook, priority: want.priority, policy: want.policy ?? 'accept' };
    w.chains.set(op.chain.name, d.adopt({ name: op.chain.name, handle: w.nextHandle++, ...(base ? { base } : {}), rules: [] }));
    return;
  }
  if (want?.policy && !have.base) refuse(EOPNOTSUPP, `chain '${have.name}' is not a base chain: it has no policy`);
  if (op.create) refuse(EEXIST, `chain '${have.name}' exists`);
  d.touch(); // the kernel queues an update even when nothing changes
  if (!want) return;
  if (!have.base || have.base.type !== want.type) refuse(EEXIST, `chain '${have.name}' exists as another kind of chain`);
  if (have.base.hook !== want.hook || have.base.priority !== want.priority) {
    refuse(EOPNOTSUPP, `base chain '${have.name}' cannot change its hook or priority`);
  }
  if (want.policy) d.writableChain(t, have.name).base!.policy = want.policy;
}

export function flushChain(d: Draft, op: OpOf<'flushChain'>): void {
  const t = d.table(op.family, op.table);
  if (d.chain(t, op.chain).rules.length > 0) d.writableChain(t, op.chain).rules = [];
}

const jumpsTo = (refs: readonly RuleRef[], chain: string) => refs.some((r) => 'chain' in r && r.chain === chain);
const binds = (refs: readonly RuleRef[], set: string) => refs.some((r) => 'set' in r && r.set === set);
const isVerdictMap = (a: SetAttrs) => (a.flags & SET_F.map) !== 0 && a.dataType === NFT_DATA_VERDICT;

/** Rules (its own included) and verdict-map elements that jump or go to the chain. */
function chainInUse(t: FakeTable, name: string): boolean {
  for (const c of t.chains.values()) if (c.rules.some((r) => jumpsTo(r.refs, name))) return true;
  for (const s of t.sets.values()) {
    if (!isVerdictMap(s.attrs)) continue;
    for (const e of s.elements.values()) {
      if (e.verdict && (e.verdict.kind === 'jump' || e.verdict.kind === 'goto') && e.verdict.chain === name) return true;
    }
  }
  return false;
}

/** A chain goes with its own rules; one something else jumps to cannot. */
export function deleteChain(d: Draft, op: OpOf<'deleteChain'>): void {
  const t = d.table(op.family, op.table);
  d.chain(t, op.chain);
  if (chainInUse(t, op.chain)) refuse(EBUSY, `chain '${op.chain}' is in use (a rule or a map element jumps to it)`);
  d.writableTable(t).chains.delete(op.chain);
}

/** A jump or goto target: a chain of the table that no hook calls. */
export function checkJumpTarget(t: FakeTable, name: string): void {
  const c = t.chains.get(name) ?? refuse(ENOENT, `chain '${name}' (a jump target) does not exist in ${t.family} ${t.name}`);
  if (c.base) refuse(EOPNOTSUPP, `chain '${name}' is a base chain: it cannot be a jump target`);
}

function checkSetUse(t: FakeTable, ref: Extract<RuleRef, { set: string }>): void {
  const s = t.sets.get(ref.set) ?? refuse(ENOENT, `set '${ref.set}' does not exist in ${t.family} ${t.name}`);
  const verdictMap = isVerdictMap(s.attrs);
  const dataMap = (s.attrs.flags & SET_F.map) !== 0 && !verdictMap;
  if (ref.use === 'vmap' && !verdictMap) refuse(EINVAL, `set '${ref.set}' is not a verdict map`);
  if (ref.use === 'map' && !dataMap) refuse(EINVAL, `set '${ref.set}' is not a data map`);
  if (ref.use === 'dynset' && !(s.attrs.flags & SET_F.eval)) refuse(EOPNOTSUPP, `set '${ref.set}' is not dynamic`);
}

export function addRule(d: Draft, op: OpOf<'addRule'>): void {
  const t = d.table(op.family, op.table);
  d.chain(t, op.chain);
  const refs = op.refs.refs ?? [];
  for (const r of refs) {
    if ('chain' in r) checkJumpTarget(t, r.chain);
    else checkSetUse(t, r);
  }
  const w = d.writableTable(t);
  const handle = w.nextHandle++;
  d.writableChain(w, op.chain).rules.push({ handle, text: op.text, exprs: op.refs.exprs, refs });
}

export function deleteRule(d: Draft, op: OpOf<'deleteRule'>): void {
  const t = d.table(op.family, op.table);
  const c: FakeChain = d.chain(t, op.chain);
  const i = c.rules.findIndex((r) => r.handle === op.handle);
  if (i < 0) refuse(ENOENT, `chain '${op.chain}' has no rule with handle ${op.handle}`);
  d.writableChain(t, op.chain).rules.splice(i, 1);
}

/** What the kernel compares when a set is added again: anything else is a different set. */
function sameSet(a: SetAttrs, b: SetAttrs): boolean {
  return a.flags === b.flags && a.keyType === b.keyType && a.keyLen === b.keyLen && a.dataType === b.dataType
    && a.dataLen === b.dataLen && a.concatFieldLens.join() === b.concatFieldLens.join();
}

export function addSet(d: Draft, op: OpOf<'addSet'>): void {
  const t = d.table(op.family, op.table);
  const attrs = kernelSetAttrs(op.set);
  const have = t.sets.get(op.set.name);
  if (have) {
    if (op.create) refuse(EEXIST, `set '${op.set.name}' exists`);
    if (!sameSet(have.attrs, attrs)) refuse(EEXIST, `set '${op.set.name}' exists with another type or flags`);
    d.touch(); // the kernel queues an update even when nothing changes
    if (op.set.size !== undefined) d.resizes.push({ table: t, set: op.set.name, size: op.set.size });
    return;
  }
  const w = d.writableTable(t);
  const set = { name: op.set.name, handle: w.nextHandle++, spec: op.set, attrs, elements: new Map() };
  w.sets.set(op.set.name, d.adopt(op.set.size === undefined ? set : { ...set, size: op.set.size }));
}

export function flushSet(d: Draft, op: OpOf<'flushSet'>): void {
  const t = d.table(op.family, op.table);
  if (d.set(t, op.set).elements.size > 0) d.writableSet(t, op.set).elements = new Map();
}

/** A set a rule looks up or updates cannot go (its elements' jumps go with it). */
export function deleteSet(d: Draft, op: OpOf<'deleteSet'>): void {
  const t = d.table(op.family, op.table);
  d.set(t, op.set);
  for (const c of t.chains.values()) {
    if (c.rules.some((r) => binds(r.refs, op.set))) refuse(EBUSY, `set '${op.set}' is in use by a rule in chain '${c.name}'`);
  }
  d.writableTable(t).sets.delete(op.set);
}
