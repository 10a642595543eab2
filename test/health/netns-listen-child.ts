// Run inside a test network namespace (ip netns exec NS node netns-listen-child.js JSON): opens the
// servers the JSON asks for, as the proxy would, probes the given URLs from inside the namespace,
// and prints one JSON line: the bound addresses and, per URL, the HTTP status or the error code.
// Used by dual-stack-listen.test.ts; it is not a test itself.
import * as http from 'node:http';
import * as os from 'node:os';
import { parseCommandLine } from '../../src/config';
import { ProxyHealth } from '../../src/health/proxy-health';
import { startHealthServer } from '../../src/health/health-server';
import { healthCheckAddresses } from '../../src/health/health-check-addresses';
import { ServiceHealthServer } from '../../src/health/service-health';
import type { IPFamily } from '../../src/base/ip-family';
import { startMetricsServer } from '../../src/metrics/server';
import { Registry } from 'prom-client';

export interface ChildRequest {
  /** `healthz`: the healthz server on the default healthzBindAddress (or `bindAddress`). */
  healthz?: { bindAddress?: string };
  /** `metrics`: the metrics server on the default metricsBindAddress. */
  metrics?: boolean;
  /** Health-check node port of default/web on `port`, with `readyLocal` endpoints. */
  nodePort?: { port: number; nodePortAddresses: string[]; families: IPFamily[]; readyLocal: number };
  probe: string[];
}

export interface ChildAnswer {
  bindAddress?: string;
  metricsBindAddress?: string;
  addresses?: string[];
  results: Record<string, number | string>;
}

function probe(url: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

async function main(): Promise<void> {
  const r = JSON.parse(process.argv[2]) as ChildRequest;
  const answer: ChildAnswer = { results: {} };
  const closers: Array<() => Promise<void>> = [];
  if (r.healthz) {
    const bindAddress = r.healthz.bindAddress ?? parseCommandLine([]).config.healthzBindAddress;
    answer.bindAddress = bindAddress;
    const s = await startHealthServer({ bindAddress, health: new ProxyHealth(60_000) });
    closers.push(() => s.close());
  }
  if (r.metrics) {
    const bindAddress = parseCommandLine([]).config.metricsBindAddress;
    answer.metricsBindAddress = bindAddress;
    const s = await startMetricsServer({ bindAddress, registry: new Registry() });
    closers.push(() => s.close());
  }
  if (r.nodePort) {
    const interfaceAddresses = Object.values(os.networkInterfaces()).flatMap((l) => (l ?? []).map((a) => a.address));
    const addresses = healthCheckAddresses({ nodePortAddresses: r.nodePort.nodePortAddresses, families: r.nodePort.families, nodeIPs: [], interfaceAddresses });
    answer.addresses = addresses;
    const hc = new ServiceHealthServer({ addresses, proxyHealthy: () => true });
    await hc.syncServices(new Map([['default/web', r.nodePort.port]]));
    hc.syncEndpoints(new Map([['default/web', r.nodePort.readyLocal]]));
    closers.push(() => hc.closeAll());
  }
  for (const url of r.probe) answer.results[url] = await probe(url);
  for (const c of closers) await c();
  process.stdout.write(JSON.stringify(answer) + '\n');
}

main().catch((e) => {
  process.stderr.write(`netns-listen-child: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
