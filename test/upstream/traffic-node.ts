// A tier node with traffic: the node of node.ts (its link to the control plane, its Node object),
// plus the host traffic tests' client and pods joined to it (test/helpers/topology.ts): the client
// 198.18.0.2 on a link of its own, pods 100.96.1.N routed /32 like a ptp CNI, each with an echo
// server on 8080 that answers "<pod> <source seen>". Our proxy runs on it in nftables mode as the
// tier runs it (the installed command, its own config file and kubeconfig).
// The client routes the real ServiceCIDR (10.96.0.0/16, where kube-apiserver allocates ClusterIPs)
// and the node's InternalIP (the NodePort address: nodePortAddresses defaults to "primary") through
// the node, as an off-cluster client would. Everything lives in namespaces made here.
import { NODE_IP, POD_CIDR, Topology } from '../helpers/topology';
import { ZONE_LABEL } from './controller-slices';
import type { Tier } from './harness';
import { kubectl } from './kubectl';
import { writeKubeconfig } from './kubeconfig';
import type { TierNode } from './node';
import type { ProxyProcess } from './proxy-process';

/** kube-apiserver's --service-cluster-ip-range (scripts/upstream/control-plane.sh). */
export const SERVICE_CIDR = '10.96.0.0/16';
export const ZONE = 'zone-a';

export interface TrafficNode {
  node: TierNode;
  topo: Topology;
  /** The running proxy (a new one after restart()). */
  proxy: ProxyProcess;
  /** Stops the proxy (which leaves the kernel as it is) and starts a new one; resolves after its first sync. */
  restart(): Promise<void>;
}

/**
 * The config our proxy runs with here: pods are "local" by the ClusterCIDR 100.96.0.0/16, so
 * off-cluster traffic to a ClusterIP is masqueraded and pod traffic is not.
 */
const CONFIG = `detectLocal: {clusterCIDRs: [${JSON.stringify(POD_CIDR)}]}`;

export async function trafficNode(tt: Tier, pods: number): Promise<TrafficNode> {
  const node = tt.node();
  // The control plane is reached by a route of its own: Topology makes the client the default route,
  // as on the host tests' node (unprogrammed virtual IPs then die at the client, not in routing).
  const gw = /default via (\S+)/.exec(node.ns.exec('ip', ['route', 'show', 'default']))?.[1];
  if (!gw) throw new Error(`${node.name} has no default route to the control plane`);
  // Topology names the client's link eth0 on the node: the control plane's link becomes cp0 (renamed
  // while down, which drops its routes; the one needed is added back below).
  for (const args of [['set', 'eth0', 'down'], ['set', 'eth0', 'name', 'cp0'], ['set', 'cp0', 'up']]) node.ns.exec('ip', ['link', ...args]);
  node.ns.exec('ip', ['route', 'add', tt.cp.server.replace(/^https:\/\/|:\d+$/g, ''), 'via', gw]);
  const topo = Topology.around(node.ns, pods, 'kpu');
  tt.defer(() => topo.destroy());
  for (const dst of [SERVICE_CIDR, `${node.ip}/32`]) topo.client.exec('ip', ['route', 'add', dst, 'via', NODE_IP]);
  await topo.startServers([8080]);
  kubectl(['label', 'node', node.name, `${ZONE_LABEL}=${ZONE}`]);

  // The admin's token: the opt-out needs the Namespace list, which system:node-proxier lacks
  // (node-proxier.test.ts) and deploy.test.ts checks deploy/'s own role.
  const kubeconfig = writeKubeconfig({ token: tt.cp.adminToken });
  const tn: TrafficNode = {
    node, topo,
    proxy: tt.proxy(node, { kubeconfig, configYaml: CONFIG }),
    async restart() {
      await tn.proxy.stop();
      tn.proxy = tt.proxy(node, { kubeconfig, configYaml: CONFIG });
      await tn.proxy.firstSync();
    },
  };
  await tn.proxy.firstSync();
  return tn;
}

/** `nft list ruleset ip` in the node: for assertions and their messages. */
export function ruleset(tn: TrafficNode): string {
  return tn.node.ns.nft('list', 'ruleset', 'ip');
}

/** Syncs so far (kubeproxy_sync_proxy_rules_duration_seconds_count). */
export function syncs(tn: TrafficNode): number {
  return tn.proxy.metric('kubeproxy_sync_proxy_rules_duration_seconds_count');
}

/** The Node object of another node (no proxy, no namespace): where "remote" endpoints run. */
export function remoteNodeObject(tt: Tier, name: string, ip: string): void {
  const manifest = {
    apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, [ZONE_LABEL]: 'zone-b' } },
    status: { addresses: [{ type: 'InternalIP', address: ip }, { type: 'Hostname', address: name }] },
  };
  kubectl(['apply', '-f', '-'], { input: JSON.stringify(manifest) });
  tt.defer(() => { kubectl(['delete', 'node', name, '--wait=false']); });
}
