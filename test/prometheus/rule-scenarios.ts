// promtool unit-test scenarios for the shipped alerting rules: for every alert, input series in which
// some nodes meet its condition and others do not, an evaluation before its `for:` has passed
// (nothing fires yet) and one after (exactly the nodes that should). prometheus-rules.test.ts turns
// them into a `promtool test rules` file against the real rules file.
//
// Series notation is promtool's: 'a+bxN' is a, a+b, ... (N+1 samples), 'axN' is a repeated.

export interface Scenario {
  alert: string;
  /** Sample spacing of the input series. */
  interval: string;
  series: Array<{ series: string; values: string }>;
  /** Evaluations: the alerts expected firing then (labels beyond alertname; summary). Empty: none. */
  evals: Array<{ at: string; firing: Array<{ labels: Record<string, string>; summary: string }> }>;
}

const J = 'job="kube-proxy"';
const n = (i: number) => `n${i}:10249`;

export const SCENARIOS: Scenario[] = [
  {
    alert: 'KubeProxyNativeNotSyncing',
    interval: '30s',
    series: [
      // n1: last sync at t=0, a change queued at t=10 s and never applied: stale from 120 s, fires 2 min later.
      { series: `kubeproxy_sync_proxy_rules_last_timestamp_seconds{${J},instance="${n(1)}",ip_family="IPv4"}`, values: '0x20' },
      { series: `kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{${J},instance="${n(1)}",ip_family="IPv4"}`, values: '10x20' },
      // n2: changes keep coming (each queued after the last sync), and every sync succeeds.
      { series: `kubeproxy_sync_proxy_rules_last_timestamp_seconds{${J},instance="${n(2)}",ip_family="IPv4"}`, values: '0+30x20' },
      { series: `kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{${J},instance="${n(2)}",ip_family="IPv4"}`, values: '10+30x20' },
      // n3: an old sync but nothing queued since: nothing waits for this node.
      { series: `kubeproxy_sync_proxy_rules_last_timestamp_seconds{${J},instance="${n(3)}",ip_family="IPv4"}`, values: '100x20' },
      { series: `kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{${J},instance="${n(3)}",ip_family="IPv4"}`, values: '90x20' },
    ],
    evals: [
      { at: '3m', firing: [] },
      { at: '6m', firing: [{ labels: { job: 'kube-proxy', instance: n(1), ip_family: 'IPv4', severity: 'critical' },
        summary: `kube-proxy-native on ${n(1)} (IPv4) has changes pending and no successful sync for over 4 sync periods` }] },
    ],
  },
  {
    alert: 'KubeProxyNativeSyncFailing',
    interval: '1m',
    series: [
      { series: `kubeproxy_sync_proxy_rules_nftables_sync_failures_total{${J},instance="${n(1)}",ip_family="IPv4"}`, values: '0+2x30' },
      { series: `kubeproxy_sync_proxy_rules_ipvs_sync_failures_total{${J},instance="${n(2)}",ip_family="IPv4"}`, values: '0+2x30' },
      // n3: one failure, repaired by the next sync: not persisting.
      { series: `kubeproxy_sync_proxy_rules_nftables_sync_failures_total{${J},instance="${n(3)}",ip_family="IPv4"}`, values: '0 1x29' },
    ],
    evals: [
      { at: '10m', firing: [] },
      { at: '20m', firing: [
        { labels: { job: 'kube-proxy', instance: n(1), severity: 'critical' }, summary: `kube-proxy-native on ${n(1)} keeps failing to sync its rules` },
        { labels: { job: 'kube-proxy', instance: n(2), severity: 'critical' }, summary: `kube-proxy-native on ${n(2)} keeps failing to sync its rules` },
      ] },
    ],
  },
  {
    alert: 'KubeProxyNativeNetworkProgrammingSlow',
    interval: '30s',
    series: [
      // job kube-proxy: every change takes between 31 and 60 s (p99 interpolates to 59.71 s).
      ...[['1', '0'], ['30', '0'], ['31', '0'], ['60', '0+1x30'], ['+Inf', '0+1x30']].map(([le, v]) => ({
        series: `kubeproxy_network_programming_duration_seconds_bucket{${J},instance="${n(1)}",ip_family="IPv4",le="${le}"}`, values: v === '0' ? '0x30' : v })),
      // job kube-proxy-canary: every change within a second.
      ...['1', '30', '31', '60', '+Inf'].map((le) => ({
        series: `kubeproxy_network_programming_duration_seconds_bucket{job="kube-proxy-canary",instance="${n(2)}",ip_family="IPv4",le="${le}"}`, values: '0+1x30' })),
    ],
    evals: [
      { at: '3m', firing: [] },
      { at: '10m', firing: [{ labels: { job: 'kube-proxy', severity: 'warning' }, summary: 'network programming p99 is 59.71s, above the 30 s SLO' }] },
    ],
  },
  {
    alert: 'KubeProxyNativeForeignChanges',
    interval: '1m',
    series: [
      { series: `kubeproxy_native_ruleset_foreign_changes_total{${J},instance="${n(1)}"}`, values: '0+1x20' },
      // n2: one firewall reload.
      { series: `kubeproxy_native_ruleset_foreign_changes_total{${J},instance="${n(2)}"}`, values: '0 0 0 1x17' },
    ],
    evals: [
      // At 4 min n1 has made 4 changes in 10 min (more than 3) but not for the for: minute yet.
      { at: '4m', firing: [] },
      { at: '8m', firing: [{ labels: { job: 'kube-proxy', instance: n(1), severity: 'warning' },
        summary: `another process keeps changing kube-proxy-native's nftables tables on ${n(1)}` }] },
    ],
  },
  {
    alert: 'KubeProxyNativeConntrackNearlyFull',
    interval: '1m',
    series: [
      { series: `kubeproxy_native_conntrack_entries{${J},instance="${n(1)}"}`, values: '90x20' },
      { series: `kubeproxy_native_conntrack_max_entries{${J},instance="${n(1)}"}`, values: '100x20' },
      // n2: exactly 80% is not above it.
      { series: `kubeproxy_native_conntrack_entries{${J},instance="${n(2)}"}`, values: '80x20' },
      { series: `kubeproxy_native_conntrack_max_entries{${J},instance="${n(2)}"}`, values: '100x20' },
    ],
    evals: [
      { at: '3m', firing: [] },
      { at: '10m', firing: [{ labels: { job: 'kube-proxy', instance: n(1), severity: 'warning' }, summary: `the conntrack table on ${n(1)} is 90% full` }] },
    ],
  },
  {
    alert: 'KubeProxyNativeConntrackDropping',
    interval: '1m',
    series: [
      { series: `kubeproxy_native_conntrack_early_drop_total{${J},instance="${n(1)}"}`, values: '0+5x20' },
      { series: `kubeproxy_native_conntrack_insert_failed_total{${J},instance="${n(2)}"}`, values: '0+1x20' },
      { series: `kubeproxy_native_conntrack_drop_total{${J},instance="${n(3)}"}`, values: '0+1x20' },
      // n4: counts from long ago, none now.
      { series: `kubeproxy_native_conntrack_insert_failed_total{${J},instance="${n(4)}"}`, values: '3x20' },
      { series: `kubeproxy_native_conntrack_drop_total{${J},instance="${n(4)}"}`, values: '7x20' },
    ],
    evals: [
      { at: '2m', firing: [] },
      { at: '10m', firing: [1, 2, 3].map((i) => ({ labels: { job: 'kube-proxy', instance: n(i), severity: 'warning' },
        summary: `conntrack on ${n(i)} is dropping packets or evicting flows` })) },
    ],
  },
  {
    alert: 'KubeProxyNativeUnhealthy',
    interval: '15s',
    series: [
      // n1: the readiness probe gets 503 every time (its 200s are from before).
      { series: `kubeproxy_proxy_healthz_total{${J},instance="${n(1)}",code="503"}`, values: '0+1x40' },
      { series: `kubeproxy_proxy_healthz_total{${J},instance="${n(1)}",code="200"}`, values: '5x40' },
      // n2: flapping: some answers are 200.
      { series: `kubeproxy_proxy_healthz_total{${J},instance="${n(2)}",code="503"}`, values: '0+1x40' },
      { series: `kubeproxy_proxy_healthz_total{${J},instance="${n(2)}",code="200"}`, values: '0+1x40' },
      // n3: healthy.
      { series: `kubeproxy_proxy_healthz_total{${J},instance="${n(3)}",code="200"}`, values: '0+1x40' },
    ],
    evals: [
      { at: '1m', firing: [] },
      { at: '6m', firing: [{ labels: { job: 'kube-proxy', instance: n(1), severity: 'warning' }, summary: `kube-proxy-native on ${n(1)} answers /healthz with errors` }] },
    ],
  },
  {
    alert: 'KubeProxyNativeMemoryNearLimit',
    interval: '1m',
    series: [
      { series: `process_resident_memory_bytes{${J},instance="${n(1)}"}`, values: '950000000x30' },
      { series: `kubeproxy_native_memory_limit_bytes{${J},instance="${n(1)}"}`, values: '1000000000x30' },
      // n2: no limit (the gauge is absent); n3: half its limit; another job's process: not ours.
      { series: `process_resident_memory_bytes{${J},instance="${n(2)}"}`, values: '950000000x30' },
      { series: `process_resident_memory_bytes{${J},instance="${n(3)}"}`, values: '500000000x30' },
      { series: `kubeproxy_native_memory_limit_bytes{${J},instance="${n(3)}"}`, values: '1000000000x30' },
      { series: `process_resident_memory_bytes{job="node-exporter",instance="${n(1)}"}`, values: '990000000x30' },
    ],
    evals: [
      { at: '10m', firing: [] },
      { at: '20m', firing: [{ labels: { job: 'kube-proxy', instance: n(1), severity: 'warning' }, summary: `kube-proxy-native on ${n(1)} uses 95% of its memory limit` }] },
    ],
  },
];
