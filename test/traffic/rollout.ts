// Replaces a Service's pods one by one as a Deployment's rolling update does, writing the EndpointSlices
// as the EndpointSlice controller would: the new pod joins ready; the old one turns
// `ready=false, serving=true, terminating=true` as it gets SIGTERM and drains; then it leaves the
// slice; it keeps serving for a grace period after that, then stops. Each step waits until the node's
// endpoint maps hold what the proxy should select (ready endpoints, else the serving terminating ones):
// on a real cluster the grace period is chosen to cover propagation, and here the machine's speed must
// not decide the outcome.
import type { Pod } from '../helpers/topology';
import { DrainingServer, type ServerCounts } from './draining-server';
import { endpointSlice, type EndpointSpec, type PortSpec } from './fixtures';
import { eventually, ruleset, type Cluster } from './harness';

export interface RolloutTiming {
  /** From the new pod being added to the old one getting SIGTERM (and turning terminating). */
  surgeMs: number;
  /** How long the old endpoint stays in the slice as terminating. */
  drainMs: number;
  /** How long the old pod keeps serving after it left the slice. */
  graceMs: number;
}

export interface Replaced { old: string; next: string; counts: ServerCounts }

/** The endpoint addresses the maps hold for one destination, sorted, space-separated. */
export function programmedEndpoints(rules: string, destination: string): string {
  const escaped = destination.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(?:^|[\\s{,])${escaped} \\. \\d+ : ([0-9a-f.:]+) \\. \\d+`, 'g');
  return [...new Set([...rules.matchAll(re)].map((m) => m[1]))].sort().join(' ');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Rollout {
  private readonly terminating = new Set<DrainingServer>();
  private written = false;
  /** What happened when, in ms since the rollout began: to place a failure's time. */
  readonly events: string[] = [];
  private readonly t0 = Date.now();

  /**
   * `services`: the Services (names and ports) whose slices list these pods; `destinations`: the
   * endpoint-map keys of their paths without the index (`100.100.6.10 . tcp . 80`, `tcp . 30580`).
   */
  constructor(
    private readonly c: Cluster,
    private readonly services: { name: string; ports: PortSpec[] }[],
    private readonly destinations: string[],
    private servers: DrainingServer[],
  ) {}

  /** Writes every Service's slice from the current servers and waits until the node's maps follow. */
  async publish(): Promise<void> {
    const endpoints: EndpointSpec[] = this.servers.map((s) => (this.terminating.has(s)
      ? { ip: s.pod.ip, ready: false, serving: true, terminating: true }
      : { ip: s.pod.ip }));
    for (const { name, ports } of this.services) {
      const slice = endpointSlice(name, `${name}-1`, { ports, endpoints });
      if (this.written) this.c.api.update('endpointslices', slice);
      else this.c.api.create('endpointslices', slice);
    }
    this.written = true;
    const ready = endpoints.filter((e) => !e.terminating);
    const want = (ready.length > 0 ? ready : endpoints).map((e) => e.ip).sort().join(' ');
    let last = '';
    await eventually(() => {
      const rules = ruleset(this.c);
      last = this.destinations.map((d) => `${d}: ${programmedEndpoints(rules, d)}`).join('; ');
      return this.destinations.every((d) => programmedEndpoints(rules, d) === want);
    }, () => `the endpoint maps to hold ${want} (they hold ${last})`, 20_000);
  }

  /** Replaces `old` by a server in `next`, step by step; resolves once the old one has stopped. */
  async replace(old: DrainingServer, next: Pod, timing: RolloutTiming): Promise<Replaced> {
    const fresh = await DrainingServer.start(next, old.port);
    this.servers = [...this.servers, fresh];
    await this.step(`${next.name} ready`, timing.surgeMs);
    old.terminate();
    this.terminating.add(old);
    await this.step(`${old.pod.name} terminating`, timing.drainMs);
    this.servers = this.servers.filter((s) => s !== old);
    this.terminating.delete(old);
    old.removed();
    await this.step(`${old.pod.name} removed`, timing.graceMs);
    const counts = await old.stop();
    this.note(`${old.pod.name} stopped`);
    return { old: old.pod.name, next: next.name, counts };
  }

  get current(): readonly DrainingServer[] {
    return this.servers;
  }

  private async step(what: string, thenWaitMs: number): Promise<void> {
    this.note(`${what} (written)`);
    await this.publish();
    this.note(`${what} (applied)`);
    await sleep(thenWaitMs);
  }

  private note(what: string): void {
    this.events.push(`${Date.now() - this.t0}ms ${what}`);
  }
}
