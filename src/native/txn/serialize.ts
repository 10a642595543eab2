// Writers for the transaction buffer of docs/wire-format.md. Pure encoding: every value has been
// validated by the builder before it gets here.
import { ByteWriter } from '../wire/byte-writer';
import { Bytes, EXPR_CODE, Expr } from './expressions';

export const MAGIC = 0x544e504b;
export const VERSION = 1;
export const HEADER_LEN = 12;

export const OPCODE = {
  addTable: 1, delTable: 2, flushTable: 3, addChain: 4, flushChain: 5, delChain: 6, addRule: 7,
  addSet: 8, delSet: 9, flushSet: 10, addElems: 11, delElems: 12, delRule: 13,
} as const;
export const OP_F_CREATE = 1;

const EMPTY: Bytes = [];

export function writeHeader(w: ByteWriter, opCount: number): void {
  w.u32(MAGIC);
  w.u16(VERSION);
  w.u16(0);
  w.u32(opCount);
}

/** Starts an op: opcode, flags, a bodyLen placeholder, family and table. Returns the placeholder position. */
export function beginOp(w: ByteWriter, opcode: number, flags: number, family: number, table: string): number {
  w.u8(opcode);
  w.u8(flags);
  const at = w.reserveU32();
  w.u8(family);
  w.str(table);
  return at;
}

export function endOp(w: ByteWriter, lenAt: number): void {
  w.patchU32(lenAt, w.length - lenAt - 4);
}

/** `setIdOf` gives the batch-local id of a set created in this transaction, 0 otherwise. */
export function writeExpr(w: ByteWriter, e: Expr, setIdOf: (set: string) => number): void {
  w.u8(EXPR_CODE[e.type]);
  switch (e.type) {
    case 'payload':
      w.u8(e.base); w.u32(e.offset); w.u32(e.len); w.u32(e.dreg);
      return;
    case 'meta':
      w.u8(e.set ? 1 : 0); w.u32(e.key); w.u32(e.reg);
      return;
    case 'cmp':
      w.u32(e.sreg); w.u32(e.op); w.blob(e.data);
      return;
    case 'bitwise':
      w.u32(e.sreg); w.u32(e.dreg); w.u32(e.len); w.blob(e.mask); w.blob(e.xor);
      return;
    case 'lookup':
      w.u32(e.sreg); w.str(e.set); w.u32(setIdOf(e.set));
      w.u8(e.dreg === undefined ? 0 : 1); w.u32(e.dreg ?? 0); w.u32(e.invert ? 1 : 0);
      return;
    case 'immediate':
      w.u32(e.dreg); w.blob(e.data);
      return;
    case 'verdict':
      w.u32(0); w.i32(e.code); w.str(e.chain);
      return;
    case 'nat':
      w.u32(e.natType); w.u32(e.family); w.u32(e.regAddrMin); w.u32(e.regAddrMax);
      w.u32(e.regProtoMin); w.u32(e.regProtoMax); w.u32(e.flags);
      return;
    case 'masq':
      w.u32(e.flags); w.u32(e.regProtoMin); w.u32(e.regProtoMax);
      return;
    case 'reject':
      w.u32(e.rejectType); w.u8(e.code);
      return;
    case 'numgen':
      w.u32(e.dreg); w.u32(e.mod); w.u32(e.ngType); w.u32(e.offset);
      return;
    case 'ct':
      w.u8(e.set ? 1 : 0); w.u32(e.key); w.u8(e.ctDir); w.u32(e.reg);
      return;
    case 'fib':
      w.u32(e.dreg); w.u32(e.result); w.u32(e.flags);
      return;
    case 'dynset':
      w.u32(e.op); w.str(e.set); w.u32(setIdOf(e.set)); w.u32(e.sregKey); w.u32(e.sregData);
      w.u64(e.timeoutMs); w.u32(e.flags);
      return;
    case 'counter':
    case 'notrack':
      return;
  }
}

export interface EncodedElement {
  key: Bytes;
  keyEnd?: Bytes;
  flags: number;
  verdict?: { code: number; chain: string };
  /** A data map's value (already encoded); never together with a verdict. */
  data?: Bytes;
  timeoutMs: number;
}

export function writeElement(w: ByteWriter, el: EncodedElement): void {
  w.blob(el.key);
  w.blob(el.keyEnd ?? EMPTY);
  w.u32(el.flags);
  if (el.verdict) {
    w.u8(1); w.i32(el.verdict.code); w.str(el.verdict.chain);
  } else if (el.data) {
    w.u8(2); w.blob(el.data);
  } else {
    w.u8(0);
  }
  w.u64(el.timeoutMs);
}
