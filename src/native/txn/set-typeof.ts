// SetSpec.typeof: the nft expressions a set's key (and data) are typed by, as nft text. nft needs
// them in the set's userdata to print a set whose type it cannot name: `integer` (a numgen key
// part) has no length of its own, and `nft list` aborts on such a concatenation without them.
// Only the expressions below are understood; each must give the type at its place in the set.
import { NftType } from './nft-types';

export interface TypeofExpr { text: string; type: NftType | 'verdict'; hostOrder: boolean; udata: number[] }
export interface ParsedTypeof { key: TypeofExpr[]; data?: TypeofExpr[] }

// nft's expression types (enum expr_types) and the ids its udata uses for payload templates.
const EXPR = { verdict: 1, payload: 7, meta: 9, concat: 13, numgen: 23 } as const;
const PROTO_DESC = { th: 11, ip: 12, ip6: 13 } as const;
const MAX_NUMGEN_MOD = 2 ** 31;

/** nftnl_udata_put_u32: type, length 4, the value in host order (x86: little-endian). */
export function u32Tlv(type: number, v: number): number[] {
  return [type, 4, v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];
}

export function tlv(type: number, value: readonly number[]): number[] {
  if (value.length > 255) throw new RangeError('set userdata: a field is longer than 255 bytes');
  return [type, value.length, ...value];
}

/** One expression as nft's set udata holds it: its expr type, then its own fields nested. */
export function exprUdata(etype: number, fields: number[]): number[] {
  return [...u32Tlv(0, etype), ...tlv(1, fields)];
}

/** What nft records for a concatenation: each part's udata nested under its index. */
export function concatUdata(parts: readonly number[][]): number[] {
  return exprUdata(EXPR.concat, parts.flatMap((p, i) => tlv(i, p)));
}

const payload = (desc: number, field: number) => exprUdata(EXPR.payload, [...u32Tlv(0, desc), ...u32Tlv(1, field)]);
const meta = (key: number) => exprUdata(EXPR.meta, u32Tlv(0, key));

const FIXED: Record<string, Omit<TypeofExpr, 'text'>> = {
  'ip saddr': { type: 'ipv4_addr', hostOrder: false, udata: payload(PROTO_DESC.ip, 11) },
  'ip daddr': { type: 'ipv4_addr', hostOrder: false, udata: payload(PROTO_DESC.ip, 12) },
  'ip6 saddr': { type: 'ipv6_addr', hostOrder: false, udata: payload(PROTO_DESC.ip6, 8) },
  'ip6 daddr': { type: 'ipv6_addr', hostOrder: false, udata: payload(PROTO_DESC.ip6, 9) },
  'th sport': { type: 'inet_service', hostOrder: false, udata: payload(PROTO_DESC.th, 1) },
  'th dport': { type: 'inet_service', hostOrder: false, udata: payload(PROTO_DESC.th, 2) },
  'meta l4proto': { type: 'inet_proto', hostOrder: true, udata: meta(16) },
  'meta mark': { type: 'mark', hostOrder: true, udata: meta(3) },
  'meta iifname': { type: 'ifname', hostOrder: true, udata: meta(6) },
  'meta oifname': { type: 'ifname', hostOrder: true, udata: meta(7) },
  iifname: { type: 'ifname', hostOrder: true, udata: meta(6) },
  oifname: { type: 'ifname', hostOrder: true, udata: meta(7) },
};
const VERDICT: TypeofExpr = { text: 'verdict', type: 'verdict', hostOrder: false, udata: exprUdata(EXPR.verdict, []) };

function parseExpr(text: string, arg: string): TypeofExpr {
  const fixed = FIXED[text];
  if (fixed) return { text, ...fixed };
  const m = /^numgen random mod (\d+)$/.exec(text);
  if (m && Number(m[1]) >= 1 && Number(m[1]) <= MAX_NUMGEN_MOD) {
    const udata = exprUdata(EXPR.numgen, [...u32Tlv(0, 1), ...u32Tlv(1, Number(m[1])), ...u32Tlv(2, 0)]);
    return { text, type: 'integer', hostOrder: true, udata };
  }
  throw new RangeError(`${arg}: '${text}' is not one of ${Object.keys(FIXED).join(', ')}, numgen random mod N (1..2^31)`);
}

function parseList(text: string, arg: string): TypeofExpr[] {
  return text.split('.').map((p) => p.trim().replace(/\s+/g, ' ')).map((p) => parseExpr(p, arg));
}

function checkTypes(exprs: TypeofExpr[], types: readonly NftType[], what: string, arg: string): void {
  const got = exprs.map((e) => e.type).join(' . ');
  if (got !== types.join(' . ')) throw new RangeError(`${arg}: the ${what} expressions give ${got}, the set's ${what} is ${types.join(' . ')}`);
}

/** Parses typeof text (`<key exprs> [: <data exprs> | verdict]`) and checks it against the set's types. */
export function parseTypeof(text: unknown, key: readonly NftType[], map: readonly NftType[] | 'verdict' | undefined, arg: string): ParsedTypeof {
  if (typeof text !== 'string' || text.trim() === '') throw new TypeError(`${arg}: expected nft typeof text such as 'ip daddr . th dport'`);
  const [keyText, dataText, ...rest] = text.split(':');
  if (rest.length > 0) throw new RangeError(`${arg}: more than one ':' in '${text}'`);
  const parsed: ParsedTypeof = { key: parseList(keyText, arg) };
  checkTypes(parsed.key, key, 'key', arg);
  if ((dataText === undefined) !== (map === undefined)) {
    throw new RangeError(`${arg}: '${text}' ${map ? 'needs' : 'must not have'} a ': <data>' part for this ${map ? 'map' : 'set'}`);
  }
  if (dataText === undefined || map === undefined) return parsed;
  if (map === 'verdict') {
    if (dataText.trim() !== 'verdict') throw new RangeError(`${arg}: a verdict map's typeof ends in ': verdict'`);
    parsed.data = [VERDICT];
    return parsed;
  }
  parsed.data = parseList(dataText, arg);
  checkTypes(parsed.data, map, 'data', arg);
  return parsed;
}
