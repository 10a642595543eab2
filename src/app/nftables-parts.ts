// The nftables mode's parts: its proxier, committing through the ruleset guard (which keeps the
// kernel from building notifications for large commits), and the guard that watches our tables for
// other processes' changes and makes the next sync a repair.
import type { Log } from '../base/log';
import { systemClock } from '../base/clock';
import type { KubeProxyConfiguration } from '../config';
import type { IPFamily } from '../core/types';
import type { ProxyMetrics } from '../metrics/proxy-metrics';
import type { Nft, Transaction } from '../native';
import { guardedTables, NftablesProxier, type NftablesMetrics } from '../proxier/nftables';
import { nftFamily } from './families';
import { nftablesOptionsFrom } from './nftables-options';
import { gcBeforeLargeCommits, gcBeforeLargeElementCopies, gcWhileStaging, releaseMemoryLogged } from './release-memory';
import { RulesetGuard } from './ruleset-guard';
import type { ModeParts } from './sync-parts';

export interface NftablesPartsInputs {
  config: KubeProxyConfiguration;
  log: Log;
  netns?: string;
  families: IPFamily[];
  metrics: ProxyMetrics;
  nft: Nft;
  /** nf_conntrack_tcp_be_liberal is set (src/app/tcp-be-liberal.ts): no INVALID drop rule. */
  conntrackTCPLiberal?: boolean;
}

export function nftablesParts(i: NftablesPartsInputs): (runSoon: () => void) => ModeParts & { proxier: NftablesProxier; guard: RulesetGuard } {
  return (runSoon) => {
    // The proxier commits through the guard, and the guard's repairs go to the proxier: made in turn.
    let guard: RulesetGuard | undefined;
    const commit = gcBeforeLargeCommits((tx) => guard!.commitQuietly(i.nft, tx), () => releaseMemoryLogged(i.log, 'before a large commit'));
    const proxier = nftablesProxier(i, commit);
    guard = rulesetGuard(i, proxier, runSoon);
    return { proxier, guard };
  };
}

/** Large commits go through `commit` (the guard's), which keeps the kernel from building notifications for them. */
function nftablesProxier(i: NftablesPartsInputs, commit: (tx: Transaction) => Promise<unknown>): NftablesProxier {
  const nft = { commit, dumpTable: i.nft.dumpTable.bind(i.nft), dumpSet: i.nft.dumpSet.bind(i.nft) };
  const beforeElementsCopied = gcBeforeLargeElementCopies(() => releaseMemoryLogged(i.log, 'before copying a large sync\'s elements'));
  const whileStaging = gcWhileStaging(() => releaseMemoryLogged(i.log, 'while staging a cold start'));
  return new NftablesProxier(nftablesOptionsFrom(i.config, i.families, {
    nft, log: i.log, metrics: nftablesProxierMetrics(i.metrics, i.families), beforeElementsCopied, whileStaging,
    conntrackTCPLiberal: i.conntrackTCPLiberal ?? false,
  }));
}

/**
 * The proxier's counters. One proxier serves every family in one transaction, so a failed sync
 * failed for each family it carried: each counts it, as each of upstream's per-family proxiers
 * would. A refused ServicePort is not told apart by family: it carries the first one's label.
 */
export function nftablesProxierMetrics(m: ProxyMetrics, families: readonly IPFamily[]): NftablesMetrics {
  return {
    syncFailures: { inc: (v) => { for (const f of families) m.nftablesSyncFailuresTotal.inc({ ip_family: f }, v ?? 1); } },
    refusedServicePorts: { inc: (v) => m.nftablesRefusedServicePortsTotal.inc({ ip_family: families[0] }, v ?? 1) },
    repairs: { inc: ({ reason }) => m.rulesetRepairsTotal.inc({ reason }) },
  };
}

/** Watches our tables for other processes' changes; a change to our rules makes the next sync a repair. */
function rulesetGuard(i: NftablesPartsInputs, proxier: NftablesProxier, runSoon: () => void): RulesetGuard {
  return new RulesetGuard({
    netns: i.netns, tables: guardedTables(i.families.map(nftFamily)), ownPortIds: () => [i.nft.portId], clock: systemClock, log: i.log,
    foreignChange: () => i.metrics.rulesetForeignChangesTotal.inc(),
    repair: (reasons) => {
      for (const r of reasons) proxier.markDirty(r);
      runSoon();
    },
  });
}
