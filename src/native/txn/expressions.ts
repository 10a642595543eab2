// The low-level expression IR a Rule is made of: one variant per wire-format expression type
// (docs/wire-format.md). Register numbers are wire values: 0 verdict, 1..4 NFT_REG_1..4,
// 8..23 NFT_REG32_00..15. Data blobs are already in the byte order the kernel compares.

/** Raw bytes; small values are plain arrays because a typed array per value costs far more to allocate. */
export type Bytes = Uint8Array | readonly number[];

export type Expr =
  | { type: 'payload'; base: number; offset: number; len: number; dreg: number }
  | { type: 'meta'; set: boolean; key: number; reg: number }
  | { type: 'cmp'; sreg: number; op: number; data: Bytes }
  | { type: 'bitwise'; sreg: number; dreg: number; len: number; mask: Bytes; xor: Bytes }
  | { type: 'lookup'; sreg: number; set: string; dreg?: number; invert: boolean }
  | { type: 'immediate'; dreg: number; data: Bytes }
  | { type: 'verdict'; code: number; chain: string }
  // `map`: a dnat to a map's data (dnatMap); its proto registers apply only if that map's data has
  // a port, which the Transaction knows and the builder does not (see natForMapData).
  | { type: 'nat'; natType: number; family: number; regAddrMin: number; regAddrMax: number; regProtoMin: number; regProtoMax: number; flags: number; map?: string }
  | { type: 'masq'; flags: number; regProtoMin: number; regProtoMax: number }
  | { type: 'reject'; rejectType: number; code: number }
  | { type: 'numgen'; dreg: number; mod: number; ngType: number; offset: number }
  | { type: 'ct'; set: boolean; key: number; ctDir: number; reg: number }
  | { type: 'counter' }
  | { type: 'fib'; dreg: number; result: number; flags: number }
  | { type: 'dynset'; op: number; set: string; sregKey: number; sregData: number; timeoutMs: number; flags: number }
  | { type: 'notrack' };

export const EXPR_CODE: Record<Expr['type'], number> = {
  payload: 1, meta: 2, cmp: 3, bitwise: 4, lookup: 5, immediate: 6, verdict: 6, nat: 7, masq: 8,
  reject: 9, numgen: 10, ct: 11, counter: 12, fib: 13, dynset: 14, notrack: 15,
};

export const REG_VERDICT = 0;
export const REG_1 = 1;
export const REG_2 = 2;
const REG32_00 = 8;

/**
 * The register that holds 32-bit word `word` of the register file, named the way nft names it
 * (netlink_put_register): the 128-bit name when the word starts one, else the 32-bit name.
 */
export function registerForWord(word: number): number {
  if (word < 0 || word > 15) throw new RangeError(`register word ${word} is outside the 64-byte register file`);
  return word % 4 === 0 ? REG_1 + word / 4 : REG32_00 + word;
}
