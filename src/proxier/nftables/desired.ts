// The desired kernel state, as plain data. The compiler builds it; the sync diffs it against the
// mirror of what the kernel holds and writes the difference as one transaction. Everything lives
// in one table per family, `kube-proxy` (names.ts TABLE), so objects are named by name alone.
import type { Hook, KeyPart, NftType, Rule, SetSpec, Verdict } from '../../native';

export type { Hook, KeyPart, NftType };

/** The nftables families we program: `ip` for IPv4 Services, `ip6` for IPv6 (the model's IPFamily is 'IPv4' | 'IPv6'). */
export type NftFamily = 'ip' | 'ip6';

export interface BaseHook { type: 'filter' | 'nat'; hook: Hook; priority: number }

export interface ChainDef {
  name: string;
  base?: BaseHook;
  /** Built by src/native's rule builder; each Rule carries its nft text. */
  rules: Rule[];
}

/** A set as the native builder takes it. */
export interface SetDef extends SetSpec {
  /** Elements are written by the packet path (affinity): never flushed by a sync. */
  keepElements?: boolean;
}

export interface ElementDef {
  set: string;
  key: KeyPart[];
  verdict?: Verdict;
  /** The value of a data map's element (endpoint maps: address . port). */
  data?: KeyPart[];
}

/** Everything in one family's table that does not belong to a ServicePort. */
export interface BaseObjects {
  family: NftFamily;
  chains: ChainDef[];
  sets: SetDef[];
  /** Elements not owned by any ServicePort (nodeport-ips). */
  elements: ElementDef[];
}

/** What one ServicePort adds: its own chains, and elements in the shared maps and sets. */
export interface ServiceObjects {
  key: string;
  family: NftFamily;
  chains: ChainDef[];
  elements: ElementDef[];
}
