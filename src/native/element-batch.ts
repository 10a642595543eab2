// Elements of one set without intervals, encoded as they are given and added to a Transaction as
// one op (Transaction.addElementBatch). A full sync's elements run to hundreds of thousands: as
// objects, kept by the op records until the commit, they would outweigh the wire bytes several
// times over; a batch keeps only the bytes, and the op's record decodes them when asked.
import { ByteWriter } from './byte-writer';
import type { Element } from './elements';
import { plainElementWriter, type PlainElementWriter } from './elements';
import type { Family } from './nft-types';
import type { Op } from './ops';
import { checkSetSpec, mapData, type SetSpec } from './set-spec';

type ElementsOp = Extract<Op, { op: 'addElements' | 'deleteElements' }>;

/** Small to start with: a per-ServicePort batch (a retry's one op per set and owner) holds a few elements. */
const INITIAL_BYTES = 256;

export class ElementBatch {
  readonly spec: SetSpec;
  private readonly w = new ByteWriter(INITIAL_BYTES);
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
    this.write(this.w, el, 'elements', this.n);
    this.n++;
    return this;
  }

  /** Bytes the batch adds to a transaction (its elements, and the op's header but the table and set names). */
  get byteLength(): number {
    return this.w.length + 32;
  }

  /** @internal The encoded elements (a view: valid until the next add). */
  bytes(): Buffer {
    return this.w.view();
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

/** The op's record: its elements are decoded from the transaction's buffer each time they are read. */
export function batchRecord(family: Family, table: string, set: SetSpec, firstAdd: boolean, decode: () => Element[]): ElementsOp {
  const rec: Omit<ElementsOp, 'elements'> = { op: 'addElements', family, table, set, firstAdd };
  return Object.defineProperty(rec, 'elements', { enumerable: true, get: decode }) as ElementsOp;
}
