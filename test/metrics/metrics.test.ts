// The metrics as a Prometheus scraper sees them over HTTP: names, types, labels, buckets, help texts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { exponentialBuckets, NETWORK_PROGRAMMING_BUCKETS } from '../../src/metrics/buckets';
import {
  apiServerStatusObserver,
  createProxyMetrics,
  observeNetworkProgramming,
  observeSync,
  parseTriggerTime,
  ProxyMetrics,
} from '../../src/metrics/proxy-metrics';
import type { RunningServer } from '../../src/http';
import { startMetricsServer } from '../../src/metrics/server';
import { bucketBounds, parsePrometheusText, sample, Scrape } from './prom-text';

const UPSTREAM: Array<[string, string, string[]]> = [
  ['kubeproxy_sync_proxy_rules_duration_seconds', 'histogram', ['ip_family']],
  ['kubeproxy_sync_full_proxy_rules_duration_seconds', 'histogram', ['ip_family']],
  ['kubeproxy_sync_partial_proxy_rules_duration_seconds', 'histogram', ['ip_family']],
  ['kubeproxy_network_programming_duration_seconds', 'histogram', ['ip_family']],
  ['kubeproxy_sync_proxy_rules_last_timestamp_seconds', 'gauge', ['ip_family']],
  ['kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds', 'gauge', ['ip_family']],
  ['kubeproxy_sync_proxy_rules_endpoint_changes_pending', 'gauge', ['ip_family']],
  ['kubeproxy_sync_proxy_rules_service_changes_pending', 'gauge', ['ip_family']],
  ['kubeproxy_sync_proxy_rules_endpoint_changes_total', 'counter', ['ip_family']],
  ['kubeproxy_sync_proxy_rules_service_changes_total', 'counter', ['ip_family']],
  ['kubeproxy_sync_proxy_rules_no_local_endpoints_total', 'gauge', ['ip_family', 'traffic_policy']],
  ['kubeproxy_sync_proxy_rules_nftables_sync_failures_total', 'counter', ['ip_family']],
  ['kubeproxy_proxy_healthz_total', 'counter', ['code']],
  ['kubeproxy_proxy_livez_total', 'counter', ['code']],
  ['kubeproxy_conntrack_reconciler_sync_duration_seconds', 'histogram', ['ip_family']],
  ['kubeproxy_conntrack_reconciler_deleted_entries_total', 'counter', ['ip_family']],
];

function exercise(m: ProxyMetrics): void {
  const v4 = { ip_family: 'IPv4' as const };
  observeSync(m, 'IPv4', true, 0.003, true, new Date(1_700_000_000_000));
  observeSync(m, 'IPv4', false, 0.0004, true, new Date(1_700_000_001_000));
  m.syncProxyRulesLastQueuedTimestamp.set(v4, 1_700_000_000.5);
  m.endpointChangesPending.set(v4, 3);
  m.serviceChangesPending.set(v4, 1);
  m.endpointChangesTotal.inc(v4, 5);
  m.serviceChangesTotal.inc(v4, 2);
  m.noLocalEndpointsTotal.set({ ip_family: 'IPv4', traffic_policy: 'internal' }, 1);
  m.noLocalEndpointsTotal.set({ ip_family: 'IPv4', traffic_policy: 'external' }, 0);
  m.nftablesSyncFailuresTotal.inc(v4);
  m.proxyHealthzTotal.inc({ code: '200' });
  m.proxyLivezTotal.inc({ code: '503' });
  m.conntrackReconcilerSyncDuration.observe(v4, 0.01);
  m.conntrackReconcilerDeletedEntriesTotal.inc(v4, 4);
  const end = new Date('2026-01-01T00:01:00Z');
  observeNetworkProgramming(m, 'IPv4', [new Date('2026-01-01T00:00:59.7Z'), new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:02:00Z')], end);
}

describe('metrics over HTTP', { timeout: 60_000 }, () => {
  let server: RunningServer;
  let scrape: Scrape;
  let metrics: ProxyMetrics;

  before(async () => {
    const registry = new Registry();
    metrics = createProxyMetrics(registry);
    exercise(metrics);
    server = await startMetricsServer({ bindAddress: '127.0.0.1:0', registry, proxyMode: 'nftables', configz: () => '{"kubeproxy.config.k8s.io":{"Mode":"nftables"}}' });
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    scrape = parsePrometheusText(await res.text());
  });
  after(() => server.close());

  it('exposes every upstream family with its type and labels', () => {
    for (const [name, type, labels] of UPSTREAM) {
      assert.equal(scrape.families.get(name)?.type, type, name);
      const ours = scrape.samples.filter((s) => s.name === name || s.name.startsWith(`${name}_`));
      assert.ok(ours.length > 0, `${name} has samples`);
      for (const s of ours) {
        const keys = Object.keys(s.labels).filter((k) => k !== 'le').sort();
        assert.deepEqual(keys, [...labels].sort(), `labels of ${s.name}`);
      }
    }
  });

  it('keeps upstream help texts', () => {
    assert.equal(scrape.families.get('kubeproxy_sync_proxy_rules_duration_seconds')?.help, 'SyncProxyRules latency in seconds');
    assert.equal(scrape.families.get('kubeproxy_network_programming_duration_seconds')?.help, 'In Cluster Network Programming Latency in seconds');
    assert.equal(scrape.families.get('kubeproxy_sync_proxy_rules_no_local_endpoints_total')?.help, 'Number of services with a Local traffic policy and no endpoints');
  });

  it('uses upstream buckets', () => {
    const sync = bucketBounds(scrape, 'kubeproxy_sync_proxy_rules_duration_seconds', { ip_family: 'IPv4' });
    assert.equal(sync.length, 15);
    assert.deepEqual(sync, exponentialBuckets(0.001, 2, 15));
    assert.ok(Math.abs(sync[14] - 16.384) < 1e-9);
    const np = bucketBounds(scrape, 'kubeproxy_network_programming_duration_seconds', { ip_family: 'IPv4' });
    assert.deepEqual(np, NETWORK_PROGRAMMING_BUCKETS);
    assert.deepEqual(np.slice(0, 5), [0, 0.25, 0.5, 1, 2]);
    assert.ok(np.includes(59) && np.includes(60) && np.includes(115) && np.includes(120) && np.includes(150));
    assert.equal(np[np.length - 1], 300);
    assert.equal(np.length, 1 + 2 + 59 + 12 + 7);
  });

  it('records syncs, full and partial apart, and the last-sync time', () => {
    const v4 = { ip_family: 'IPv4' };
    assert.equal(sample(scrape, 'kubeproxy_sync_proxy_rules_duration_seconds_count', v4), 2);
    assert.equal(sample(scrape, 'kubeproxy_sync_full_proxy_rules_duration_seconds_count', v4), 1);
    assert.equal(sample(scrape, 'kubeproxy_sync_partial_proxy_rules_duration_seconds_count', v4), 1);
    assert.equal(sample(scrape, 'kubeproxy_sync_partial_proxy_rules_duration_seconds_bucket', { ...v4, le: '0.001' }), 1);
    assert.equal(sample(scrape, 'kubeproxy_sync_full_proxy_rules_duration_seconds_bucket', { ...v4, le: '0.002' }), 0);
    assert.equal(sample(scrape, 'kubeproxy_sync_full_proxy_rules_duration_seconds_bucket', { ...v4, le: '0.004' }), 1);
    assert.equal(sample(scrape, 'kubeproxy_sync_proxy_rules_last_timestamp_seconds', v4), 1_700_000_001);
  });

  it('measures network programming from trigger times, dropping future ones', () => {
    const v4 = { ip_family: 'IPv4' };
    assert.equal(sample(scrape, 'kubeproxy_network_programming_duration_seconds_count', v4), 2);
    assert.equal(sample(scrape, 'kubeproxy_network_programming_duration_seconds_bucket', { ...v4, le: '0.5' }), 1);
    assert.equal(sample(scrape, 'kubeproxy_network_programming_duration_seconds_bucket', { ...v4, le: '59' }), 1);
    assert.equal(sample(scrape, 'kubeproxy_network_programming_duration_seconds_bucket', { ...v4, le: '60' }), 2);
    assert.ok(Math.abs(sample(scrape, 'kubeproxy_network_programming_duration_seconds_sum', v4)! - 60.3) < 1e-6);
  });

  it('exposes kubernetes_build_info as component-base does (version/metrics.go): a constant 1, its nine labels, our build', () => {
    assert.equal(scrape.families.get('kubernetes_build_info')?.type, 'gauge');
    assert.equal(scrape.families.get('kubernetes_build_info')?.help,
      "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree state, build date, Go version, and compiler from which Kubernetes was built, and platform on which it is running.");
    const s = scrape.samples.filter((x) => x.name === 'kubernetes_build_info');
    assert.equal(s.length, 1);
    assert.equal(s[0].value, 1);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const version: string = require('../../../package.json').version;
    const [major, minor] = version.split('.');
    assert.deepEqual(s[0].labels, {
      major, minor, gitVersion: `v${version}`, gitCommit: '', gitTreeState: '', buildDate: '',
      goVersion: process.version, compiler: 'v8', platform: `linux/${process.arch === 'x64' ? 'amd64' : process.arch}`,
    });
  });

  it('registers client-go\'s rest client families (restclient/metrics.go)', () => {
    assert.equal(scrape.families.get('rest_client_requests_total')?.type, 'counter');
    assert.equal(scrape.families.get('rest_client_request_duration_seconds')?.type, 'histogram');
  });

  it('includes Node process metrics', () => {
    assert.ok(scrape.families.has('process_cpu_user_seconds_total'));
    assert.ok(scrape.families.has('process_resident_memory_bytes'));
    assert.ok(scrape.families.has('nodejs_eventloop_lag_seconds'));
  });

  it('serves /healthz, /proxyMode and /configz beside /metrics, 404 elsewhere', async () => {
    const base = `http://127.0.0.1:${server.port}`;
    assert.equal(await (await fetch(`${base}/healthz`)).text(), 'ok');
    assert.equal(await (await fetch(`${base}/proxyMode`)).text(), 'nftables');
    assert.deepEqual(await (await fetch(`${base}/configz`)).json(), { 'kubeproxy.config.k8s.io': { Mode: 'nftables' } });
    assert.equal((await fetch(`${base}/nope`)).status, 404);
  });
});

describe('API server connection metrics', { timeout: 60_000 }, () => {
  it('follow watcher status: connected gauge and an error count that survives resets', async () => {
    const registry = new Registry();
    const m = createProxyMetrics(registry, { processMetrics: false });
    const observe = apiServerStatusObserver(m);
    observe({ resource: 'services', connected: true, failures: 0 });
    observe({ resource: 'services', connected: false, failures: 1 });
    observe({ resource: 'services', connected: false, failures: 2 });
    observe({ resource: 'services', connected: true, failures: 2 });
    observe({ resource: 'services', connected: false, failures: 1 });
    const s = parsePrometheusText(await registry.metrics());
    assert.equal(sample(s, 'kubeproxy_native_apiserver_connected', { resource: 'services' }), 0);
    assert.equal(sample(s, 'kubeproxy_native_apiserver_errors_total', { resource: 'services' }), 3);
    assert.equal(s.families.has('process_cpu_user_seconds_total'), false, 'process metrics were opted out');
  });
});

describe('helpers', { timeout: 60_000 }, () => {
  it('parses the trigger-time annotation', () => {
    assert.equal(parseTriggerTime({ 'endpoints.kubernetes.io/last-change-trigger-time': '2026-01-01T00:00:00Z' })?.toISOString(), '2026-01-01T00:00:00.000Z');
    assert.equal(parseTriggerTime({ 'endpoints.kubernetes.io/last-change-trigger-time': 'yesterday' }), undefined);
    assert.equal(parseTriggerTime(undefined), undefined);
  });

  it('refuses to bind a second server on a port in use, with the field in the message', async () => {
    const registry = new Registry();
    const first = await startMetricsServer({ bindAddress: '127.0.0.1:0', registry });
    await assert.rejects(startMetricsServer({ bindAddress: `127.0.0.1:${first.port}`, registry }), /^Error: metricsBindAddress: cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE$/);
    await first.close();
  });
});
