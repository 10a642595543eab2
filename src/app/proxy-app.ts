// Wires the boxes together for `kube-proxy-native` in a mode: watchers -> model -> runner -> proxier,
// with metrics, health and conntrack around them. The only place that knows every folder.
import * as os from 'node:os';
import { Registry } from 'prom-client';
import type { KubeProxyConfiguration } from '../config';
import { effectiveMode } from '../config';
import { applyConntrackSysctls, ConntrackCleanup } from '../conntrack';
import { ProxyState } from '../core';
import type { SyncResult } from '../core/types';
import { startHealthServer } from '../health/health-server';
import { ProxyHealth } from '../health/proxy-health';
import { ServiceHealthServer } from '../health/service-health';
import { ClusterWatcher } from '../k8s/cluster-watcher';
import { loadKubeConfig } from '../k8s/kubeconfig';
import type { Logger } from '../log';
import { apiServerStatusObserver, createProxyMetrics, type ProxyMetrics } from '../metrics/proxy-metrics';
import { startMetricsServer, type RunningServer } from '../metrics/server';
import { ConntrackClient, Nft, type Transaction } from '../native';
import { guardedTables, NftablesProxier } from '../proxier/nftables';
import { BoundedFrequencyRunner } from '../runner/bounded-frequency-runner';
import { systemClock } from '../runner/clock';
import { nftFamily, servedFamilies } from './families';
import { RulesetGuard } from './ruleset-guard';
import { nftablesOptionsFrom } from './nftables-options';
import { SyncLoop } from './sync-loop';

export interface ProxyAppOptions {
  config: KubeProxyConfiguration;
  log: Logger;
  /** --master: overrides the kubeconfig's server. */
  master?: string;
  /** Program the kernel of this network namespace (a path such as /run/netns/X) instead of our own. */
  netns?: string;
  registry?: Registry;
  /** Health-check node port servers listen here (default: every address). */
  healthCheckAddresses?: string[];
}

export interface RunningProxy {
  metrics: ProxyMetrics;
  registry: Registry;
  watcher: ClusterWatcher;
  health: ProxyHealth;
  healthPort: number;
  metricsPort: number;
  /** Resolves when the next sync finishes. */
  nextSync(): Promise<SyncResult>;
  stop(): Promise<void>;
}

export function nodeNameOf(config: Pick<KubeProxyConfiguration, 'hostnameOverride'>): string {
  return (config.hostnameOverride || os.hostname()).trim().toLowerCase();
}

function applySysctls(o: ProxyAppOptions): void {
  if (o.netns) {
    o.log.info({ netns: o.netns }, 'Not applying conntrack sysctls: running against another network namespace');
    return;
  }
  for (const r of applyConntrackSysctls(o.config.linux.conntrack)) {
    if (r.action === 'failed') o.log.warn({ sysctl: r.name, value: r.value, error: r.error }, 'Could not set conntrack sysctl');
    else if (r.action === 'set') o.log.info({ sysctl: r.name, value: r.value, previous: r.previous }, 'Set conntrack sysctl');
  }
}

export async function startProxy(o: ProxyAppOptions): Promise<RunningProxy> {
  const { config, log } = o;
  const mode = effectiveMode(config);
  if (mode !== 'nftables') throw new Error(`proxy mode ${JSON.stringify(mode)} is not available in this build; use nftables`);
  const nodeName = nodeNameOf(config);
  const families = servedFamilies(config);
  const registry = o.registry ?? new Registry();
  const metrics = createProxyMetrics(registry);
  // The watcher is made below; its staleness is read only when /healthz is asked.
  let watcher: ClusterWatcher | undefined;
  const health = new ProxyHealth(2 * config.syncPeriod, undefined, { staleResources: () => watcher?.staleResources() ?? [] });
  applySysctls(o);

  const nft = Nft.open(o.netns ? { netns: o.netns } : undefined);
  // Large commits go through the guard, which keeps the kernel from building notifications for them.
  const quietNft = {
    commit: (tx: Transaction) => guard.commitQuietly(nft, tx),
    dumpTable: nft.dumpTable.bind(nft),
    listTables: nft.listTables.bind(nft),
  };
  const proxier = new NftablesProxier(nftablesOptionsFrom(config, families, {
    nft: quietNft, log, metrics: {
      syncFailures: { inc: (v) => metrics.nftablesSyncFailuresTotal.inc({ ip_family: families[0] }, v ?? 1) },
      refusedServicePorts: { inc: (v) => metrics.nftablesRefusedServicePortsTotal.inc({ ip_family: families[0] }, v ?? 1) },
      repairs: { inc: ({ reason }) => metrics.rulesetRepairsTotal.inc({ reason }) },
    },
  }));
  const state = new ProxyState({ nodeName, ipFamilies: families, log });
  const serviceHealth = new ServiceHealthServer({
    addresses: o.healthCheckAddresses, proxyHealthy: () => health.report().healthy, log,
  });
  const loop = new SyncLoop({
    state, proxier, families, metrics, health, serviceHealth, log,
    conntrack: new ConntrackCleanup(new ConntrackClient({ netns: o.netns ?? null })),
  });
  const runner = new BoundedFrequencyRunner({
    clock: systemClock, run: loop.run, minIntervalMs: config.minSyncPeriod, maxIntervalMs: config.syncPeriod,
    onError: (err, n, retryInMs) => log.error({ err: String(err), consecutiveFailures: n, retryInMs }, 'Sync failed; retrying'),
  });
  const guard = new RulesetGuard({
    netns: o.netns, tables: guardedTables(families.map(nftFamily)), ownPortIds: () => [nft.portId], clock: systemClock, log,
    foreignChange: () => metrics.rulesetForeignChangesTotal.inc(),
    repair: (reasons) => {
      for (const r of reasons) proxier.markDirty(r);
      runner.run();
    },
  });
  const changed = (c: boolean): void => {
    if (!c) return;
    loop.queued();
    runner.run();
  };
  watcher = new ClusterWatcher({
    kubeConfig: loadKubeConfig({ kubeconfig: config.clientConnection.kubeconfig || undefined, master: o.master }),
    nodeName,
    log,
    onStatus: apiServerStatusObserver(metrics),
    sink: {
      onService: (kind, svc) => changed(state.onService(kind, svc)),
      onEndpointSlice: (kind, slice) => changed(state.onEndpointSlice(kind, slice)),
      onNode: (node) => {
        health.syncNode(node);
        changed(state.onNode(node));
      },
      onNamespaceDisabledChange: (namespace, disabled) => log.info({ namespace, disabled }, 'Namespace proxying changed'),
      onServiceCIDRs: (cidrs) => changed(state.onServiceCIDRs(cidrs)),
      onSynced: () => {
        log.info({}, 'Services and EndpointSlices listed; starting to sync');
        runner.start();
        runner.run();
      },
    },
  });

  const servers: RunningServer[] = [];
  try {
    servers.push(await startHealthServer({
      bindAddress: config.healthzBindAddress, health, healthzTotal: metrics.proxyHealthzTotal, livezTotal: metrics.proxyLivezTotal, log,
      apiServer: () => watcher!.status(),
    }));
    servers.push(await startMetricsServer({ bindAddress: config.metricsBindAddress, registry, proxyMode: mode, config: () => config, log }));
  } catch (e) {
    await Promise.all(servers.map((s) => s.close()));
    guard.stop();
    nft.close();
    throw e;
  }
  guard.start();
  watcher.start();
  log.info({ mode, nodeName, families }, 'kube-proxy-native started');

  return {
    metrics, registry, watcher, health,
    healthPort: servers[0].port,
    metricsPort: servers[1].port,
    nextSync: () => loop.nextSync(),
    async stop() {
      guard.stop();
      watcher.stop();
      await runner.stop();
      await serviceHealth.closeAll();
      await Promise.all(servers.map((s) => s.close()));
      nft.close();
    },
  };
}
