// Maps the effective configuration onto the nftables proxier's options. The wiring layer is the one
// place that reads both the mode-independent settings and the nftables section.
import type { KubeProxyConfiguration } from '../config';
import type { LocalDetectorOptions, NftablesProxierOptions } from '../proxier/nftables';
import type { IPFamily } from '../core/types';
import { nftFamily } from './families';

export function localDetectorFrom(config: Pick<KubeProxyConfiguration, 'detectLocalMode' | 'detectLocal'>): LocalDetectorOptions {
  switch (config.detectLocalMode) {
    case 'ClusterCIDR':
      return config.detectLocal.clusterCIDRs.length > 0 ? { mode: 'ClusterCIDR', cidrs: config.detectLocal.clusterCIDRs } : { mode: 'None' };
    case 'NodeCIDR':
      return { mode: 'NodeCIDR', cidrs: [] };
    case 'BridgeInterface':
      return { mode: 'BridgeInterface', interface: config.detectLocal.bridgeInterface };
    case 'InterfaceNamePrefix':
      return { mode: 'InterfaceNamePrefix', prefix: config.detectLocal.interfaceNamePrefix };
    default:
      return { mode: 'None' };
  }
}

export function nftablesOptionsFrom(
  config: KubeProxyConfiguration,
  families: IPFamily[],
  rest: Pick<NftablesProxierOptions, 'nft' | 'log' | 'metrics' | 'beforeElementsCopied' | 'whileStaging'>,
): NftablesProxierOptions {
  return {
    ...rest,
    families: families.map(nftFamily),
    masqueradeBit: config.nftables.masqueradeBit,
    masqueradeAll: config.linux.masqueradeAll,
    localDetector: localDetectorFrom(config),
    nodePortAddresses: config.nodePortAddresses,
    nodeIPs: config.nodeIPOverride,
  };
}
