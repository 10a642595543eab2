// Health-check node ports for externalTrafficPolicy: Local Services (upstream service_health.go):
// one HTTP server per Service on its healthCheckNodePort, 200 only while the Service has local
// endpoints and the proxy is healthy, so external load balancers skip nodes without them. As upstream's
// hcHandler, every path and method gets the same answer; the hardening of src/http applies.
import type { Log } from '../base/log';
import { type HttpLimits, type RunningServer, serveHardened } from '../http';
import { WILDCARD } from './health-check-addresses';

export interface ServiceHealthOptions {
  /**
   * Addresses to listen on (health-check-addresses.ts), read each time a Service's port is opened;
   * undefined: every address of both families. An empty list opens nothing, as upstream when no node
   * address matches nodePortAddresses.
   */
  addresses?: readonly string[] | (() => readonly string[]);
  proxyHealthy: () => boolean;
  /** This node's name, for upstream's message when a port cannot be opened. */
  nodeName?: string;
  /**
   * A port could not be opened: upstream records the Warning event FailedToStartServiceHealthcheck on
   * the Service with this message. Must not throw.
   */
  onFailedToStart?: (service: { namespace: string; name: string }, message: string) => void;
  /** Opening/closing servers, and (rate-limited) bad requests and failed handlers. */
  log?: Pick<Log, 'info' | 'warn' | 'error'>;
  limits?: Partial<HttpLimits>;
}

interface Instance {
  port: number;
  servers: RunningServer[];
  localEndpoints: number;
}

/** Upstream's note: `node %s failed to start healthcheck %q on port %d: %v`. */
export function failedToStartMessage(nodeName: string, nsName: string, port: number, err: unknown): string {
  return `node ${nodeName} failed to start healthcheck ${JSON.stringify(nsName)} on port ${port}: ${err instanceof Error ? err.message : String(err)}`;
}

function splitName(nsName: string): { namespace: string; name: string } {
  const i = nsName.indexOf('/');
  if (i <= 0) throw new Error(`service name ${JSON.stringify(nsName)}: expected "namespace/name"`);
  return { namespace: nsName.slice(0, i), name: nsName.slice(i + 1) };
}

export class ServiceHealthServer {
  private readonly services = new Map<string, Instance>();

  constructor(private readonly o: ServiceHealthOptions) {}

  private addresses(): readonly string[] {
    const a = this.o.addresses;
    return a === undefined ? [WILDCARD] : typeof a === 'function' ? a() : a;
  }

  /**
   * Makes the open servers match `wanted` (namespace/name -> healthCheckNodePort): closes those of
   * Services that went away or changed port, opens the new ones. A port that cannot be opened is
   * logged and left out (retried on the next call), as upstream does.
   */
  async syncServices(wanted: ReadonlyMap<string, number>): Promise<void> {
    for (const [nsName, inst] of [...this.services]) {
      if (wanted.get(nsName) === inst.port) continue;
      this.o.log?.info({ service: nsName, port: inst.port }, 'closing healthcheck');
      this.services.delete(nsName);
      await Promise.all(inst.servers.map((s) => s.close()));
    }
    for (const [nsName, port] of wanted) {
      if (this.services.has(nsName)) continue;
      splitName(nsName);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`healthCheckNodePort of ${nsName}: ${port} is not a port`);
      const inst: Instance = { port, servers: [], localEndpoints: 0 };
      try {
        const addresses = this.addresses();
        for (const addr of addresses) inst.servers.push(await this.serve(nsName, addr, port));
        this.services.set(nsName, inst);
        this.o.log?.info({ service: nsName, port, addresses }, 'opened healthcheck');
      } catch (err) {
        await Promise.all(inst.servers.map((s) => s.close()));
        this.o.log?.error({ service: nsName, port, err: String(err) }, 'failed to start healthcheck');
        this.o.onFailedToStart?.(splitName(nsName), failedToStartMessage(this.o.nodeName ?? '', nsName, port, err));
      }
    }
  }

  /** Local endpoint counts per namespace/name; Services not listed have none. */
  syncEndpoints(counts: ReadonlyMap<string, number>): void {
    for (const [nsName, inst] of this.services) inst.localEndpoints = counts.get(nsName) ?? 0;
  }

  /** Ports actually bound per Service (differs from the requested port only when that was 0). */
  boundPorts(nsName: string): number[] {
    return this.services.get(nsName)?.servers.map((s) => s.port) ?? [];
  }

  openServices(): string[] {
    return [...this.services.keys()].sort();
  }

  async closeAll(): Promise<void> {
    await this.syncServices(new Map());
  }

  private serve(nsName: string, address: string, port: number): Promise<RunningServer> {
    const name = `healthCheckNodePort ${nsName}`;
    return serveHardened({ name, log: this.o.log, limits: this.o.limits, host: address, port, what: `healthCheckNodePort of ${nsName}` }, (_req, res) => {
      const inst = this.services.get(nsName);
      const count = inst?.localEndpoints ?? 0;
      const healthy = this.o.proxyHealthy();
      const body = JSON.stringify({ service: splitName(nsName), localEndpoints: count, serviceProxyHealthy: healthy }, null, '\t');
      res.writeHead(count !== 0 && healthy ? 200 : 503, {
        'Content-Type': 'application/json',
        'X-Content-Type-Options': 'nosniff',
        'X-Load-Balancing-Endpoint-Weight': String(count),
        'Content-Length': String(Buffer.byteLength(body)),
      });
      res.end(body);
    });
  }
}
