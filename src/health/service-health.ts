// Health-check node ports for externalTrafficPolicy: Local Services (upstream service_health.go):
// one HTTP server per Service on its healthCheckNodePort, 200 only while the Service has local
// endpoints and the proxy is healthy, so external load balancers skip nodes without them. As upstream's
// hcHandler, every path and method gets the same answer; the hardening of src/http applies.
import type { Log } from '../base/log';
import { type HttpLimits, type RunningServer, serveHardened } from '../http';
import { WILDCARD } from './health-check-addresses';
import { type HealthCheckClaim, healthCheckPortLosses } from './health-check-port-owner';

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

/** A Service whose health-check node port is not open (ServiceHealthServer.failures). */
export interface HealthCheckFailure {
  /** namespace/name */
  service: string;
  port: number;
  reason: string;
  /** Later syncs that failed the same way (not logged). */
  retries: number;
}

export class ServiceHealthServer {
  private readonly services = new Map<string, Instance>();
  /** Services whose port is not open, with what was last reported for them. */
  private readonly failed = new Map<string, { port: number; reason: string; retries: number }>();

  constructor(private readonly o: ServiceHealthOptions) {}

  private addresses(): readonly string[] {
    const a = this.o.addresses;
    return a === undefined ? [WILDCARD] : typeof a === 'function' ? a() : a;
  }

  /**
   * Makes the open servers match `wanted` (namespace/name -> healthCheckNodePort, with the Service's
   * age when known): closes those of Services that went away or changed port, opens the new ones.
   * Of two Services asking for one port, the older gets it (health-check-port-owner.ts). A port that
   * cannot be opened is left out and tried again on every later call, as upstream does; unlike
   * upstream, which logs and records the Warning event on every failed try, it is reported once per
   * change (a new port or a new reason), and again when it opens.
   */
  async syncServices(wanted: ReadonlyMap<string, number | HealthCheckClaim>): Promise<void> {
    const claims = new Map<string, HealthCheckClaim>();
    for (const [nsName, w] of wanted) {
      const claim = typeof w === 'number' ? { port: w } : w;
      splitName(nsName);
      if (!Number.isInteger(claim.port) || claim.port < 0 || claim.port > 65535) throw new Error(`healthCheckNodePort of ${nsName}: ${claim.port} is not a port`);
      claims.set(nsName, claim);
    }
    const losses = healthCheckPortLosses(claims);
    for (const [nsName, inst] of [...this.services]) {
      if (claims.get(nsName)?.port === inst.port && !losses.has(nsName)) continue;
      this.o.log?.info({ service: nsName, port: inst.port }, 'closing healthcheck');
      this.services.delete(nsName);
      await Promise.all(inst.servers.map((s) => s.close()));
    }
    // A Service no longer asking for a port has no failure left to report.
    for (const nsName of [...this.failed.keys()]) if (!claims.has(nsName)) this.failed.delete(nsName);
    for (const [nsName, { port }] of claims) {
      if (this.services.has(nsName)) continue;
      const loss = losses.get(nsName);
      if (loss) {
        this.reportFailure(nsName, port, loss.reason);
        continue;
      }
      const inst: Instance = { port, servers: [], localEndpoints: 0 };
      const addresses = this.addresses();
      try {
        for (const addr of addresses) inst.servers.push(await this.serve(nsName, addr, port));
      } catch (err) {
        await Promise.all(inst.servers.map((s) => s.close()));
        this.reportFailure(nsName, port, err instanceof Error ? err.message : String(err));
        continue;
      }
      this.services.set(nsName, inst);
      const before = this.failed.get(nsName);
      this.failed.delete(nsName);
      if (before) this.o.log?.info({ service: nsName, port, addresses, failedBefore: before.reason }, 'opened healthcheck after failing');
      else this.o.log?.info({ service: nsName, port, addresses }, 'opened healthcheck');
    }
  }

  /**
   * Logs and records the event when this failure is new for the Service (first, or another port or
   * reason than last time); the same failure on later syncs is counted only.
   */
  private reportFailure(nsName: string, port: number, reason: string): void {
    const before = this.failed.get(nsName);
    if (before && before.port === port && before.reason === reason) {
      before.retries++;
      return;
    }
    this.failed.set(nsName, { port, reason, retries: 0 });
    this.o.log?.error({ service: nsName, port, err: reason },
      'failed to start healthcheck; tried again on every sync, logged again only if the port or the reason changes');
    this.o.onFailedToStart?.(splitName(nsName), failedToStartMessage(this.o.nodeName ?? '', nsName, port, reason));
  }

  /**
   * The Services whose health-check node port is not open now, by name: the port, why (the last
   * bind error, or the Service that owns a shared port) and how many later syncs failed alike.
   */
  failures(): HealthCheckFailure[] {
    return [...this.failed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([service, f]) => ({ service, port: f.port, reason: f.reason, retries: f.retries }));
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
