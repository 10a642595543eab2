// Warnings to log once (level warn) when the proxy starts with a configuration: each mode says what it
// has to say (IPVS: its deprecation).
import { BLANK_MODE_MEANS, MODES } from './modes';
import { noEffectNotice } from './no-effect';
import type { KubeProxyConfiguration } from './types';

export function startupWarnings(config: KubeProxyConfiguration): string[] {
  return MODES.flatMap((m) => m.startupWarnings?.({ mode: config.mode }) ?? []);
}

/** What to log once (level info) when the proxy starts: the mode chosen for a blank `mode`, and the
 *  flags given that have no effect here (CommandLine.flagsWithoutEffect), in one line. */
export function startupNotices(config: Pick<KubeProxyConfiguration, 'mode'>, flagsWithoutEffect: readonly string[] = []): string[] {
  const flags = noEffectNotice(flagsWithoutEffect);
  return [...blankModeNotice(config), ...(flags ? [flags] : [])];
}

function blankModeNotice(config: Pick<KubeProxyConfiguration, 'mode'>): string[] {
  if (config.mode !== '') return [];
  return [`mode is unset: running the ${BLANK_MODE_MEANS} mode (upstream's default, iptables, is not provided by kube-proxy-native; set mode: ${BLANK_MODE_MEANS} to say so)`];
}
