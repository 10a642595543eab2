// Which IP families this proxy serves. Upstream runs a proxier per family the node supports; both are
// always available on Linux, so both run unless ipFamilyPolicy asks for a single stack, in which case
// the primary family (of the first nodeIPOverride, else IPv4) runs alone.
import type { IPFamily } from '../core/types';
import type { KubeProxyConfiguration } from '../config';

export function servedFamilies(config: Pick<KubeProxyConfiguration, 'ipFamilyPolicy' | 'nodeIPOverride'>): IPFamily[] {
  const primary: IPFamily = config.nodeIPOverride[0]?.includes(':') ? 'IPv6' : 'IPv4';
  if (config.ipFamilyPolicy === 'SingleStack') return [primary];
  return primary === 'IPv4' ? ['IPv4', 'IPv6'] : ['IPv6', 'IPv4'];
}

export const nftFamily = (f: IPFamily): 'ip' | 'ip6' => (f === 'IPv4' ? 'ip' : 'ip6');
