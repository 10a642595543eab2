// Small builders for ServicePorts, endpoints and snapshots used by the nftables proxier tests.
import { silentLog } from '../../../src/base/log';
import type { ChangeSet, Endpoint, ServicePort } from '../../../src/core/types';
import { buildContext, type ContextInputs } from '../../../src/proxier/nftables/context';
import type { NftablesProxierOptions } from '../../../src/proxier/nftables';
import type { NftFamily } from '../../../src/proxier/nftables/desired';
import { ep, node, servicePort } from '../../helpers/service-fixtures';

export { ep, selected, node, snapshot } from '../../helpers/service-fixtures';

/** The shared ServicePort with a key without its family (`ns1/<name>:p80/TCP`): the names these tests expect hash it. */
export function sp(name: string, over: Partial<ServicePort> = {}): ServicePort {
  return servicePort(name, { key: `ns1/${name}:p80/TCP`, ...over });
}

export const defaultInputs: ContextInputs = {
  masqueradeBit: 14, masqueradeAll: false, localDetector: { mode: 'ClusterCIDR', cidrs: ['10.0.0.0/16', 'fd00:10::/48'] },
  nodePortAddresses: [], nodeIPs: [], serviceCIDRs: [],
};

export function ctx(over: Partial<ContextInputs> = {}, family: NftFamily = 'ip') {
  return buildContext({ ...defaultInputs, ...over }, family, node);
}

export const quietLog = silentLog;

export function changed(...keys: string[]): ChangeSet {
  return { services: new Set(keys), removedEndpoints: new Map() };
}

/** The proxier's options in these tests: both families, ClusterCIDR detection, quiet. */
export function proxierOptions(nft: NftablesProxierOptions['nft'], over: Partial<NftablesProxierOptions> = {}): NftablesProxierOptions {
  return {
    nft, families: ['ip', 'ip6'], masqueradeBit: 14, masqueradeAll: false,
    localDetector: { mode: 'ClusterCIDR', cidrs: ['10.0.0.0/16', 'fd00:10::/48'] },
    // One transaction per sync, whatever the kernel holds: the cold start's staging has tests of its own (staging.test.ts).
    nodePortAddresses: [], nodeIPs: [], log: quietLog, stageBytes: 0, ...over,
  };
}

/** Four ServicePorts that cover the ruleset's shapes: NodePort, LoadBalancer with source ranges, affinity, IPv6. */
export function fourServices() {
  const svc1 = sp('svc1', { nodePort: 30080 });
  const svc2 = sp('svc2', { clusterIP: '172.30.0.42', loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24'] });
  const svc3 = sp('svc3', { clusterIP: '172.30.0.43', affinityTimeoutSeconds: 600 });
  const svc6 = sp('svc6', { key: 'ns1/svc6:p80/TCP', family: 'IPv6', clusterIP: 'fd00:30::41' });
  const entries: [ServicePort, Endpoint[]][] = [
    [svc1, [ep('10.180.0.1'), ep('10.180.0.2')]],
    [svc2, [ep('10.180.1.1', 8080)]],
    [svc3, [ep('10.180.2.1'), ep('10.180.2.2')]],
    [svc6, [ep('fd00:10::1')]],
  ];
  return { svc1, svc2, svc3, svc6, entries };
}

/** fourServices and 60 more, some with affinity (chains of their own), NodePorts, or more than 4 endpoints. */
export function manyServices(): [ServicePort, Endpoint[]][] {
  const out = [...fourServices().entries];
  for (let i = 0; i < 60; i++) {
    const s = sp(`many${i}`, { clusterIP: `172.30.2.${i + 1}`, ...(i % 7 === 0 ? { affinityTimeoutSeconds: 300 } : {}), ...(i % 5 === 0 ? { nodePort: 31000 + i } : {}) });
    // Every sixth one has 5 to 7 endpoints: past SELECT_RULES_MAX, through the count-bit tests.
    const more = i % 6 === 1 ? Array.from({ length: 2 + (i % 4) }, (_, j) => ep(`10.180.${5 + j}.${i + 1}`)) : [];
    out.push([s, [ep(`10.180.2.${i + 1}`), ep(`10.180.3.${i + 1}`), ep(`10.180.4.${(i % 3) + 1}`), ...more]]);
  }
  return out;
}
