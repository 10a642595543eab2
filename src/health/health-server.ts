// /healthz and /livez on healthzBindAddress (default 0.0.0.0:10256), with upstream's status codes and
// JSON body plus `reasons`. /livez reflects only the proxier; /healthz also fails while the node is going
// away, before a first sync that is overdue, and while the API view is stale (see docs/health.md).
// Routed like upstream's Go ServeMux: any method, unclean paths redirected, `*` refused.
import type * as http from 'node:http';
import type { Counter } from 'prom-client';
import { cleanPath, escapePath, type HttpLimits, type HttpLog, notFound, parseBindAddress, type RequestTarget, type RunningServer, sendText, serveHardened } from '../http';
import { HealthReport, HealthzReport, ProxyHealth } from './proxy-health';

export interface HealthServerOptions {
  bindAddress: string;
  health: ProxyHealth;
  healthzTotal?: Counter<'code'>;
  livezTotal?: Counter<'code'>;
  /**
   * The API watchers' state (ClusterWatcher.status()), reported as an extra `apiServer` field. It never
   * changes the status code (the staleness that does is ProxyHealth's `staleResources` input).
   */
  apiServer?: () => { connected: boolean; synced: boolean; lastError?: string };
  /** Receives rate-limited lines about bad requests and failed handlers. */
  log?: HttpLog;
  limits?: Partial<HttpLimits>;
}

/** Go's zero time.Time, which upstream prints before the first successful sync. */
const ZERO_TIME = '0001-01-01T00:00:00Z';
const time = (d: Date | undefined): string => (d ? d.toISOString() : ZERO_TIME);

/** The JSON body: upstream's keys in upstream's order, then `reasons`, then our `apiServer`. */
export function healthBody(r: HealthReport | HealthzReport, apiServer?: unknown): Record<string, unknown> {
  const withNode = 'nodeEligible' in r;
  const ok = withNode ? r.ok : r.healthy;
  const status: Record<string, unknown> = {};
  for (const [family, s] of Object.entries(r.status)) status[family] = { lastUpdated: time(s!.lastUpdated), healthy: s!.healthy };
  const body: Record<string, unknown> = {
    // As upstream: a 200 answer reports lastUpdated as now, for old clients that compare the two.
    lastUpdated: time(ok ? r.currentTime : r.lastUpdated),
    currentTime: time(r.currentTime),
  };
  if (withNode) body.nodeEligible = r.nodeEligible;
  body.healthy = r.healthy;
  if (Object.keys(status).length > 0) body.status = status;
  body.reasons = r.reasons;
  if (apiServer !== undefined) body.apiServer = apiServer;
  return body;
}

export async function startHealthServer(o: HealthServerOptions): Promise<RunningServer> {
  const { host, port } = parseBindAddress(o.bindAddress, 'healthzBindAddress');
  return serveHardened({ name: 'healthz', log: o.log, limits: o.limits, host, port, what: 'healthzBindAddress' }, (_req, res, target) => route(o, res, target));
}

function route(o: HealthServerOptions, res: http.ServerResponse, target: RequestTarget): void {
  if (target.asterisk) {
    sendText(res, 400, '400 Bad Request\n', { Connection: 'close' });
    return;
  }
  const clean = cleanPath(target.path);
  if (clean !== target.path) {
    const location = escapePath(clean) + (target.query ? `?${target.query}` : '');
    sendText(res, 301, 'Moved Permanently\n', { Location: location });
    return;
  }
  if (target.path === '/healthz' || target.path === '/livez') answer(o, res, target.path === '/healthz');
  else notFound(res);
}

function answer(o: HealthServerOptions, res: http.ServerResponse, healthz: boolean): void {
  const report = healthz ? o.health.healthzReport() : o.health.report();
  const ok = 'ok' in report ? report.ok : report.healthy;
  const code = ok ? 200 : 503;
  (healthz ? o.healthzTotal : o.livezTotal)?.inc({ code: String(code) });
  const api = o.apiServer?.();
  const body = JSON.stringify(healthBody(report, api && { connected: api.connected, synced: api.synced, lastError: api.lastError }));
  res.writeHead(code, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}
