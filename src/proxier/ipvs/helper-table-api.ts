// The seam between the IPVS proxier (virtual services, real servers, kube-ipvs0 addresses) and the
// mode's own nftables table (masquerade marks, NodePort and external handling, source ranges,
// reject and drop): the proxier calls it once per sync, after its IPVS changes, with the same
// snapshot. The table is this mode's own (`kube-proxy-ipvs`); the nftables mode's code is not used.
import type { ProxySnapshot } from '../../core/types';

export interface HelperTableSyncInput {
  snapshot: ProxySnapshot;
  /** Keys of the ServicePorts whose Service or endpoints changed since the last successful sync. */
  changed: ReadonlySet<string>;
  /** Removed ServicePorts, as they were (their elements must go). */
  removed: ReadonlyMap<string, import('../../core/types').ServicePort>;
  /** Rewrite the whole table in one transaction (start-up, repair, the periodic full sync). */
  full: boolean;
  /** The node addresses NodePorts are served on (nodePortAddresses applied), both families. */
  nodePortIPs: readonly string[];
}

export interface HelperTable {
  /** Commits what this sync changes; rejects (NetlinkError) when the kernel refuses it, leaving the table as it was. */
  sync(input: HelperTableSyncInput): Promise<void>;
}
