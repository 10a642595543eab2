// NFTA_SET_USERDATA as nft 1.0.6 writes it (libnftnl udata TLVs: u8 type, u8 len, value): the
// key and data byte orders nft prints elements with, the typeof expressions, the comment. Without
// it `nft list` prints mark/ifname elements wrongly and aborts on a key with an `integer` part.
import { NftType } from './nft-types';
import { concatUdata, parseTypeof, tlv, TypeofExpr, u32Tlv } from './set-typeof';
import { mapData, SetSpec } from './set-spec';

const UDATA = { keyByteorder: 0, dataByteorder: 1, keyTypeof: 3, dataTypeof: 4, dataInterval: 6, comment: 7 } as const;
const BYTEORDER = { invalid: 0, host: 1, big: 2 } as const;
// The byte order of nft's datatypes (a type that declares none, like inet_proto, is "invalid").
const TYPE_ORDER: Record<NftType | 'verdict', number> = {
  ipv4_addr: BYTEORDER.big, ipv6_addr: BYTEORDER.big, inet_service: BYTEORDER.big, mark: BYTEORDER.host, ifname: BYTEORDER.host,
  inet_proto: BYTEORDER.invalid, integer: BYTEORDER.invalid, verdict: BYTEORDER.invalid,
};
// What nft records as the "typeof" of a concatenation declared with `type a . b`: an empty concat.
const CONCAT_TYPEOF = concatUdata([]);
export const MAX_SET_USERDATA = 256; // NFT_USERDATA_MAXLEN

/** One key or data part: from typeof (an expression, with its byte order) or from a type name. */
interface Part { type: NftType | 'verdict'; order: number; udata?: number[] }

/** A concatenation has no single byte order; one field has its expression's or type's. */
function byteorder(parts: readonly Part[]): number {
  return parts.length > 1 ? BYTEORDER.invalid : parts[0].order;
}

/** Expressions have their own byte order (meta l4proto is host order though inet_proto has none). */
function exprPart(e: TypeofExpr): Part {
  return { type: e.type, order: e.type === 'verdict' ? BYTEORDER.invalid : e.hostOrder ? BYTEORDER.host : BYTEORDER.big, udata: e.udata };
}

/** typeof form: the expressions; type form: only a concatenation is recorded (as an empty one). */
function typeofTlv(type: number, parts: readonly Part[]): number[] {
  if (parts[0].udata) return tlv(type, parts.length > 1 ? concatUdata(parts.map((p) => p.udata!)) : parts[0].udata);
  return parts.length > 1 ? tlv(type, CONCAT_TYPEOF) : [];
}

const typePart = (t: NftType | 'verdict'): Part => ({ type: t, order: TYPE_ORDER[t] });

export function setUserdata(s: SetSpec): number[] {
  const data = mapData(s);
  const parsed = s.typeof === undefined ? undefined : parseTypeof(s.typeof, s.key, data ?? (s.map ? 'verdict' : undefined), 'set.typeof');
  const key: Part[] = parsed ? parsed.key.map(exprPart) : s.key.map(typePart);
  const value: Part[] | undefined = parsed ? parsed.data?.map(exprPart) : s.map ? (data ?? ['verdict' as const]).map(typePart) : undefined;
  const out = u32Tlv(UDATA.keyByteorder, byteorder(key));
  if (value) out.push(...u32Tlv(UDATA.dataByteorder, byteorder(value)));
  out.push(...typeofTlv(UDATA.keyTypeof, key));
  if (value) out.push(...typeofTlv(UDATA.dataTypeof, value), ...u32Tlv(UDATA.dataInterval, 0));
  if (s.comment !== undefined) out.push(...tlv(UDATA.comment, [...Buffer.from(s.comment), 0]));
  if (out.length > MAX_SET_USERDATA) {
    throw new RangeError(`set: its typeof and comment take ${out.length} bytes of set userdata, more than nft's ${MAX_SET_USERDATA}`);
  }
  return out;
}
