// The metrics HTTP server on metricsBindAddress (default 127.0.0.1:10249): /metrics, plus the small
// endpoints upstream serves beside it (/healthz, /proxyMode, /configz).
import * as http from 'node:http';
import { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { parseBindAddress } from './bind-address';

export interface MetricsServerOptions {
  bindAddress: string;
  registry: Registry;
  /** Answered at /proxyMode, e.g. "nftables". */
  proxyMode?: string;
  /** Serialised at /configz. */
  config?: () => unknown;
}

export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

export async function startMetricsServer(o: MetricsServerOptions): Promise<RunningServer> {
  const { host, port } = parseBindAddress(o.bindAddress, 'metricsBindAddress');
  const server = http.createServer((req, res) => {
    void handle(o, req, res).catch((err: Error) => {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(`metrics collection failed: ${err.message}\n`);
    });
  });
  return listen(server, host, port, 'metricsBindAddress');
}

async function handle(o: MetricsServerOptions, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (path === '/metrics') {
    const body = await o.registry.metrics();
    res.writeHead(200, { 'Content-Type': o.registry.contentType });
    res.end(body);
  } else if (path === '/healthz') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end('ok');
  } else if (path === '/proxyMode' && o.proxyMode) {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(o.proxyMode);
  } else if (path === '/configz' && o.config) {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ kubeproxy: o.config() }));
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('404 page not found\n');
  }
}

/** Listens, naming `what` (the setting or Service it serves) in the error when the port can't be had. */
export function listen(server: http.Server, host: string, port: number, what: string): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const fail = (err: NodeJS.ErrnoException): void => reject(new Error(`${what}: cannot listen on ${host}:${port}: ${err.code ?? err.message}`));
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
          }),
      });
    });
  });
}
