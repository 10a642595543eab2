// The proxy mode a configuration runs: blank means nftables here (upstream: iptables).
import { BLANK_MODE_MEANS, ModeName } from './modes';
import type { KubeProxyConfiguration } from './types';

export function effectiveMode(config: Pick<KubeProxyConfiguration, 'mode'>): ModeName {
  return (config.mode === '' ? BLANK_MODE_MEANS : config.mode) as ModeName;
}
