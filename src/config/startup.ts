// Warnings to log once (level warn) when the proxy starts with a configuration: each mode says what it
// has to say (IPVS: its deprecation).
import { MODES } from './modes';
import type { KubeProxyConfiguration } from './types';

export function startupWarnings(config: KubeProxyConfiguration): string[] {
  return MODES.flatMap((m) => m.startupWarnings?.({ mode: config.mode }) ?? []);
}
