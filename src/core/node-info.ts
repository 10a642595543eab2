// V1Node -> NodeInfo: the few Node facts the proxy uses (labels for topology, IPs, pod CIDRs).
import type { V1Node } from '@kubernetes/client-node';
import { ipFamilyOf } from './ip';
import type { IPFamily, NodeInfo } from './types';
import { ZONE_LABEL } from './endpoint-selection';
import { isObject, listOf, stringsOf } from './shape';

/** NodeInfo for a node we know nothing about yet (or that was deleted). */
export function emptyNodeInfo(name: string): NodeInfo {
  return { name, labels: {}, ips: [], podCIDRs: [] };
}

/**
 * Primary IPs: per family, the first InternalIP, else the first ExternalIP (upstream's
 * GetNodeHostIPs order), listed in `families` order.
 */
export function nodeInfoFromNode(name: string, node: V1Node | undefined, families: readonly IPFamily[]): NodeInfo {
  if (!node) return emptyNodeInfo(name);
  const addrs = listOf<{ type?: string; address: string }>(node.status?.addresses).filter((a) => isObject(a) && typeof a.address === 'string');
  const ordered = [
    ...addrs.filter((a) => a.type === 'InternalIP'),
    ...addrs.filter((a) => a.type === 'ExternalIP'),
  ];
  const ips: string[] = [];
  for (const family of families) {
    const hit = ordered.find((a) => ipFamilyOf(a.address) === family);
    if (hit) ips.push(hit.address);
  }
  const spec = node.spec ?? {};
  const listed = stringsOf(spec.podCIDRs);
  const podCIDRs = listed.length > 0 ? listed : typeof spec.podCIDR === 'string' && spec.podCIDR ? [spec.podCIDR] : [];
  const labels = isObject(node.metadata?.labels) ? { ...node.metadata!.labels } : {};
  return { name, labels, ips, podCIDRs };
}

export function zoneOf(node: NodeInfo): string {
  return node.labels[ZONE_LABEL] ?? '';
}
