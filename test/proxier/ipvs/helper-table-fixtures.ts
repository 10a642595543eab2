// Builders for the IPVS helper table's tests: ServicePorts, endpoints, snapshots, sync inputs.
import type { NodeInfo, ServicePort } from '../../../src/core/types';
import { node, snapshot, type Entry } from '../../helpers/service-fixtures';
import type { HelperTableSyncInput } from '../../../src/proxier/ipvs/helper-table-api';

export { servicePort as sp, ep, selected, node, snapshot, type Entry } from '../../helpers/service-fixtures';

export function fullInput(entries: Entry[], nodePortIPs: string[] = ['192.168.0.2', 'fd00::2'], n: NodeInfo = node): HelperTableSyncInput {
  return { snapshot: snapshot(entries, n), changed: new Set(), removed: new Map(), full: true, nodePortIPs };
}

export function partialInput(entries: Entry[], changed: string[], removed: ServicePort[] = [], nodePortIPs: string[] = ['192.168.0.2', 'fd00::2']): HelperTableSyncInput {
  return {
    snapshot: snapshot(entries), changed: new Set(changed), removed: new Map(removed.map((s) => [s.key, s])), full: false, nodePortIPs,
  };
}
