// A built rule as plain data: the expressions the kernel gets, the nft text a person reads, and the
// sets it refers to (checked against their specs when a Transaction takes the rule).
import type { Expr } from './expressions';
import type { NftType } from './nft-types';

export type RuleFamily = 'ip' | 'ip6' | 'inet';
export type AddrField = 'saddr' | 'daddr';
export type KeyExpr =
  | 'saddr' | 'daddr' | 'l4proto' | 'dport' | 'sport'
  | 'ip saddr' | 'ip daddr' | 'ip6 saddr' | 'ip6 daddr'
  // Conntrack's view, for the nat postrouting hook, where the packet is already DNATed: the
  // original destination, and the endpoint (the reply's source). The ports need the rule's
  // `meta l4proto` first (nft types them by the protocol).
  | 'ct original daddr' | 'ct reply saddr' | 'ct original proto-dst' | 'ct reply proto-src'
  | { ip: string } | { proto: 'tcp' | 'udp' | 'sctp' } | { port: number }
  | { numgen: number };

/**
 * A set a rule refers to, with the key types the rule feeds it (checked by the Transaction);
 * `natAddr`: for dnatMap, the address type the map's data must start with.
 */
export interface SetRef {
  set: string;
  key: NftType[];
  use: 'lookup' | 'vmap' | 'dynset' | 'dnatMap';
  arg: string;
  natAddr?: 'ipv4_addr' | 'ipv6_addr';
  /** For a dynset that writes a value: the types the rule gives it (the set must map to them). */
  data?: NftType[];
}

type NatExpr = Extract<Expr, { type: 'nat' }>;

/** A dnatMap's nat expression for the map's actual data: a map without a port sets no proto registers. */
export function natForMapData(e: NatExpr, data: readonly NftType[]): NatExpr {
  return data.length > 1 ? e : { ...e, regProtoMin: 0, regProtoMax: 0 };
}

export class Rule {
  /** @internal */
  constructor(
    readonly family: RuleFamily,
    readonly text: string,
    readonly exprs: readonly Expr[],
    readonly setRefs: readonly SetRef[],
    readonly comment?: string,
    /** NFTA_RULE_USERDATA: the comment in nft's TLV form. */
    readonly userdata?: Uint8Array,
  ) {}
}
