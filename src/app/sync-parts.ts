// The parts that keep the kernel in step with the model, wired to each other: the nftables proxier
// (committing through the guard), the sync loop around it, the bounded-frequency runner that calls the
// loop, the guard that asks the runner for repairs, and the health-check node ports the loop opens.
// Nothing here starts: startProxy starts the guard, and the first complete list starts the runner.
import type { KubeProxyConfiguration } from '../config';
import { ConntrackCleanup } from '../conntrack';
import type { ProxyState } from '../core';
import type { IPFamily } from '../core/types';
import type { ProxyHealth } from '../health/proxy-health';
import { ServiceHealthServer } from '../health/service-health';
import type { Log } from '../base/log';
import type { ProxyMetrics } from '../metrics/proxy-metrics';
import { ConntrackClient, type Nft, type Transaction } from '../native';
import { guardedTables, NftablesProxier, type NftablesMetrics } from '../proxier/nftables';
import { BoundedFrequencyRunner } from '../runner/bounded-frequency-runner';
import { systemClock } from '../base/clock';
import { nftFamily } from './families';
import { nftablesOptionsFrom } from './nftables-options';
import { GrowthWatch } from './memory-growth';
import { gcBeforeLargeCommits, gcBeforeLargeElementCopies, gcWhileStaging, releaseMemoryLogged } from './release-memory';
import { RulesetGuard } from './ruleset-guard';
import { SyncLoop } from './sync-loop';

export interface SyncInputs {
  config: KubeProxyConfiguration;
  log: Log;
  /** The network namespace the kernel side works in (undefined: our own). */
  netns?: string;
  healthCheckAddresses?: string[];
  families: IPFamily[];
  metrics: ProxyMetrics;
  health: ProxyHealth;
  state: ProxyState;
  nft: Nft;
}

export interface SyncParts {
  proxier: NftablesProxier;
  serviceHealth: ServiceHealthServer;
  loop: SyncLoop;
  runner: BoundedFrequencyRunner;
  guard: RulesetGuard;
}

export function syncParts(i: SyncInputs): SyncParts {
  // The proxier commits through the guard, and the guard's repairs go to the proxier: made in turn.
  let guard: RulesetGuard;
  const commit = gcBeforeLargeCommits((tx) => guard.commitQuietly(i.nft, tx), () => releaseMemoryLogged(i.log, 'before a large commit'));
  const proxier = nftablesProxier(i, commit);
  const serviceHealth = new ServiceHealthServer({
    addresses: i.healthCheckAddresses, proxyHealthy: () => i.health.report().healthy, log: i.log,
  });
  const loop = new SyncLoop({
    state: i.state, proxier, families: i.families, metrics: i.metrics, health: i.health, serviceHealth, log: i.log,
    conntrack: new ConntrackCleanup(new ConntrackClient({ netns: i.netns ?? null })),
    releaseMemory: (when) => releaseMemoryLogged(i.log, when),
    growth: new GrowthWatch({
      readBytes: () => process.memoryUsage.rss(), nowMs: () => performance.now(),
      release: (idle) => releaseMemoryLogged(i.log, idle ? 'idle, after memory grew' : 'busy, after memory grew'),
    }),
  });
  const runner = syncRunner(i.config, loop, i.log);
  guard = rulesetGuard(i, proxier, runner);
  return { proxier, serviceHealth, loop, runner, guard };
}

/** Large commits go through `commit` (the guard's), which keeps the kernel from building notifications for them. */
function nftablesProxier(i: SyncInputs, commit: (tx: Transaction) => Promise<unknown>): NftablesProxier {
  const nft = { commit, dumpTable: i.nft.dumpTable.bind(i.nft) };
  const beforeElementsCopied = gcBeforeLargeElementCopies(() => releaseMemoryLogged(i.log, 'before copying a large sync\'s elements'));
  const whileStaging = gcWhileStaging(() => releaseMemoryLogged(i.log, 'while staging a cold start'));
  return new NftablesProxier(nftablesOptionsFrom(i.config, i.families, {
    nft, log: i.log, metrics: proxierMetrics(i.metrics, i.families[0]), beforeElementsCopied, whileStaging,
  }));
}

/** The proxier's counters: one proxier serves every family, so they carry the first family's label. */
function proxierMetrics(m: ProxyMetrics, family: IPFamily): NftablesMetrics {
  return {
    syncFailures: { inc: (v) => m.nftablesSyncFailuresTotal.inc({ ip_family: family }, v ?? 1) },
    refusedServicePorts: { inc: (v) => m.nftablesRefusedServicePortsTotal.inc({ ip_family: family }, v ?? 1) },
    repairs: { inc: ({ reason }) => m.rulesetRepairsTotal.inc({ reason }) },
  };
}

function syncRunner(config: KubeProxyConfiguration, loop: SyncLoop, log: Log): BoundedFrequencyRunner {
  return new BoundedFrequencyRunner({
    clock: systemClock, run: loop.run, minIntervalMs: config.minSyncPeriod, maxIntervalMs: config.syncPeriod,
    onError: (err, n, retryInMs) => log.error({ err: String(err), consecutiveFailures: n, retryInMs }, 'Sync failed; retrying'),
  });
}

/** Watches our tables for other processes' changes; a change to our rules makes the next sync a repair. */
function rulesetGuard(i: SyncInputs, proxier: NftablesProxier, runner: BoundedFrequencyRunner): RulesetGuard {
  return new RulesetGuard({
    netns: i.netns, tables: guardedTables(i.families.map(nftFamily)), ownPortIds: () => [i.nft.portId], clock: systemClock, log: i.log,
    foreignChange: () => i.metrics.rulesetForeignChangesTotal.inc(),
    repair: (reasons) => {
      for (const r of reasons) proxier.markDirty(r);
      runner.run();
    },
  });
}
