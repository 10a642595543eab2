// The commands that compile the nftables mode's ruleset without running the proxy (`--dry-run`,
// `explain`) refuse another configured mode with one message that says how to ask for nftables.
import { effectiveMode, type KubeProxyConfiguration } from '../config';

export function requireNftablesMode(config: KubeProxyConfiguration, what: string): void {
  const mode = effectiveMode(config);
  if (mode === 'nftables') return;
  throw new Error(`${what} the nftables mode's ruleset only, and the configured proxy mode is ${JSON.stringify(mode)} `
    + '(run it with --proxy-mode=nftables, or mode: nftables in the configuration file)');
}
