// Elements of one set without intervals, encoded as they are given and added to a Transaction as
// one op (Transaction.addElementBatch). A full sync's elements run to hundreds of thousands: as
// objects, kept by the op records until the commit, they would outweigh the wire bytes several
// times over; a batch keeps only the bytes, and the op's record decodes them when asked.
import { ByteWriter } from '../wire/byte-writer';
import type { Element } from './elements';
import { plainElementWriter, type PlainElementWriter } from './elements';
import { decodePlainElements } from './element-decode';
import type { Op } from './ops';
import { checkSetSpec, mapData, type SetSpec } from './set-spec';

type ElementsOp = Extract<Op, { op: 'addElements' | 'deleteElements' }>;

/**
 * A batch starts small, since a per-ServicePort batch (a retry's one op per set and owner) holds a
 * few elements, and grows as a buffer does up to CHUNKED_FROM. Past that its bytes live in chunks
 * that are never copied (a doubling buffer would leave garbage the size of the set behind), each
 * twice the last up to 1 MiB; a new one starts when less than ROOM is left, more than any element needs.
 */
const FIRST_BYTES = 256;
const CHUNKED_FROM = 16 * 1024;
const MAX_CHUNK = 1 << 20;
const ROOM = 1024;

export class ElementBatch {
  readonly spec: SetSpec;
  private readonly full: ByteWriter[] = [];
  private w = new ByteWriter(FIRST_BYTES);
  private readonly write: PlainElementWriter;
  private n = 0;

  constructor(spec: SetSpec) {
    checkSetSpec(spec, 'set');
    if (spec.interval) throw new RangeError(`set.interval: '${spec.name}' is an interval set; add its elements with addElements()`);
    this.spec = spec;
    this.write = plainElementWriter(spec, true);
  }

  get count(): number {
    return this.n;
  }

  /** Encodes one element now; a bad one throws (naming `elements[i]`) and leaves the batch as it was. */
  add(el: Element): this {
    if (this.w.length >= CHUNKED_FROM && this.w.capacity - this.w.length < ROOM) {
      this.full.push(this.w);
      this.w = new ByteWriter(Math.min(this.w.capacity * 2, MAX_CHUNK));
    }
    this.write(this.w, el, 'elements', this.n);
    this.n++;
    return this;
  }

  /** Bytes the batch adds to a transaction (its elements, and the op's header but the table and set names). */
  get byteLength(): number {
    return this.full.reduce((a, c) => a + c.length, this.w.length) + 32;
  }

  /** @internal The encoded elements, in order (views: valid until the next add). */
  bytes(): Buffer[] {
    return [...this.full, this.w].map((c) => c.view());
  }
}

/** Whether a batch encoded for `batch.spec` is valid in `have` (the set as the transaction knows it). */
export function checkBatchFits(batch: unknown, have: SetSpec | undefined, where: string): ElementBatch {
  if (!(batch instanceof ElementBatch)) throw new TypeError('batch: expected an ElementBatch');
  const s = batch.spec;
  if (!have) throw new RangeError(`batch: unknown set '${s.name}' in ${where}; add it with addSet() or declareSet() first`);
  const types = (x: SetSpec) => `${x.key.join(' . ')} : ${x.map === 'verdict' ? 'verdict' : (mapData(x) ?? []).join(' . ')}`;
  if (have.interval || types(have) !== types(s) || !!have.timeout !== !!s.timeout) {
    throw new RangeError(`batch: '${s.name}' was encoded as ${types(s)}, the set in ${where} is ${types(have)}${have.interval ? ' with intervals' : ''}`);
  }
  return batch;
}

/**
 * The op's record: its `count` elements, written at `at.start` in `w` (the transaction's buffer),
 * are decoded each time they are read. Made here, not in the Transaction's method, so that the
 * getter's closure does not keep the batch (and its bytes) alive as long as the transaction.
 */
export function batchRecord(head: Omit<ElementsOp, 'op' | 'elements'>, w: ByteWriter, at: { start: number }, count: number): ElementsOp {
  const first = (n: number): Element[] => decodePlainElements(head.set, w.view(), at.start, Math.min(n, count));
  const rec: Omit<ElementsOp, 'elements'> = { op: 'addElements', ...head, batch: { count, first } };
  return Object.defineProperty(rec, 'elements', { enumerable: true, get: () => first(count) }) as ElementsOp;
}
