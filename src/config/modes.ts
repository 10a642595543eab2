// The one place where the configuration core meets the proxy modes: it lists each mode's config
// module (src/proxier/<mode>/config.ts, a leaf module that imports only src/config contracts) and
// composes them. Nothing else in src/config imports src/proxier; test/architecture enforces it.
import type { ModeConfig } from './mode-section';
import { iptablesConfig, IPTablesConfig } from '../proxier/iptables/config';
import { ipvsConfig, IPVSConfig } from '../proxier/ipvs/config';
import { nftablesConfig, NFTablesConfig } from '../proxier/nftables/config';

export interface ModeSections {
  iptables: IPTablesConfig;
  ipvs: IPVSConfig;
  nftables: NFTablesConfig;
}

export type ModeName = keyof ModeSections;

export const MODES: ReadonlyArray<ModeConfig<any>> = [iptablesConfig, ipvsConfig, nftablesConfig];

/** The proxy modes kube-proxy-native can run (iptables exists only as a config section). */
export const RUNNABLE_MODES: ReadonlyArray<ModeName> = ['nftables', 'ipvs'];

/** What a blank `mode` means here: upstream picks iptables, we pick its successor. */
export const BLANK_MODE_MEANS: ModeName = 'nftables';
