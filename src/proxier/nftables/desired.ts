// The desired kernel state, as plain data. The compiler builds it; the sync diffs it against the
// mirror of what the kernel holds and writes the difference as one transaction.
import type { SelectedEndpoints, ServicePort } from '../../core/types';
import type { Hook, KeyPart, NftType, SetSpec } from '../../native';
import type { IpFamily, RuleDef, Verdict } from './rule-steps';

export type { Hook, KeyPart, NftType };

export interface BaseHook { type: 'filter' | 'nat'; hook: Hook; priority: number }

export interface ChainDef {
  table: string;
  name: string;
  base?: BaseHook;
  rules: RuleDef[];
}

/** A set as the native builder takes it, placed in one of our tables. */
export interface SetDef extends SetSpec {
  table: string;
  /** Elements are written by the packet path (affinity): never flushed by a sync. */
  keepElements?: boolean;
}

export interface ElementDef {
  table: string;
  set: string;
  key: KeyPart[];
  verdict?: Verdict;
  /** The value of a data map's element (endpoint maps: address . port). */
  data?: KeyPart[];
}

/** Everything in one family's tables that does not belong to a ServicePort. */
export interface BaseObjects {
  family: IpFamily;
  /** Our one table, `kube-proxy`. */
  tables: string[];
  chains: ChainDef[];
  sets: SetDef[];
  /** Elements not owned by any ServicePort (nodeport-ips). */
  elements: ElementDef[];
}

/** What one ServicePort adds: its own chains, and elements in the shared maps and sets. */
export interface ServiceObjects {
  key: string;
  family: IpFamily;
  chains: ChainDef[];
  elements: ElementDef[];
  /** The model it was compiled from; kept only for ServicePorts with chains (see NftablesProxier.previous). */
  source?: { sp: ServicePort; eps: SelectedEndpoints | undefined };
}

export function elementKeyString(key: readonly KeyPart[]): string {
  return key.join(' . ');
}
