// Maps the effective configuration onto the nftables proxier's options. The wiring layer is the one
// place that reads both the mode-independent settings and the nftables section.
import type { KubeProxyConfiguration } from '../config';
import type { CompileOptions, NftablesProxierOptions } from '../proxier/nftables';
import { localDetectorFrom } from './local-detector-options';
import type { IPFamily } from '../core/types';
import { nftFamily } from './families';

export function nftablesOptionsFrom(
  config: KubeProxyConfiguration,
  families: IPFamily[],
  rest: Pick<NftablesProxierOptions, 'nft' | 'log' | 'metrics' | 'beforeElementsCopied' | 'whileStaging' | 'conntrackTCPLiberal'>,
): NftablesProxierOptions {
  return { ...rest, ...nftablesCompileOptions(config, families) };
}

/** What decides the ruleset: the options a dry run compiles with (and the kernel's conntrackTCPLiberal, read apart). */
export function nftablesCompileOptions(config: KubeProxyConfiguration, families: IPFamily[]): Omit<CompileOptions, 'conntrackTCPLiberal'> {
  return {
    families: families.map(nftFamily),
    masqueradeBit: config.nftables.masqueradeBit,
    masqueradeAll: config.linux.masqueradeAll,
    localDetector: localDetectorFrom(config),
    nodePortAddresses: config.nodePortAddresses,
    nodeIPs: config.nodeIPOverride,
  };
}
