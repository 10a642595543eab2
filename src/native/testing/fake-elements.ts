// Set and map elements in the fake kernel. Keys are encoded exactly as the wire encodes them
// (../txn/elements.ts), so a dump's keys compare byte for byte with Nft.dumpTable; each element is then
// checked against the set as the kernel holds it (which may not be the spec the transaction
// assumed), in the order the kernel receives them.
import { Element, encodeElements } from '../txn/elements';
import type { Bytes } from '../txn/expressions';
import { checkJumpTarget } from './fake-objects';
import { Draft, EEXIST, EINVAL, ENFILE, ENOENT, FakeElement, FakeSet, FakeTable, refuse } from './fake-state';
import { NFT_DATA_VERDICT, SET_ELEM_INTERVAL_END, SET_F, wordAlign } from '../txn/nft-types';
import type { Op } from '../txn/ops';
import type { EncodedElement } from '../txn/serialize';
import type { SetSpec } from '../txn/set-spec';

type ElementsOp = Extract<Op, { op: 'addElements' | 'deleteElements' }>;
/** One API element as the kernel receives it: a start (or the only) element and an interval's end. */
interface Piece { value?: Element; start: EncodedElement; end?: EncodedElement }

const hex = (b: Bytes): string => Buffer.from(b as Uint8Array).toString('hex');
const isEnd = (e: { flags: number }) => (e.flags & SET_ELEM_INTERVAL_END) !== 0;

/** How the kernel tells elements apart: the key, whether it ends an interval, a range's end. */
export function elementId(e: { key: Bytes; keyEnd?: Bytes; flags: number }): string {
  return `${hex(e.key)}${isEnd(e) ? '/end' : ''}${e.keyEnd ? `-${hex(e.keyEnd)}` : ''}`;
}

function sameValue(a: FakeElement, b: FakeElement): boolean {
  if (a.verdict || b.verdict) {
    const chain = (v: FakeElement['verdict']) => (v && (v.kind === 'jump' || v.kind === 'goto') ? v.chain : '');
    return a.verdict?.kind === b.verdict?.kind && chain(a.verdict) === chain(b.verdict);
  }
  return (a.data ? hex(a.data) : '') === (b.data ? hex(b.data) : '');
}

/** The elements in wire order: a single-field interval set's ranges sorted, after nft's leading end element. */
function pieces(op: ElementsOp, add: boolean): Piece[] {
  const elements = op.elements; // read once: an op from an ElementBatch decodes them on every read
  const out: Piece[] = elements.map((value) => {
    const [start, end] = encodeElements(op.set, [value], 'elements', { firstAdd: false, add });
    return { value, start, end };
  });
  if (!op.set.interval || op.set.key.length > 1) return out;
  out.sort((a, b) => Buffer.compare(Buffer.from(a.start.key as Uint8Array), Buffer.from(b.start.key as Uint8Array)));
  if (add && op.firstAdd) {
    const [lead] = encodeElements(op.set, elements, 'elements', { firstAdd: true, add });
    if (lead && isEnd(lead)) out.unshift({ start: lead });
  }
  return out;
}

function stored(e: EncodedElement, p: Piece, spec: SetSpec): FakeElement {
  const out: FakeElement = { key: Uint8Array.from(e.key), flags: e.flags };
  if (e.keyEnd) out.keyEnd = Uint8Array.from(e.keyEnd);
  if (e === p.start && p.value) {
    out.value = p.value;
    out.spec = spec;
    if (p.value.verdict) out.verdict = p.value.verdict;
  }
  if (e.data) out.data = Uint8Array.from(e.data);
  return out;
}

/** The checks nft_add_set_elem makes before it inserts: the element must fit the set as it is. */
function checkFits(t: FakeTable, s: FakeSet, e: EncodedElement, verdict: boolean): void {
  const a = s.attrs;
  const what = `set '${s.name}'`;
  if (isEnd(e) && !(a.flags & SET_F.interval)) refuse(EINVAL, `${what} has no interval flag`);
  if (e.key.length !== a.keyLen) refuse(EINVAL, `${what} has ${a.keyLen}-byte keys, the element ${e.key.length}`);
  if (e.keyEnd && (!(a.flags & SET_F.concat) || e.keyEnd.length !== a.keyLen)) refuse(EINVAL, `${what} takes no such range end`);
  if (e.timeoutMs > 0 && !(a.flags & SET_F.timeout)) refuse(EINVAL, `${what} has no timeout flag`);
  const map = (a.flags & SET_F.map) !== 0;
  const verdictMap = map && a.dataType === NFT_DATA_VERDICT;
  if (!map && (verdict || e.data)) refuse(EINVAL, `${what} is not a map`);
  if (!map || isEnd(e)) return;
  if (verdictMap !== verdict || (!verdictMap && !e.data)) refuse(EINVAL, `${what} needs ${verdictMap ? 'a verdict' : 'data'}`);
  if (e.data && e.data.length !== a.dataLen) refuse(EINVAL, `${what} has ${a.dataLen}-byte data, the element ${e.data.length}`);
  if (e.verdict && (e.verdict.chain ?? '') !== '') checkJumpTarget(t, e.verdict.chain);
}

/** [start, end) of each range a single-field interval set holds (end '' = to the top). */
function ranges(s: FakeSet): { start: string; end: string }[] {
  const all = [...s.elements.values()].map((e) => ({ k: hex(e.key), end: isEnd(e) })).sort((x, y) => (x.k < y.k ? -1 : x.k > y.k ? 1 : 0));
  const out: { start: string; end: string }[] = [];
  all.forEach((e, i) => {
    if (e.end) return;
    const next = all.slice(i + 1).find((n) => n.end && n.k > e.k);
    out.push({ start: e.k, end: next ? next.k : '' });
  });
  return out;
}

/** Whether the key lies inside the element's range in every field of a concatenation. */
function inside(key: Uint8Array, e: FakeElement, fieldLens: number[]): boolean {
  let at = 0;
  for (const len of fieldLens) {
    const k = Buffer.from(key.subarray(at, at + len));
    const lo = Buffer.from(e.key.subarray(at, at + len));
    const hi = Buffer.from((e.keyEnd ?? e.key).subarray(at, at + len));
    if (Buffer.compare(k, lo) < 0 || Buffer.compare(k, hi) > 0) return false;
    at += wordAlign(len);
  }
  return true;
}

/**
 * The element GETSETELEM answers for `key`: the one with that key, or in a concatenated interval set
 * (pipapo) the one whose ranges hold it, as the kernel's point look-up does.
 */
export function elementFor(s: FakeSet, key: Uint8Array): FakeElement | undefined {
  if (!(s.attrs.flags & SET_F.concat)) return s.elements.get(elementId({ key, flags: 0 }));
  for (const e of s.elements.values()) if (inside(key, e, s.attrs.concatFieldLens)) return e;
  return undefined;
}

/** A new range may not overlap a range the set holds (rbtree and pipapo refuse it with EEXIST). */
function checkOverlap(s: FakeSet, items: FakeElement[]): void {
  const [first, last] = items;
  if (!(s.attrs.flags & SET_F.interval) || !first.value) return;
  if (s.attrs.flags & SET_F.concat) {
    const lens = s.attrs.concatFieldLens;
    const hit = [...s.elements.values()].some((e) => inside(first.key, e, lens) || inside(first.keyEnd ?? first.key, e, lens));
    if (hit) refuse(EEXIST, `the range overlaps one set '${s.name}' holds`);
    return;
  }
  const start = hex(first.key);
  const end = last ? hex(last.key) : '';
  const before = (a: string, b: string) => b === '' || (a !== '' && a < b);
  if (ranges(s).some((r) => before(start, r.end) && before(r.start, end))) refuse(EEXIST, `the range overlaps one set '${s.name}' holds`);
}

function insert(d: Draft, t: FakeTable, name: string, p: Piece, spec: SetSpec): void {
  const s = d.set(t, name);
  const parts = p.end ? [p.start, p.end] : [p.start];
  for (const e of parts) checkFits(t, s, e, e === p.start && !!p.value?.verdict);
  const items = parts.map((e) => stored(e, p, spec));
  const have = items.map((e) => s.elements.get(elementId(e)));
  if (have.every((h) => h !== undefined)) {
    if (!sameValue(have[0]!, items[0])) refuse(EEXIST, `set '${name}' holds the key with another value`);
    return;
  }
  checkOverlap(s, items);
  for (let i = 0; i < items.length; i++) {
    if (have[i]) continue;
    const size = s.size;
    // The draft's own copy is taken only now: a batch of elements the set holds changes nothing.
    const w = d.writableSet(t, name);
    if (size !== undefined && w.elements.size >= size) refuse(ENFILE, `set '${name}' is full (size ${size})`);
    w.elements.set(elementId(items[i]), items[i]);
  }
}

export function addElements(d: Draft, op: ElementsOp): void {
  const t = d.table(op.family, op.table);
  d.set(t, op.set.name);
  for (const p of pieces(op, true)) insert(d, t, op.set.name, p, op.set);
}

export function deleteElements(d: Draft, op: ElementsOp): void {
  const t = d.table(op.family, op.table);
  const keyLen = d.set(t, op.set.name).attrs.keyLen;
  for (const p of pieces(op, false)) {
    for (const e of p.end ? [p.start, p.end] : [p.start]) {
      if (e.key.length !== keyLen) refuse(EINVAL, `set '${op.set.name}' has ${keyLen}-byte keys, the element ${e.key.length}`);
      const id = elementId(e);
      if (!d.set(t, op.set.name).elements.has(id)) refuse(ENOENT, `set '${op.set.name}' holds no element ${id}`);
      d.writableSet(t, op.set.name).elements.delete(id);
    }
  }
}
