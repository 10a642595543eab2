// The helper table's options and, per sync, each family's settings: what the rules and the
// per-ServicePort elements depend on besides the ServicePort itself. When a family's settings
// change (node addresses, NodePort addresses, pod CIDRs for NodeCIDR) the sync is a full one.
import type { Transaction } from '../../native/txn/transaction';
import { resolveDetector, type LocalDetectorOptions, type ResolvedDetector } from '../../policy/local-detector';
import { ipVersionOf } from '../../native/wire/addresses';
import type { ProxySnapshot } from '../../core/types';
import { HELPER_FAMILIES, type HelperFamily } from './helper-table-names';

/** What commits a transaction: src/native's Nft, or FakeNft in tests. */
export interface TxCommitter { commit(tx: Transaction): Promise<unknown> }

export interface HelperTableOptions {
  nft: TxCommitter;
  /** The bit of the packet mark that asks for masquerading (ipvs.masqueradeBit), 0..31; default 14. */
  masqueradeBit?: number;
  /** Masquerade all traffic to ClusterIPs (masqueradeAll). */
  masqueradeAll?: boolean;
  /** How traffic from this node's pods is told apart (detectLocalMode); default None. */
  localDetector?: LocalDetectorOptions;
  /** The families to keep a table for; default both. */
  families?: readonly HelperFamily[];
  /** nf_conntrack_tcp_be_liberal was non-zero at start-up: no INVALID drop rule (as upstream). Default false. */
  conntrackTCPLiberal?: boolean;
}

export interface ResolvedOptions {
  nft: TxCommitter;
  mark: number;
  masqueradeAll: boolean;
  localDetector: LocalDetectorOptions;
  families: readonly HelperFamily[];
  dropInvalid: boolean;
}

export function resolveOptions(o: HelperTableOptions): ResolvedOptions {
  if (!o || typeof o.nft?.commit !== 'function') throw new TypeError('nft: expected a handle with commit(tx)');
  const bit = o.masqueradeBit ?? 14;
  if (!Number.isInteger(bit) || bit < 0 || bit > 31) throw new RangeError(`masqueradeBit: must be an integer in 0..31, got ${bit}`);
  const families = o.families ?? HELPER_FAMILIES;
  for (const f of families) if (!HELPER_FAMILIES.includes(f)) throw new RangeError(`families: unknown family '${String(f)}'`);
  if (o.conntrackTCPLiberal !== undefined && typeof o.conntrackTCPLiberal !== 'boolean') throw new TypeError('conntrackTCPLiberal: expected a boolean');
  return {
    nft: o.nft,
    mark: (2 ** bit) >>> 0,
    masqueradeAll: o.masqueradeAll ?? false,
    localDetector: o.localDetector ?? { mode: 'None' },
    families: [...new Set(families)],
    dropInvalid: o.conntrackTCPLiberal !== true,
  };
}

/** One family's settings for a sync. */
export interface FamilyContext {
  family: HelperFamily;
  mark: number;
  masqueradeAll: boolean;
  /** Drop forwarded packets conntrack finds INVALID (upstream's KUBE-FORWARD rule). */
  dropInvalid: boolean;
  detector: ResolvedDetector;
  /** The node's own IPs of this family (loadBalancerSourceRanges that contain one let the node in). */
  nodeIPs: readonly string[];
  /** NodePort addresses of this family. */
  nodePortIPs: readonly string[];
  /** Addresses that are the node's own, so never bound to kube-ipvs0 (upstream's nodeAddressSet). */
  nodeAddresses: ReadonlySet<string>;
}

export function familyOfIp(ip: string): HelperFamily | null {
  const v = ipVersionOf(ip);
  return v === 4 ? 'ip' : v === 6 ? 'ip6' : null;
}

export function familyContext(o: ResolvedOptions, family: HelperFamily, snapshot: ProxySnapshot, nodePortIPs: readonly string[]): FamilyContext {
  const mine = (ips: readonly string[]) => [...new Set(ips.filter((ip) => familyOfIp(ip) === family))].sort();
  const nodeIPs = mine(snapshot.node.ips);
  const ports = mine(nodePortIPs);
  return {
    family,
    mark: o.mark,
    masqueradeAll: o.masqueradeAll,
    dropInvalid: o.dropInvalid,
    detector: resolveDetector(o.localDetector, family, snapshot.node.podCIDRs),
    nodeIPs,
    nodePortIPs: ports,
    nodeAddresses: new Set([...nodeIPs, ...ports]),
  };
}

/** Equal keys: the same rules and the same elements for the same ServicePorts. */
export function contextKey(c: FamilyContext): string {
  return JSON.stringify([c.family, c.mark, c.masqueradeAll, c.dropInvalid, c.detector, c.nodeIPs, c.nodePortIPs]);
}
