// Kernel and nft constants the builder needs. Values come from linux/netfilter/nf_tables.h,
// linux/netfilter.h and nft's datatype table (src/datatype.c) so that `nft list` prints what we
// create exactly as if nft had created it.

export type Family = 'ip' | 'ip6' | 'inet';
export type Hook = 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting';
export type ChainType = 'filter' | 'nat' | 'route';
export type Verdict =
  | { kind: 'accept' | 'drop' | 'return' | 'continue' }
  | { kind: 'jump' | 'goto'; chain: string };
export type NftType = 'ipv4_addr' | 'ipv6_addr' | 'inet_proto' | 'inet_service' | 'mark' | 'ifname' | 'integer' | 'verdict';
export type L4Proto = 'tcp' | 'udp' | 'sctp';

export const FAMILY_CODE: Record<Family, number> = { inet: 1, ip: 2, ip6: 10 };
export const FAMILY_BY_CODE: Record<number, Family> = { 1: 'inet', 2: 'ip', 10: 'ip6' };

export const HOOK_CODE: Record<Hook, number> = { prerouting: 0, input: 1, forward: 2, output: 3, postrouting: 4 };
export const HOOK_BY_CODE: Hook[] = ['prerouting', 'input', 'forward', 'output', 'postrouting'];

export const L4PROTO_CODE: Record<L4Proto, number> = { tcp: 6, udp: 17, sctp: 132 };
export const L4PROTO_BY_CODE: Record<number, L4Proto> = { 6: 'tcp', 17: 'udp', 132: 'sctp' };

/** Verdict codes as NFTA_VERDICT_CODE carries them (NF_DROP, NF_ACCEPT, NFT_*). */
export const VERDICT_CODE = { drop: 0, accept: 1, continue: -1, break: -2, jump: -3, goto: -4, return: -5 } as const;

export interface TypeInfo { id: number; len: number }
/** nft's datatype ids and the byte length of one value (verdict: data length 0, NFT_DATA_VERDICT). */
export const NFT_TYPES: Record<NftType, TypeInfo> = {
  verdict: { id: 1, len: 0 },
  ipv4_addr: { id: 7, len: 4 },
  ipv6_addr: { id: 8, len: 16 },
  inet_proto: { id: 12, len: 1 },
  inet_service: { id: 13, len: 2 },
  mark: { id: 19, len: 4 },
  ifname: { id: 41, len: 16 },
  // TYPE_INTEGER: what nft gives a `numgen` key part (a host-order u32); nft cannot parse
  // `type ... integer`, so sets using it are written with `typeof` in scripts.
  integer: { id: 4, len: 4 },
};
export const NFT_DATA_VERDICT = 0xffffff00;
const TYPE_BITS = 6;

export function isNftType(t: unknown): t is NftType {
  return typeof t === 'string' && Object.prototype.hasOwnProperty.call(NFT_TYPES, t);
}

/** Registers hold data in 4-byte words; concatenation fields each start on a word. */
export function wordAlign(len: number): number {
  return (len + 3) & ~3;
}

/** The key type id nft stores for a (possibly concatenated) key: ids packed 6 bits apart (concat_subtype_add). */
export function keyTypeId(key: readonly NftType[]): number {
  let id = 0;
  for (const t of key) id = (id << TYPE_BITS) | NFT_TYPES[t].id;
  return id >>> 0;
}

/** The types a key type id packs (the inverse of keyTypeId); undefined for an id that is not ours. */
export function keyTypesOf(id: number): NftType[] | undefined {
  const byId = new Map(Object.entries(NFT_TYPES).map(([t, info]) => [info.id, t as NftType]));
  const out: NftType[] = [];
  for (let rest = id >>> 0; rest !== 0; rest = Math.floor(rest / (1 << TYPE_BITS))) {
    const t = byId.get(rest % (1 << TYPE_BITS));
    if (t === undefined || t === 'verdict') return undefined;
    out.unshift(t);
  }
  return out.length > 0 ? out : undefined;
}

/** The key length: one field as is, a concatenation with every field padded to a word. */
export function keyLength(key: readonly NftType[]): number {
  if (key.length === 1) return NFT_TYPES[key[0]].len;
  let len = 0;
  for (const t of key) len += wordAlign(NFT_TYPES[t].len);
  return len;
}

// NFT_SET_* flags
export const SET_F = { anonymous: 0x1, constant: 0x2, interval: 0x4, map: 0x8, timeout: 0x10, eval: 0x20, concat: 0x80 } as const;

// Expression-level constants.
export const PAYLOAD_BASE = { ll: 0, network: 1, transport: 2, inner: 3 } as const;
export const META = { mark: 3, iifname: 6, oifname: 7, nfproto: 15, l4proto: 16 } as const;
export const CT_KEY = { state: 0, status: 2, protoSrc: 11, protoDst: 12, srcIp: 19, dstIp: 20, srcIp6: 21, dstIp6: 22 } as const;
export const CT_DIR_ORIGINAL = 0;
export const CT_DIR_REPLY = 1;
export const CT_STATE_BIT = { invalid: 1, established: 2, related: 4, new: 8, untracked: 64 } as const;
export type CtState = 'new' | 'established' | 'related' | 'invalid';
export const CT_STATUS_DNAT = 0x20; // IPS_DST_NAT
export const CT_STATUS_CONFIRMED = 0x08; // IPS_CONFIRMED
export const CMP_OP = { eq: 0, neq: 1, lt: 2, lte: 3, gt: 4, gte: 5 } as const;
export const NAT_TYPE = { snat: 0, dnat: 1 } as const;
export const NAT_RANGE = { mapIps: 0x1, protoSpecified: 0x2, protoRandom: 0x4, persistent: 0x8, protoRandomFully: 0x10 } as const;
export const REJECT_TYPE = { icmpUnreach: 0, tcpRst: 1, icmpxUnreach: 2 } as const;
export const ICMP_PORT_UNREACH = 3;
export const ICMPV6_PORT_UNREACH = 4;
export const ICMPX_PORT_UNREACH = 1;
export const NUMGEN_RANDOM = 1;
export const FIB_RESULT_ADDRTYPE = 3;
export const FIB_F_SADDR = 1;
export const FIB_F_DADDR = 2;
export const RTN_LOCAL = 2;
export const DYNSET_OP = { add: 0, update: 1, delete: 2 } as const;
export const LOOKUP_F_INV = 1;
export const SET_ELEM_INTERVAL_END = 1;
export const IFNAMSIZ = 16;
