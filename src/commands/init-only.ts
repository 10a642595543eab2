// --init-only, as upstream's (cmd/kube-proxy/app/options.go Run -> newProxyServer with initOnly): the
// privileged set-up only, then exit 0. That is the conntrack sysctls (platformSetup -> setupConntrack),
// then what the mode's proxier does before its own initOnly return: nftables checks that nftables works
// (getNFTablesInterface), IPVS opens IPVS and sets its sysctls and timeouts (NewProxier). No API server,
// no rules, no servers, no OOM score (upstream applies that in Run, which --init-only never reaches).
import type { Log } from '../base/log';
import { effectiveMode, type KubeProxyConfiguration } from '../config';
import type { SysctlOptions } from '../conntrack';
import { Nft } from '../native';
import { runConntrackSetup } from '../app/conntrack-setup';
import { openIpvsKernel } from '../app/ipvs-parts';

export interface InitOnlyOptions {
  config: KubeProxyConfiguration;
  log: Log;
  /** Where the conntrack sysctls are read and written (tests); default the real /proc/sys and /sys. */
  sysctl?: SysctlOptions;
}

/** Throws (with the reason) where upstream's --init-only exits non-zero. */
export async function runInitOnly(o: InitOnlyOptions): Promise<void> {
  runConntrackSetup(o.config.linux.conntrack, o.log, o.sysctl);
  if (effectiveMode(o.config) === 'ipvs') {
    (await openIpvsKernel({ config: o.config, log: o.log })).close();
  } else {
    const nft = Nft.open();
    try {
      await nft.listTables();
    } catch (e) {
      throw new Error(`nftables is not available on this host: ${(e as Error).message}`);
    } finally {
      nft.close();
    }
  }
  o.log.info({}, 'System initialized and --init-only specified');
}
