// /healthz and /livez on healthzBindAddress (default 0.0.0.0:10256), with upstream's status codes and
// JSON body. /livez reflects only the proxy; /healthz also fails while the node is going away.
import * as http from 'node:http';
import type { Counter } from 'prom-client';
import { parseBindAddress } from '../metrics/bind-address';
import { listen, RunningServer } from '../metrics/server';
import { HealthReport, ProxyHealth } from './proxy-health';

export interface HealthServerOptions {
  bindAddress: string;
  health: ProxyHealth;
  healthzTotal?: Counter<'code'>;
  livezTotal?: Counter<'code'>;
  /**
   * The API watchers' state (ClusterWatcher.status()), reported as an extra `apiServer` field. It never
   * changes the status code: like upstream, an API-server outage keeps the last state and is not a reason
   * to restart or drain the proxy.
   */
  apiServer?: () => { connected: boolean; synced: boolean; lastError?: string };
}

/** Go's zero time.Time, which upstream prints before the first successful sync. */
const ZERO_TIME = '0001-01-01T00:00:00Z';
const time = (d: Date | undefined): string => (d ? d.toISOString() : ZERO_TIME);

export function healthBody(r: HealthReport, nodeEligible?: boolean, apiServer?: unknown): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  for (const [family, s] of Object.entries(r.status)) status[family] = { lastUpdated: time(s!.lastUpdated), healthy: s!.healthy };
  // Keys in upstream's order (ProxyHealth's JSON tags); nodeEligible only on /healthz, status only when non-empty.
  const body: Record<string, unknown> = {
    // As upstream: a healthy answer reports lastUpdated as now, for old clients that compare the two.
    lastUpdated: time(r.healthy && nodeEligible !== false ? r.currentTime : r.lastUpdated),
    currentTime: time(r.currentTime),
  };
  if (nodeEligible !== undefined) body.nodeEligible = nodeEligible;
  body.healthy = r.healthy;
  if (Object.keys(status).length > 0) body.status = status;
  if (apiServer !== undefined) body.apiServer = apiServer;
  return body;
}

export async function startHealthServer(o: HealthServerOptions): Promise<RunningServer> {
  const { host, port } = parseBindAddress(o.bindAddress, 'healthzBindAddress');
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path !== '/healthz' && path !== '/livez') {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('404 page not found\n');
      return;
    }
    const report = o.health.report();
    const withNode = path === '/healthz';
    const eligible = withNode ? o.health.nodeEligible() : undefined;
    const ok = report.healthy && eligible !== false;
    const code = ok ? 200 : 503;
    (withNode ? o.healthzTotal : o.livezTotal)?.inc({ code: String(code) });
    res.writeHead(code, { 'Content-Type': 'application/json', 'X-Content-Type-Options': 'nosniff' });
    const api = o.apiServer?.();
    res.end(JSON.stringify(healthBody(report, eligible, api && { connected: api.connected, synced: api.synced, lastError: api.lastError })));
  });
  return listen(server, host, port, 'healthzBindAddress');
}
