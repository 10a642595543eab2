// The kube-proxy dashboard of the kubernetes-mixin project (github.com/kubernetes-monitoring/
// kubernetes-mixin, dashboards/proxy.libsonnet at commit aa38e2bfa7ea6ec6870420b483046afe790a6411,
// 2026-08-06), its queries as the mixin renders them with its defaults (kubeProxySelector
// 'job="kube-proxy"', clusterLabel 'cluster', grafanaIntervalVar '$__rate_interval'). Data for
// prometheus-dashboard.test.ts, which runs them unchanged against our proxy; `expect` is whether
// they return data from our metrics, and `why` says why where they do not.

const SEL = 'cluster="$cluster", job="kube-proxy", instance=~"$instance"';

export interface MixinPanel { title: string; queries: string[]; expect: 'data' | 'none'; why?: string }

export const MIXIN_INSTANCE_VARIABLE = 'up{job="kube-proxy", cluster="$cluster", job="kube-proxy"}';

export const MIXIN_PANELS: MixinPanel[] = [
  { title: 'Up', queries: ['sum(up{cluster="$cluster", job="kube-proxy"})'], expect: 'data' },
  { title: 'Rules Sync Rate', queries: [`sum(rate(kubeproxy_sync_proxy_rules_duration_seconds_count{${SEL}}[$__rate_interval]))`], expect: 'data' },
  { title: 'Rules Sync Latency 99th Quantile', queries: [`histogram_quantile(0.99,rate(kubeproxy_sync_proxy_rules_duration_seconds_bucket{${SEL}}[$__rate_interval]))`], expect: 'data' },
  { title: 'Network Programming Rate', queries: [`sum(rate(kubeproxy_network_programming_duration_seconds_count{${SEL}}[$__rate_interval]))`], expect: 'data' },
  { title: 'Network Programming Latency 99th Quantile', queries: [`histogram_quantile(0.99, sum(rate(kubeproxy_network_programming_duration_seconds_bucket{${SEL}}[$__rate_interval])) by (instance, le))`], expect: 'data' },
  // Its 3xx, 4xx and 5xx lines show data only when the API server answers so (as for upstream's proxy).
  { title: 'Kube API Request Rate', queries: [`sum(rate(rest_client_requests_total{cluster="$cluster",job="kube-proxy", instance=~"$instance",code=~"2.."}[$__rate_interval]))`], expect: 'data' },
  { title: 'Post Request Latency 99th Quantile', queries: [`histogram_quantile(0.99, sum(rate(rest_client_request_duration_seconds_bucket{${SEL},verb="POST"}[$__rate_interval])) by (verb, le))`], expect: 'data' },
  { title: 'Get Request Latency 99th Quantile', queries: [`histogram_quantile(0.99, sum(rate(rest_client_request_duration_seconds_bucket{${SEL}, verb="GET"}[$__rate_interval])) by (verb, le))`], expect: 'data' },
  { title: 'Memory', queries: [`process_resident_memory_bytes{${SEL}}`], expect: 'data' },
  { title: 'CPU usage', queries: [`rate(process_cpu_seconds_total{${SEL}}[$__rate_interval])`], expect: 'data' },
  { title: 'Goroutines', queries: [`go_goroutines{${SEL}}`], expect: 'none',
    why: 'go_goroutines is the Go runtime\'s; the proxy runs on Node.js and has no goroutines (its runtime metrics are nodejs_*, e.g. nodejs_eventloop_lag_p99_seconds, nodejs_active_handles)' },
];
