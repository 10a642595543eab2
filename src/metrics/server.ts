// The metrics HTTP server on metricsBindAddress (default 127.0.0.1:10249): /metrics, plus the small
// endpoints upstream serves beside it (/healthz, /healthz/ping, /proxyMode, /configz). Routed like
// upstream's PathRecorderMux: the exact decoded path, any method, 404 otherwise (no redirects).
import type * as http from 'node:http';
import { Registry } from 'prom-client';
import { type HttpLimits, type HttpLog, notFound, parseBindAddress, type RequestTarget, type RunningServer, sendText, serveHardened } from '../http';

export interface MetricsServerOptions {
  bindAddress: string;
  registry: Registry;
  /** Answered at /proxyMode, e.g. "nftables". */
  proxyMode?: string;
  /** The /configz body (component-base configz's JSON, see src/config/configz.ts), made per request. */
  configz?: () => string;
  /** Receives rate-limited lines about bad requests and failed handlers. */
  log?: HttpLog;
  limits?: Partial<HttpLimits>;
}

export async function startMetricsServer(o: MetricsServerOptions): Promise<RunningServer> {
  const { host, port } = parseBindAddress(o.bindAddress, 'metricsBindAddress');
  return serveHardened({ name: 'metrics', log: o.log, limits: o.limits, host, port, what: 'metricsBindAddress' }, (_req, res, target) => handle(o, res, target));
}

async function handle(o: MetricsServerOptions, res: http.ServerResponse, { path }: RequestTarget): Promise<void> {
  if (path === '/metrics') {
    let body: string;
    try {
      body = await o.registry.metrics();
    } catch (err) {
      // As promhttp: the scraper learns why (the failure is ours, not an attacker's input).
      sendText(res, 500, `metrics collection failed: ${(err as Error).message}\n`);
      return;
    }
    res.writeHead(200, { 'Content-Type': o.registry.contentType });
    res.end(body);
  } else if (path === '/healthz' || path === '/healthz/ping') {
    sendText(res, 200, 'ok');
  } else if (path === '/proxyMode' && o.proxyMode) {
    // upstream serveMetrics: the mode name alone, text/plain; charset=utf-8, nosniff
    sendText(res, 200, o.proxyMode);
  } else if (path === '/configz' && o.configz) {
    // component-base configz.write: application/json, nosniff, no trailing newline
    const body = o.configz();
    res.writeHead(200, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Content-Length': String(Buffer.byteLength(body)) });
    res.end(body);
  } else {
    notFound(res);
  }
}
