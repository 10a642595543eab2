// Replaces a Service's pods one by one as a Deployment's rolling update does, writing the EndpointSlices
// as the EndpointSlice controller would: the new pod joins ready (before or after the old one starts
// terminating: RolloutTiming.order); the old one turns `ready=false, serving=true, terminating=true` as
// it gets SIGTERM and drains; then it leaves the slice; it keeps serving for a grace period after that,
// then stops. Each step waits until the node's
// endpoint maps hold what the proxy should select (ready endpoints, else the serving terminating ones):
// on a real cluster the grace period is chosen to cover propagation, and here the machine's speed must
// not decide the outcome.
import type { Pod } from '../helpers/topology';
import { DrainingServer, type ServerCounts } from './draining-server';
import { endpointSlice, OTHER_NODE, type EndpointSpec, type PortSpec } from './fixtures';
import { eventually, ruleset, type Cluster } from './harness';

export interface RolloutTiming {
  /**
   * surge-first (maxSurge 1, maxUnavailable 0): the new pod is ready before the old one terminates.
   * terminate-first (maxSurge 0, maxUnavailable 1): the old one terminates first, so while the new one
   * starts the proxy must fall back to serving terminating endpoints where no ready one is left.
   */
  order: 'surge-first' | 'terminate-first';
  /** How long the new pod and the old one are both in the slice before the next step. */
  surgeMs: number;
  /** How long the old endpoint stays in the slice as terminating. */
  drainMs: number;
  /**
   * How long the old pod keeps serving after it left the slice. The last request the old pod can get
   * comes just before the step that deselects it (terminating, or the new pod ready in terminate-first
   * order) is applied; what follows that step until the stop must outlast the slowest request, as a
   * real pod's grace period must.
   */
  graceMs: number;
}

export interface Replaced { old: string; next: string; counts: ServerCounts }

/** What a rollout writes and where the node's maps show it. */
export interface RolloutTarget {
  /** The Services (names and ports) whose slices list the pods. */
  services: { name: string; ports: PortSpec[] }[];
  /**
   * Their paths as the node's endpoint maps show them: the kind of map (`endpoints-`, `nodeport-endpoints-`,
   * `nodeport-local-endpoints-`: only this node's endpoints) and the key without its index
   * (`100.100.6.10 . tcp . 80`, `tcp . 30580`).
   */
  destinations: { map: string; key: string }[];
}

/**
 * The endpoint addresses one kind of endpoint map holds for one destination (every map of that kind:
 * `endpoints-1`, `endpoints-2`, ...), sorted, space-separated. `mapPrefix` is the kind (`endpoints-`,
 * `nodeport-endpoints-`, `nodeport-local-endpoints-`); `destination` the key without its index.
 */
export function programmedEndpoints(rules: string, mapPrefix: string, destination: string): string {
  const escaped = destination.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const entry = new RegExp(`(?:^|[\\s{,])${escaped} \\. \\d+ : ([0-9a-f.:]+) \\. \\d+`, 'g');
  const ips = new Set<string>();
  for (const [, name, body] of rules.matchAll(/\n\tmap ([\w-]+) \{([\s\S]*?)\n\t\}/g)) {
    if (!name.startsWith(mapPrefix) || !/^\d+$/.test(name.slice(mapPrefix.length))) continue;
    for (const m of body.matchAll(entry)) ips.add(m[1]);
  }
  return [...ips].sort().join(' ');
}

/**
 * The addresses the proxy should send a path's new connections to (upstream's CategorizeEndpoints):
 * the ready ones among the path's candidates (this node's only, for a Local path), else its serving
 * terminating ones.
 */
function selected(endpoints: EndpointSpec[], localOnly: boolean): string {
  const candidates = endpoints.filter((e) => !localOnly || e.nodeName === undefined);
  const ready = candidates.filter((e) => !e.terminating);
  return (ready.length > 0 ? ready : candidates).map((e) => e.ip).sort().join(' ');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Rollout {
  private readonly terminating = new Set<DrainingServer>();
  private written = false;
  /** What happened when, in ms since the rollout began: to place a failure's time. */
  readonly events: string[] = [];
  /** When the rollout began (Date.now()); `events` count from here. */
  readonly startedAt = Date.now();

  /** `servers` are this node's pods, `remote` ones (never replaced) are listed on another node. */
  constructor(
    private readonly c: Cluster,
    private readonly target: RolloutTarget,
    private servers: DrainingServer[],
    private readonly remote: DrainingServer[] = [],
  ) {}

  /** Writes every Service's slice from the current servers and waits until the node's maps follow. */
  async publish(): Promise<void> {
    const endpoints: EndpointSpec[] = [...this.servers, ...this.remote].map((s) => ({
      ip: s.pod.ip,
      nodeName: this.remote.includes(s) ? OTHER_NODE : undefined,
      ...(this.terminating.has(s) ? { ready: false, serving: true, terminating: true } : {}),
    }));
    for (const { name, ports } of this.target.services) {
      const slice = endpointSlice(name, `${name}-1`, { ports, endpoints });
      if (this.written) this.c.api.update('endpointslices', slice);
      else this.c.api.create('endpointslices', slice);
    }
    this.written = true;
    const want = this.target.destinations.map((d) => ({ ...d, ips: selected(endpoints, d.map.includes('local')) }));
    let last = '';
    await eventually(() => {
      const rules = ruleset(this.c);
      const held = want.map((d) => programmedEndpoints(rules, d.map, d.key));
      last = want.map((d, i) => `${d.map}${d.key}: ${held[i]}`).join('; ');
      return want.every((d, i) => held[i] === d.ips);
    }, () => `the endpoint maps to hold ${want.map((d) => `${d.map}${d.key}: ${d.ips}`).join('; ')} (they hold ${last})`, 20_000);
  }

  /** Replaces `old` by a server in `next`, step by step; resolves once the old one has stopped. */
  async replace(old: DrainingServer, next: Pod, timing: RolloutTiming): Promise<Replaced> {
    const surge = async (): Promise<void> => {
      const fresh = await DrainingServer.start(next, old.port);
      this.servers = [...this.servers, fresh];
      await this.step(`${next.name} ready`, timing.surgeMs);
    };
    if (timing.order === 'surge-first') await surge();
    old.terminate();
    this.terminating.add(old);
    await this.step(`${old.pod.name} terminating`, timing.drainMs);
    if (timing.order === 'terminate-first') await surge();
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
    this.events.push(`${Date.now() - this.startedAt}ms ${what}`);
  }
}
