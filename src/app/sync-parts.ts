// The parts that keep the kernel in step with the model, wired to each other: the proxy mode's parts
// (its proxier and, for nftables, the guard that asks for repairs: nftables-parts.ts, ipvs-parts.ts),
// the sync loop around the proxier, the bounded-frequency runner that calls the loop, and the
// health-check node ports the loop opens. Nothing here starts: startProxy starts the guard, and the
// first complete list starts the runner.
import type { KubeProxyConfiguration } from '../config';
import { ConntrackCleanup } from '../conntrack';
import type { ProxyState } from '../core';
import type { IPFamily, Proxier } from '../core/types';
import type { ProxyHealth } from '../health/proxy-health';
import * as os from 'node:os';
import { healthCheckAddresses } from '../health/health-check-addresses';
import { ServiceHealthServer } from '../health/service-health';
import type { Log } from '../base/log';
import type { ProxyMetrics } from '../metrics/proxy-metrics';
import type { ConntrackClient } from '../native';
import { BoundedFrequencyRunner } from '../runner/bounded-frequency-runner';
import { systemClock } from '../base/clock';
import { reportClaims } from './claim-reports';
import { GrowthWatch } from './memory-growth';
import { releaseMemoryLogged } from './release-memory';
import type { RulesetGuard } from './ruleset-guard';
import { SyncLoop } from './sync-loop';

export interface SyncInputs {
  config: KubeProxyConfiguration;
  log: Log;
  /** The network namespace the kernel side works in (undefined: our own). */
  netns?: string;
  /** Where the health-check node ports listen; default: what nodePortAddresses selects. */
  healthCheckAddresses?: string[];
  nodeName?: string;
  /** A health-check node port could not be opened (upstream's FailedToStartServiceHealthcheck). */
  onServiceHealthFailure?: (service: { namespace: string; name: string }, message: string) => void;
  /** A Service's claim on an address another Service owns was refused (kube-events.ts recordClaimRefused). */
  onClaimRefused?: (service: { namespace: string; name: string; uid?: string }, message: string) => void;
  families: IPFamily[];
  metrics: ProxyMetrics;
  health: ProxyHealth;
  state: ProxyState;
  /** The namespace's conntrack (the stale-flow clean-up deletes through it). */
  conntrack: ConntrackClient;
}

/** What a proxy mode brings: its proxier, and a guard when it watches its rules for tampering. */
export interface ModeParts {
  proxier: Proxier;
  guard?: RulesetGuard;
}

export interface SyncParts extends ModeParts {
  serviceHealth: ServiceHealthServer;
  loop: SyncLoop;
  runner: BoundedFrequencyRunner;
}

/** `mode` makes the mode's parts; `runSoon` asks the runner for a sync (a guard's repair). */
export function syncParts(i: SyncInputs, mode: (runSoon: () => void) => ModeParts): SyncParts {
  let runner: BoundedFrequencyRunner | undefined;
  const { proxier, guard } = mode(() => runner?.run());
  const serviceHealth = new ServiceHealthServer({
    addresses: i.healthCheckAddresses ?? (() => nodePortListenAddresses(i)),
    proxyHealthy: () => i.health.report().healthy, log: i.log,
    nodeName: i.nodeName, onFailedToStart: i.onServiceHealthFailure,
  });
  const loop = new SyncLoop({
    state: i.state, proxier, families: i.families, metrics: i.metrics, health: i.health, serviceHealth, log: i.log,
    conntrack: new ConntrackCleanup(i.conntrack),
    claims: (changes, current) => reportClaims({ log: i.log, metrics: i.metrics, onRefused: i.onClaimRefused }, changes, current),
    releaseMemory: (when) => releaseMemoryLogged(i.log, when),
    growth: new GrowthWatch({
      readBytes: () => process.memoryUsage.rss(), nowMs: () => performance.now(),
      release: (idle) => releaseMemoryLogged(i.log, idle ? 'idle, after memory grew' : 'busy, after memory grew'),
    }),
  });
  runner = syncRunner(i.config, loop, i.log);
  return { proxier, guard, serviceHealth, loop, runner };
}

/** Read when a Service's port opens: the node's IPs (for `primary`) are known by the first sync. */
function nodePortListenAddresses(i: SyncInputs): string[] {
  const nodeIPs = i.config.nodeIPOverride.length > 0 ? i.config.nodeIPOverride : i.state.snapshot().node.ips;
  const interfaceAddresses = Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address));
  return healthCheckAddresses({ nodePortAddresses: i.config.nodePortAddresses, families: i.families, nodeIPs, interfaceAddresses });
}

function syncRunner(config: KubeProxyConfiguration, loop: SyncLoop, log: Log): BoundedFrequencyRunner {
  return new BoundedFrequencyRunner({
    clock: systemClock, run: loop.run, minIntervalMs: config.minSyncPeriod, maxIntervalMs: config.syncPeriod,
    onError: (err, n, retryInMs) => log.error({ err: String(err), consecutiveFailures: n, retryInMs }, 'Sync failed; retrying'),
  });
}
