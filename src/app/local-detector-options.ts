// detectLocalMode and detectLocal as the detect-local matches every mode's rules use (src/native).
import type { KubeProxyConfiguration } from '../config';
import type { IPFamily } from '../core/types';
import type { LocalDetectorOptions } from '../policy/local-detector';

export function localDetectorFrom(config: Pick<KubeProxyConfiguration, 'detectLocalMode' | 'detectLocal'>): LocalDetectorOptions {
  switch (config.detectLocalMode) {
    case 'ClusterCIDR':
      // A family without a CIDR in the list detects nothing (resolveDetector), as upstream's no-op detector.
      return { mode: 'ClusterCIDR', cidrs: config.detectLocal.clusterCIDRs };
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

export interface LocalDetectorNotice {
  msg: string;
  fields: { ipFamily: IPFamily; clusterCIDRs: string[] };
}

/** Upstream getLocalDetectors (cmd/kube-proxy/app/server_linux.go) logs this once, at info level, when
 *  ClusterCIDR mode has no CIDR of the primary family: local traffic of that family is not detected. */
export function localDetectorNotice(config: Pick<KubeProxyConfiguration, 'detectLocalMode' | 'detectLocal'>,
  primary: IPFamily): LocalDetectorNotice | null {
  if (config.detectLocalMode !== 'ClusterCIDR') return null;
  const cidrs = config.detectLocal.clusterCIDRs;
  if (cidrs.some((c) => c.includes(':') === (primary === 'IPv6'))) return null;
  return {
    msg: 'Detect-local-mode set to ClusterCIDR, but no cluster CIDR specified for primary IP family',
    fields: { ipFamily: primary, clusterCIDRs: [...cidrs] },
  };
}
