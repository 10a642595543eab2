// Wires the boxes together for `kube-proxy-native` in a mode: watchers -> model -> runner -> proxier,
// with metrics, health and conntrack around them. The only place that knows every folder.
// Start-up order: the model, the kernel socket and the sync parts, the watcher (its kubeconfig is
// loaded here), the healthz then the metrics server, the guard, the watches; the runner starts on the
// first complete list. A failure on the way closes what was opened (shutdown.ts), as stop() does.
import * as os from 'node:os';
import { Registry } from 'prom-client';
import type { KubeProxyConfiguration } from '../config';
import { configzBody, effectiveMode } from '../config';
import { ProxyState } from '../core';
import type { IPFamily, SyncResult } from '../core/types';
import { startHealthServer } from '../health/health-server';
import { type RunningServer, serveUnlessDisabled } from '../http';
import { systemClock } from '../base/clock';
import { ProxyHealth, type StaleResource } from '../health/proxy-health';
import type { HealthCheckFailure } from '../health/service-health';
import { ClusterWatcher } from '../k8s/cluster-watcher';
import type { EventRecorder } from '../k8s/event-recorder';
import { loadKubeConfig, type ApiCredentials } from '../k8s/kubeconfig';
import type { Log } from '../base/log';
import { apiServerStatusObserver, createProxyMetrics, type ProxyMetrics } from '../metrics/proxy-metrics';
import { startMetricsServer } from '../metrics/server';
import { registerConntrackMetrics } from '../metrics/conntrack-metrics';
import { ConntrackClient, Nft } from '../native';
import { servedFamilies } from './families';
import { localDetectorNotice } from './local-detector-options';
import { runConntrackSetup } from './conntrack-setup';
import { readTcpBeLiberal } from './tcp-be-liberal';
import type { ReadOnlySysFSEvent } from '../conntrack/sysctls';
import { nodePortNotice } from './node-port-notice';
import { modelSink } from './model-sink';
import { shutDown, type OpenedParts } from './shutdown';
import { nftablesParts } from './nftables-parts';
import { ipvsParts, openIpvsKernel } from './ipvs-parts';
import { syncParts, type ModeParts, type SyncParts } from './sync-parts';
import { eventRecorder, recordFailedServer, recordClaimRefused, recordFailedServiceHealthcheck, recordReadOnlySysFs, recordStarting } from './kube-events';

export interface ProxyAppOptions {
  config: KubeProxyConfiguration;
  log: Log;
  /** --master: overrides the kubeconfig's server. */
  master?: string;
  /** Program the kernel of this network namespace (a path such as /run/netns/X) instead of our own. */
  netns?: string;
  registry?: Registry;
  /** Health-check node port servers listen here (default: the addresses nodePortAddresses selects). */
  healthCheckAddresses?: string[];
  /** Bounds the wait for the last Event before a hard-fail exit (default 2 s). */
  eventFlushMs?: number;
}

export interface RunningProxy {
  metrics: ProxyMetrics;
  registry: Registry;
  watcher: ClusterWatcher;
  health: ProxyHealth;
  /** Kubernetes Events (kube-events.ts records upstream's through it). */
  events: EventRecorder;
  /** 0 while the server is not listening (bindAddressHardFail false: it retries). */
  readonly healthPort: number;
  readonly metricsPort: number;
  /** Services whose health-check node port is not open now, and why (logged once per change). */
  healthCheckFailures(): HealthCheckFailure[];
  /** Resolves when the next sync finishes. */
  nextSync(): Promise<SyncResult>;
  stop(): Promise<void>;
}

export function nodeNameOf(config: Pick<KubeProxyConfiguration, 'hostnameOverride'>): string {
  return (config.hostnameOverride || os.hostname()).trim().toLowerCase();
}

/** Who this proxy is, what it serves, what it counts and judges, and its view of the cluster. */
interface Model {
  nodeName: string;
  families: IPFamily[];
  registry: Registry;
  metrics: ProxyMetrics;
  health: ProxyHealth;
  state: ProxyState;
  /** The namespace's conntrack: statistics for the metrics, stale-flow deletes for the sync loop. */
  conntrack: ConntrackClient;
}

/** What start-up has opened so far; the watcher is also asked for its staleness. */
type Opened = OpenedParts & { watcher?: ClusterWatcher; events?: EventRecorder };

export async function startProxy(o: ProxyAppOptions): Promise<RunningProxy> {
  const mode = proxyMode(o.config);
  const opened: Opened = { servers: [] };
  // The watcher is made later; its staleness is read only when /healthz is asked.
  const model = buildModel(o, () => opened.watcher?.staleResources() ?? []);
  const detectNotice = localDetectorNotice(o.config, model.families[0]);
  if (detectNotice) o.log.info(detectNotice.fields, detectNotice.msg);
  const npNotice = nodePortNotice(o.config, model.families);
  o.log[npNotice.level](npNotice.fields, npNotice.msg);
  const readOnlySysFS = applySysctls(o);
  let proxy: RunningProxy;
  try {
    proxy = await openAndStart(o, mode, model, opened, readOnlySysFS);
  } catch (e) {
    await shutDown(opened).catch((err) => o.log.warn({ err: String(err) }, 'Closing after a failed start-up failed too'));
    throw e;
  }
  o.log.info({ mode, nodeName: model.nodeName, families: model.families }, 'kube-proxy-native started');
  return proxy;
}

type BuiltMode = 'nftables' | 'ipvs';

function proxyMode(config: KubeProxyConfiguration): BuiltMode {
  const mode = effectiveMode(config);
  if (mode !== 'nftables' && mode !== 'ipvs') throw new Error(`proxy mode ${JSON.stringify(mode)} is not available in this build; use nftables`);
  return mode;
}

function buildModel(o: ProxyAppOptions, staleResources: () => readonly StaleResource[]): Model {
  const nodeName = nodeNameOf(o.config);
  const families = servedFamilies(o.config);
  const registry = o.registry ?? new Registry();
  const metrics = createProxyMetrics(registry);
  // The proxy's namespace's conntrack statistics, read on each scrape (docs/conntrack.md, "Metrics").
  const conntrack = new ConntrackClient({ netns: o.netns ?? null });
  registerConntrackMetrics(registry, { read: () => conntrack.readStats(), log: o.log });
  return {
    nodeName, families, registry, metrics, conntrack,
    health: new ProxyHealth(2 * o.config.syncPeriod, undefined, { staleResources }),
    state: new ProxyState({ nodeName, ipFamilies: families, log: o.log }),
  };
}

/** Returns the Node event to record when /sys was read-only (recorded once the event recorder exists). */
function applySysctls(o: ProxyAppOptions): ReadOnlySysFSEvent | undefined {
  if (o.netns) {
    o.log.info({ netns: o.netns }, 'Not applying conntrack sysctls: running against another network namespace');
    return undefined;
  }
  return runConntrackSetup(o.config.linux.conntrack, o.log).readOnlySysFS;
}

/** Opens and starts everything in order, recording each part in `opened` as soon as it exists. */
async function openAndStart(o: ProxyAppOptions, mode: BuiltMode, model: Model, opened: Opened, readOnlySysFS?: ReadOnlySysFSEvent): Promise<RunningProxy> {
  const onServiceHealthFailure = (service: { namespace: string; name: string }, message: string): void => {
    if (opened.events) recordFailedServiceHealthcheck(opened.events, service, message);
  };
  const onClaimRefused = (service: { namespace: string; name: string; uid?: string }, message: string): void => {
    if (opened.events) recordClaimRefused(opened.events, service, message);
  };
  const sync = syncParts({ ...o, ...model, onServiceHealthFailure, onClaimRefused }, await modeParts(o, mode, model, opened));
  Object.assign(opened, { guard: sync.guard, runner: sync.runner, serviceHealth: sync.serviceHealth });
  const kubeConfig = loadKubeConfig({ kubeconfig: o.config.clientConnection.kubeconfig || undefined, master: o.master });
  const events = (opened.events = eventRecorder(kubeConfig, o.log, model.metrics.restClient));
  if (readOnlySysFS) recordReadOnlySysFs(events, model.nodeName, readOnlySysFS);
  const watcher = (opened.watcher = clusterWatcher(o, model, sync, kubeConfig));
  // With bindAddressHardFail the proxy exits on a failed bind; upstream records an Event on the Node first.
  const orRecord = (server: 'healthz' | 'metrics') => async (e: unknown): Promise<never> => {
    recordFailedServer(events, model.nodeName, server, e);
    await events.flush(o.eventFlushMs ?? 2000);
    throw e;
  };
  const serve = (name: 'healthz' | 'metrics', address: string, start: () => Promise<RunningServer>) =>
    serveUnlessDisabled(address, start, { name, hardFail: o.config.bindAddressHardFail, log: o.log, clock: systemClock }).catch(orRecord(name));
  const healthServer = await serve('healthz', o.config.healthzBindAddress, () => startHealthServer({
    bindAddress: o.config.healthzBindAddress, health: model.health, log: o.log, apiServer: () => watcher.status(),
    healthzTotal: model.metrics.proxyHealthzTotal, livezTotal: model.metrics.proxyLivezTotal,
  }));
  opened.servers.push(healthServer);
  const metricsServer = await serve('metrics', o.config.metricsBindAddress, () => startMetricsServer({
    bindAddress: o.config.metricsBindAddress, registry: model.registry, proxyMode: mode, configz: () => configzBody(o.config), log: o.log,
  }));
  opened.servers.push(metricsServer);
  sync.guard?.start();
  watcher.start();
  recordStarting(events, model.nodeName);
  return {
    metrics: model.metrics, registry: model.registry, watcher, health: model.health, events,
    get healthPort() { return healthServer.port; },
    get metricsPort() { return metricsServer.port; },
    healthCheckFailures: () => sync.serviceHealth.failures(),
    nextSync: () => sync.loop.nextSync(),
    stop: () => shutDown(opened),
  };
}

/** The mode's kernel sockets, recorded in `opened` as soon as they exist, and its parts. */
async function modeParts(o: ProxyAppOptions, mode: BuiltMode, model: Model, opened: Opened): Promise<(runSoon: () => void) => ModeParts> {
  const conntrackTCPLiberal = readTcpBeLiberal({ netns: o.netns });
  if (conntrackTCPLiberal) o.log.info({}, 'nf_conntrack_tcp_be_liberal set, not installing DROP rules for INVALID packets');
  if (mode === 'ipvs') {
    const kernel = (opened.nft = await openIpvsKernel(o));
    return ipvsParts({ ...o, ...model, conntrackTCPLiberal }, kernel);
  }
  const nft = (opened.nft = Nft.open(o.netns ? { netns: o.netns } : undefined));
  return nftablesParts({ ...o, ...model, nft, conntrackTCPLiberal });
}

function clusterWatcher(o: ProxyAppOptions, model: Model, sync: SyncParts, kubeConfig: ApiCredentials): ClusterWatcher {
  return new ClusterWatcher({
    kubeConfig,
    nodeName: model.nodeName,
    log: o.log,
    onStatus: apiServerStatusObserver(model.metrics),
    requestObserver: model.metrics.restClient,
    sink: modelSink({ state: model.state, health: model.health, queued: (scope) => sync.loop.queued(scope), runner: sync.runner, log: o.log,
      started: () => sync.loop.started() }),
  });
}
