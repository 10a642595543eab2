// kube-proxy's metrics with upstream's names, help texts, types, labels and buckets
// (pkg/proxy/metrics/metrics.go), registered on an injected Registry, plus this project's own
// API-server connection metrics under `kubeproxy_native_`.
import type { IPFamily } from '../base/ip-family';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { NETWORK_PROGRAMMING_BUCKETS, SYNC_BUCKETS } from './buckets';
import { buildInfoOf, registerBuildInfo } from './build-info';
import { createRestClientMetrics, type RestClientMetrics } from './rest-client-metrics';
import { registerMemoryLimit } from './memory-limit';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const PACKAGE_VERSION: string = require('../../../package.json').version;

type Fam = 'ip_family';

export interface ProxyMetrics {
  syncProxyRulesDuration: Histogram<Fam>;
  syncFullProxyRulesDuration: Histogram<Fam>;
  syncPartialProxyRulesDuration: Histogram<Fam>;
  networkProgrammingDuration: Histogram<Fam>;
  syncProxyRulesLastTimestamp: Gauge<Fam>;
  syncProxyRulesLastQueuedTimestamp: Gauge<Fam>;
  endpointChangesPending: Gauge<Fam>;
  serviceChangesPending: Gauge<Fam>;
  endpointChangesTotal: Counter<Fam>;
  serviceChangesTotal: Counter<Fam>;
  noLocalEndpointsTotal: Gauge<Fam | 'traffic_policy'>;
  nftablesSyncFailuresTotal: Counter<Fam>;
  /** Ours: upstream's IPVS mode counts iptables-restore failures, which this project never runs. */
  ipvsSyncFailuresTotal: Counter<Fam>;
  /** Ours: ServicePorts the kernel (or validation) refused and a sync left out so the rest could be programmed. */
  nftablesRefusedServicePortsTotal: Counter<Fam>;
  proxyHealthzTotal: Counter<'code'>;
  proxyLivezTotal: Counter<'code'>;
  conntrackReconcilerSyncDuration: Histogram<Fam>;
  conntrackReconcilerDeletedEntriesTotal: Counter<Fam>;
  /** Ours: stale conntrack flows deleted (after syncs and at start-up), by the flow's protocol. */
  conntrackStaleFlowsDeletedTotal: Counter<'protocol'>;
  /** Ours: 1 while the list/watch of `resource` is connected, else 0. */
  apiServerConnected: Gauge<'resource'>;
  /** Ours: list/watch failures (each one is retried with backoff). */
  apiServerErrorsTotal: Counter<'resource'>;
  /** Ours: full syncs run because the kernel may not hold what we programmed, by reason. */
  rulesetRepairsTotal: Counter<'reason'>;
  /** Ours: commits by other processes that changed our tables (each seen on the nftables event group). */
  rulesetForeignChangesTotal: Counter;
  /** Ours: claims on an address, port or NodePort another ServicePort owns, refused (core/address-ownership), by the claimant's kind. */
  addressClaimsRefusedTotal: Counter<'claim'>;
  /** Ours: such refusals in force now. */
  addressClaimsRefused: Gauge;
  /** client-go's rest_client_requests_total and rest_client_request_duration_seconds, fed by our API client. */
  restClient: RestClientMetrics;
}

export interface CreateMetricsOptions {
  /** Also register Node's process metrics (CPU, memory, event loop, GC). Default true. */
  processMetrics?: boolean;
  /** Our version for kubernetes_build_info; package.json's by default. */
  version?: string;
}

export function createProxyMetrics(register: Registry, opts: CreateMetricsOptions = {}): ProxyMetrics {
  const registers = [register];
  const hist = (name: string, help: string, buckets: number[]) =>
    new Histogram<Fam>({ name: `kubeproxy_${name}`, help, buckets, labelNames: ['ip_family'], registers });
  const famGauge = (name: string, help: string) => new Gauge<Fam>({ name: `kubeproxy_${name}`, help, labelNames: ['ip_family'], registers });
  const famCounter = (name: string, help: string) => new Counter<Fam>({ name: `kubeproxy_${name}`, help, labelNames: ['ip_family'], registers });
  const codeCounter = (name: string, help: string) => new Counter<'code'>({ name: `kubeproxy_${name}`, help, labelNames: ['code'], registers });

  const m: ProxyMetrics = {
    syncProxyRulesDuration: hist('sync_proxy_rules_duration_seconds', 'SyncProxyRules latency in seconds', SYNC_BUCKETS),
    syncFullProxyRulesDuration: hist('sync_full_proxy_rules_duration_seconds', 'SyncProxyRules latency in seconds for full resyncs', SYNC_BUCKETS),
    syncPartialProxyRulesDuration: hist('sync_partial_proxy_rules_duration_seconds', 'SyncProxyRules latency in seconds for partial resyncs', SYNC_BUCKETS),
    networkProgrammingDuration: hist('network_programming_duration_seconds', 'In Cluster Network Programming Latency in seconds', NETWORK_PROGRAMMING_BUCKETS),
    syncProxyRulesLastTimestamp: famGauge('sync_proxy_rules_last_timestamp_seconds', 'The last time proxy rules were successfully synced'),
    syncProxyRulesLastQueuedTimestamp: famGauge('sync_proxy_rules_last_queued_timestamp_seconds', 'The last time a sync of proxy rules was queued'),
    endpointChangesPending: famGauge('sync_proxy_rules_endpoint_changes_pending', 'Pending proxy rules Endpoint changes'),
    serviceChangesPending: famGauge('sync_proxy_rules_service_changes_pending', 'Pending proxy rules Service changes'),
    endpointChangesTotal: famCounter('sync_proxy_rules_endpoint_changes_total', 'Cumulative proxy rules Endpoint changes'),
    serviceChangesTotal: famCounter('sync_proxy_rules_service_changes_total', 'Cumulative proxy rules Service changes'),
    noLocalEndpointsTotal: new Gauge<Fam | 'traffic_policy'>({
      name: 'kubeproxy_sync_proxy_rules_no_local_endpoints_total',
      help: 'Number of services with a Local traffic policy and no endpoints',
      labelNames: ['ip_family', 'traffic_policy'],
      registers,
    }),
    nftablesSyncFailuresTotal: famCounter('sync_proxy_rules_nftables_sync_failures_total', 'Cumulative proxy nftables sync failures'),
    ipvsSyncFailuresTotal: famCounter('sync_proxy_rules_ipvs_sync_failures_total', 'Cumulative proxy IPVS sync failures'),
    nftablesRefusedServicePortsTotal: new Counter<Fam>({
      name: 'kubeproxy_native_nftables_refused_service_ports_total',
      help: 'ServicePorts left out of a sync because the kernel or validation refused their objects (the rest was programmed)',
      labelNames: ['ip_family'],
      registers,
    }),
    proxyHealthzTotal: codeCounter('proxy_healthz_total', 'Cumulative proxy healthz HTTP status'),
    proxyLivezTotal: codeCounter('proxy_livez_total', 'Cumulative proxy livez HTTP status'),
    conntrackReconcilerSyncDuration: hist('conntrack_reconciler_sync_duration_seconds', 'ReconcileConntrackFlowsLatency latency in seconds', SYNC_BUCKETS),
    conntrackReconcilerDeletedEntriesTotal: famCounter('conntrack_reconciler_deleted_entries_total', 'Cumulative conntrack flows deleted by conntrack reconciler'),
    conntrackStaleFlowsDeletedTotal: new Counter<'protocol'>({
      name: 'kubeproxy_native_conntrack_stale_flows_deleted_total',
      help: 'Stale conntrack flows deleted (after syncs and by the start-up pass), by the flow\'s protocol',
      labelNames: ['protocol'],
      registers,
    }),
    apiServerConnected: new Gauge<'resource'>({
      name: 'kubeproxy_native_apiserver_connected',
      help: 'Whether the list/watch of this resource is connected to the API server (1) or retrying (0)',
      labelNames: ['resource'],
      registers,
    }),
    apiServerErrorsTotal: new Counter<'resource'>({
      name: 'kubeproxy_native_apiserver_errors_total',
      help: 'Failed list or watch requests to the API server, each retried with backoff',
      labelNames: ['resource'],
      registers,
    }),
    rulesetRepairsTotal: new Counter<'reason'>({
      name: 'kubeproxy_native_ruleset_repairs_total',
      help: 'Full syncs run to repair our rules: foreign_change (another process changed our tables), events_lost (the change monitor missed events), drift (a sync found the kernel differing from what was programmed), unknown_outcome (a commit whose result never came back)',
      labelNames: ['reason'],
      registers,
    }),
    rulesetForeignChangesTotal: new Counter({
      name: 'kubeproxy_native_ruleset_foreign_changes_total',
      help: 'Commits by another process that changed our nftables tables',
      registers,
    }),
    addressClaimsRefusedTotal: new Counter<'claim'>({
      name: 'kubeproxy_native_address_claims_refused_total',
      help: 'Claims refused because another ServicePort owns the address, port and protocol (or NodePort), by the refused claim\'s kind: clusterIP, externalIP, loadBalancerIP, nodePort',
      labelNames: ['claim'],
      registers,
    }),
    addressClaimsRefused: new Gauge({
      name: 'kubeproxy_native_address_claims_refused',
      help: 'Claims refused now because another ServicePort owns the address, port and protocol (or NodePort)',
      registers,
    }),
    restClient: createRestClientMetrics(register),
  };
  registerBuildInfo(register, buildInfoOf(opts.version ?? PACKAGE_VERSION));
  if (opts.processMetrics !== false) {
    collectDefaultMetrics({ register });
    registerMemoryLimit(register);
  }
  return m;
}

/**
 * Observes network programming latency for one sync: from each EndpointSlice's
 * `endpoints.kubernetes.io/last-change-trigger-time` to `syncEnd`. Negative spans (clock skew
 * between the control plane and this node) are dropped, as upstream does.
 */
export function observeNetworkProgramming(m: ProxyMetrics, family: IPFamily, triggerTimes: Iterable<Date>, syncEnd: Date): number {
  let n = 0;
  for (const t of triggerTimes) {
    const seconds = (syncEnd.getTime() - t.getTime()) / 1000;
    if (!Number.isFinite(seconds) || seconds < 0) continue;
    m.networkProgrammingDuration.observe({ ip_family: family }, seconds);
    n++;
  }
  return n;
}

/** The annotation's value as a Date, or undefined when absent or unparsable. */
export function parseTriggerTime(annotations: Record<string, string> | undefined): Date | undefined {
  const v = annotations?.['endpoints.kubernetes.io/last-change-trigger-time'];
  if (!v) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** Records one finished sync in the duration histograms and, when it succeeded, the last-sync gauge. */
export function observeSync(m: ProxyMetrics, family: IPFamily, full: boolean, seconds: number, ok: boolean, now: Date): void {
  const l = { ip_family: family };
  m.syncProxyRulesDuration.observe(l, seconds);
  (full ? m.syncFullProxyRulesDuration : m.syncPartialProxyRulesDuration).observe(l, seconds);
  if (ok) m.syncProxyRulesLastTimestamp.set(l, now.getTime() / 1000);
}

/** A status listener for the API watchers (ClusterWatcherOptions.onStatus) feeding the connection metrics. */
export function apiServerStatusObserver(m: ProxyMetrics): (s: { resource: string; connected: boolean; failures: number }) => void {
  const seen = new Map<string, number>();
  return (s) => {
    m.apiServerConnected.set({ resource: s.resource }, s.connected ? 1 : 0);
    // `failures` counts consecutive failures and drops back to 0 after a success.
    const before = seen.get(s.resource) ?? 0;
    const fresh = s.failures >= before ? s.failures - before : s.failures;
    if (fresh > 0) m.apiServerErrorsTotal.inc({ resource: s.resource }, fresh);
    seen.set(s.resource, s.failures);
  };
}
