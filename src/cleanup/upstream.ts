// --cleanup's part for what upstream kube-proxy's iptables and IPVS modes left: their iptables-nft
// chains (upstream-iptables.ts), then their ipsets (upstream-ipsets.ts, once no rule of theirs
// matches them), then a look for iptables-legacy tables, which netlink cannot clean
// (upstream-legacy.ts): a warning with the commands to run, never a failure.
import type { Log } from '../base/log';
import { destroyIpsets, Nft } from '../native';
import { cleanupUpstreamIpsets, type UpstreamIpsetResult } from './upstream-ipsets';
import { cleanupUpstreamIptables, type UpstreamIptablesResult } from './upstream-iptables';
import { legacyCleanupCommands, legacyTables, type LegacyTables } from './upstream-legacy';

export interface UpstreamCleanupResult {
  iptables: UpstreamIptablesResult;
  ipsets: UpstreamIpsetResult;
  legacy: LegacyTables & { commands: string[] };
}

export interface UpstreamCleanupOptions {
  netns?: string;
  /** The namespace's /proc/net, for the legacy tables; default /proc/net (the process's own). */
  procNet?: string;
  log: Pick<Log, 'info' | 'warn' | 'error'>;
}

export function upstreamCleanupFailures(r: UpstreamCleanupResult): { what: string; error: string }[] {
  return [...r.iptables.failed, ...r.ipsets.failed];
}

export async function cleanupUpstream(opts: UpstreamCleanupOptions): Promise<UpstreamCleanupResult> {
  const where = opts.netns ? { netns: opts.netns } : undefined;
  const nft = Nft.open(where);
  let iptables: UpstreamIptablesResult;
  try {
    iptables = await cleanupUpstreamIptables(nft, opts.log);
  } finally {
    nft.close();
  }
  const ipsets = await cleanupUpstreamIpsets((names) => destroyIpsets(names, where ?? {}), opts.log);
  return { iptables, ipsets, legacy: checkLegacy(opts) };
}

function checkLegacy(opts: UpstreamCleanupOptions): UpstreamCleanupResult['legacy'] {
  const tables = legacyTables(opts.procNet);
  const commands = legacyCleanupCommands(tables);
  if (commands.length > 0) {
    opts.log.warn({ ipv4Tables: tables.ipv4, ipv6Tables: tables.ipv6, commands },
      'iptables-legacy tables exist; --cleanup cannot reach them over netlink. If upstream kube-proxy ran with '
      + 'iptables-legacy, run these commands to remove its chains (other rules stay), then --cleanup again for its ipsets');
  }
  return { ...tables, commands };
}
