// detectLocalMode and detectLocal as the detect-local matches every mode's rules use (src/native).
import type { KubeProxyConfiguration } from '../config';
import type { LocalDetectorOptions } from '../native';

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
