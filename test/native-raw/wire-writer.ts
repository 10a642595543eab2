// A tiny hand-rolled writer for the transaction buffer (docs/wire-format.md), independent of
// src/native/txn/serialize.ts so these tests check the addon against the document itself.
export class W {
  private parts: Buffer[] = [];
  u8(v: number): this { const b = Buffer.alloc(1); b.writeUInt8(v); return this.push(b); }
  u16(v: number): this { const b = Buffer.alloc(2); b.writeUInt16LE(v); return this.push(b); }
  u32(v: number): this { const b = Buffer.alloc(4); b.writeUInt32LE(v >>> 0); return this.push(b); }
  i32(v: number): this { const b = Buffer.alloc(4); b.writeInt32LE(v); return this.push(b); }
  u64(v: number | bigint): this { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return this.push(b); }
  str(s: string): this { const b = Buffer.from(s, 'utf8'); return this.u16(b.length).push(b); }
  blob(b: Buffer | number[]): this { const x = Buffer.from(b); return this.u16(x.length).push(x); }
  raw(b: Buffer | number[]): this { return this.push(Buffer.from(b)); }
  done(): Buffer { return Buffer.concat(this.parts); }
  private push(b: Buffer): this { this.parts.push(b); return this; }
}

export const MAGIC = 0x544e504b;
export const NFPROTO = { inet: 1, ip: 2, ip6: 10 } as const;
export const OP = {
  ADD_TABLE: 1, DEL_TABLE: 2, FLUSH_TABLE: 3, ADD_CHAIN: 4, FLUSH_CHAIN: 5, DEL_CHAIN: 6, ADD_RULE: 7,
  ADD_SET: 8, DEL_SET: 9, FLUSH_SET: 10, ADD_ELEMS: 11, DEL_ELEMS: 12, DEL_RULE: 13,
} as const;
export const CREATE = 1;
export const V = { ACCEPT: 1, DROP: 0, CONTINUE: -1, RETURN: -5, JUMP: -3, GOTO: -4 } as const;

export function txn(ops: Buffer[], opCount = ops.length): Buffer {
  return Buffer.concat([new W().u32(MAGIC).u16(1).u16(0).u32(opCount).done(), ...ops]);
}

export function op(code: number, body: Buffer, flags = 0): Buffer {
  return Buffer.concat([new W().u8(code).u8(flags).u32(body.length).done(), body]);
}

export function head(family: number, table: string): W { return new W().u8(family).str(table); }

export const addTable = (family: number, table: string, flags = 0) =>
  op(OP.ADD_TABLE, head(family, table).u32(0).done(), flags);
export const delTable = (family: number, table: string) => op(OP.DEL_TABLE, head(family, table).done());
export const regularChain = (family: number, table: string, chain: string) =>
  op(OP.ADD_CHAIN, head(family, table).str(chain).u8(0).done());
export const baseChain = (family: number, table: string, chain: string, hook: number, prio: number, type: string, policy: number) =>
  op(OP.ADD_CHAIN, head(family, table).str(chain).u8(1).u32(hook).i32(prio).str(type).u8(policy).done());

// Expressions (wire type byte + fields).
export const ex = {
  payload: (base: number, offset: number, len: number, dreg: number) => new W().u8(1).u8(base).u32(offset).u32(len).u32(dreg).done(),
  meta: (key: number, reg: number, set = false) => new W().u8(2).u8(set ? 1 : 0).u32(key).u32(reg).done(),
  cmp: (sreg: number, cmpOp: number, data: number[]) => new W().u8(3).u32(sreg).u32(cmpOp).blob(data).done(),
  bitwise: (sreg: number, dreg: number, mask: number[], xor: number[]) =>
    new W().u8(4).u32(sreg).u32(dreg).u32(mask.length).blob(mask).blob(xor).done(),
  lookup: (sreg: number, set: string, setId = 0, dreg?: number, flags = 0) =>
    new W().u8(5).u32(sreg).str(set).u32(setId).u8(dreg === undefined ? 0 : 1).u32(dreg ?? 0).u32(flags).done(),
  verdict: (code: number, chain = '') => new W().u8(6).u32(0).i32(code).str(chain).done(),
  immData: (dreg: number, data: number[]) => new W().u8(6).u32(dreg).blob(data).done(),
  counter: () => Buffer.from([12]),
  notrack: () => Buffer.from([15]),
};

export function rule(family: number, table: string, chain: string, exprs: Buffer[], userdata: number[] = []): Buffer {
  const w = head(family, table).str(chain).blob(userdata).u16(exprs.length);
  return op(OP.ADD_RULE, Buffer.concat([w.done(), ...exprs]));
}
