// The defaults upstream applies after loading a config file or the flags, whatever the version
// (cmd/kube-proxy/app/server_linux.go platformApplyDefaults): they are part of the effective
// configuration, so --write-config-to and /configz show them, as upstream's do.
// `mode` is left as given: a blank mode stays blank and means nftables here (see startup.ts).
import { effectiveMode } from './effective';
import type { KubeProxyConfiguration } from './types';

/** upstream proxyconfigapi.NodePortAddressesPrimary */
export const NODE_PORT_ADDRESSES_PRIMARY = 'primary';

type Defaulted = Pick<KubeProxyConfiguration, 'mode' | 'detectLocalMode' | 'nodePortAddresses'>;

/** Fills in, in place: detectLocalMode ClusterCIDR when blank; nodePortAddresses ["primary"] when
 *  unset in nftables mode (the IPVS mode keeps "unset = every local address", as upstream's). */
export function applyPlatformDefaults(config: Defaulted): void {
  if (config.detectLocalMode === '') config.detectLocalMode = 'ClusterCIDR';
  if (effectiveMode(config) === 'nftables' && config.nodePortAddresses.length === 0) {
    config.nodePortAddresses = [NODE_PORT_ADDRESSES_PRIMARY];
  }
}
