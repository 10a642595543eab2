// client-go's request metrics as component-base registers them for every Kubernetes component
// (staging/src/k8s.io/component-base/metrics/prometheus/restclient/metrics.go), fed by our own API
// client (src/k8s/api-request.ts), which calls these through its RequestObserver.
import { Counter, Histogram, type Registry } from 'prom-client';

/** requestLatency's buckets in restclient/metrics.go. */
export const REST_CLIENT_LATENCY_BUCKETS = [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60];

export interface RestClientMetrics {
  /** rest_client_requests_total{code,method,host}: each request once, by status code or `<error>` when no answer came. */
  requestResult(code: string, method: string, host: string): void;
  /** rest_client_request_duration_seconds{verb,host}: a non-watch request, from its start to its body read. */
  requestLatency(verb: string, host: string, seconds: number): void;
}

export function createRestClientMetrics(register: Registry): RestClientMetrics {
  const registers = [register];
  const results = new Counter<'code' | 'method' | 'host'>({
    name: 'rest_client_requests_total',
    help: 'Number of HTTP requests, partitioned by status code, method, and host.',
    labelNames: ['code', 'method', 'host'],
    registers,
  });
  const latency = new Histogram<'verb' | 'host'>({
    name: 'rest_client_request_duration_seconds',
    help: 'Request latency in seconds. Broken down by verb, and host.',
    labelNames: ['verb', 'host'],
    buckets: REST_CLIENT_LATENCY_BUCKETS,
    registers,
  });
  return {
    requestResult: (code, method, host) => results.inc({ code, method, host }),
    requestLatency: (verb, host, seconds) => latency.observe({ verb, host }, seconds),
  };
}
