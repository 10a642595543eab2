// The phases of one size, each reading the proxy from outside: (a) spawn to first sync, (b) steady
// memory, (c) one-endpoint partial syncs, (d) churn, after which (b) is read again; (e) issue 32's
// partial syncs by kind.
import type { ScaleApiHost } from './api-host';
import type { MemorySampler } from './memory-sampler';
import type { ProxyProcess, SyncLine } from './proxy-process';
import { readProcCpuSeconds } from './proc-cpu';
import { median, percentile } from '../lib/stats';
import { categoryKey, kindsAtSize, seededRandom, spreadGroups, type KindChange, type KindSample, type KindsAtSize, type PartialKind, type ServiceCategory } from '../lib/partial-kinds';
import type { EndpointChange } from './api-host';
import type { ServicePlan } from './cluster-state';
import type { ChurnResult, MemoryReading, PartialResult, Timing } from './scale-types';

const MiB = 1024 * 1024;
const SYNC_SUM = 'kubeproxy_sync_proxy_rules_duration_seconds_sum{ip_family="IPv4"}';
const SYNC_COUNT = 'kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family="IPv4"}';
const ENDPOINT_EVENTS = 'kubeproxy_sync_proxy_rules_endpoint_changes_total';
const SERVICE_EVENTS = 'kubeproxy_sync_proxy_rules_service_changes_total';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface FirstSync {
  startToSyncedS: number;
  seconds: number;
  full: boolean;
  /** CPU the proxy process used from spawn to the first sync (user + system). */
  proxyCpuS: number;
  /** CPU this process (the test API server, serving the lists) used meanwhile. */
  apiServerCpuS: number;
}

/** (a) Waits for the first successful sync; checks the metric holds the same observation as the log line. */
export async function firstSync(proc: ProxyProcess, timeoutMs: number, problems: string[]): Promise<FirstSync> {
  const cpu0 = process.cpuUsage();
  const s = await proc.waitForSync(0, (x) => x.ok, 'the first successful sync', timeoutMs);
  const proxyCpuS = readProcCpuSeconds(proc.pid) ?? NaN;
  const cpu = process.cpuUsage(cpu0);
  const m = await proc.metrics();
  const count = m.get(SYNC_COUNT);
  const sum = m.get(SYNC_SUM);
  if (count === 1 && sum !== undefined && Math.abs(sum - s.seconds) > 1e-6) {
    problems.push(`first sync: the log says ${s.seconds} s, sync_proxy_rules_duration_seconds_sum ${sum} s`);
  }
  if (!s.full) problems.push('the first sync was not a full sync');
  return { startToSyncedS: (s.atMs - proc.spawnedAtMs) / 1000, seconds: s.seconds, full: s.full, proxyCpuS, apiServerCpuS: (cpu.user + cpu.system) / 1e6 };
}

/** (b) After `t.steadyWaitMs`, `t.samples` readings `t.sampleGapMs` apart; the medians. */
export async function steadyMemory(proc: ProxyProcess, sampler: MemorySampler, t: Timing): Promise<MemoryReading> {
  await sleep(t.steadyWaitMs);
  const rss: number[] = [];
  const heap: { used: number; total: number; external: number }[] = [];
  let spaces: Record<string, number> = {};
  for (let i = 0; i < t.samples; i++) {
    if (i > 0) await sleep(t.sampleGapMs);
    const s = sampler.sample();
    if (!s) throw new Error('the proxy process is gone');
    rss.push(s.rssKiB / 1024);
    const m = await proc.metrics();
    heap.push({ used: m.get('nodejs_heap_size_used_bytes') ?? NaN, total: m.get('nodejs_heap_size_total_bytes') ?? NaN, external: m.get('nodejs_external_memory_bytes') ?? NaN });
    spaces = heapSpaces(m);
  }
  return {
    rssMiB: median(rss),
    heapUsedMiB: median(heap.map((h) => h.used)) / MiB,
    heapTotalMiB: median(heap.map((h) => h.total)) / MiB,
    externalMiB: median(heap.map((h) => h.external)) / MiB,
    heapSpacesUsedMiB: spaces,
    samples: t.samples,
    peakRssMiB: sampler.peakKiB() / 1024,
  };
}

/** prom-client's per-space heap gauges (last reading): space -> MiB used. */
function heapSpaces(m: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of m) {
    const hit = /^nodejs_heap_space_size_used_bytes\{space="([^"]+)"\}$/.exec(k);
    if (hit) out[hit[1]] = v / MiB;
  }
  return out;
}

/** (c) `repeats` times: one endpoint of one Service replaced, then its sync awaited (so each change is its own sync). */
export async function partialSyncs(host: ScaleApiHost, proc: ProxyProcess, repeats: number, problems: string[]): Promise<PartialResult> {
  const seconds: number[] = [];
  const latencyMs: number[] = [];
  let full = 0;
  for (let i = 0; i < repeats; i++) {
    const from = proc.syncs.length;
    const t0 = performance.now();
    const ports = host.changeEndpoint();
    const s = await proc.waitForSync(from, (x) => x.ok && x.changed >= 1, `the sync of endpoint change ${i + 1}`, 60_000);
    if (s.full) full++;
    if (s.changed !== ports) problems.push(`partial sync ${i + 1} carried ${s.changed} changed ServicePorts (expected the Service's ${ports})`);
    seconds.push(s.seconds);
    latencyMs.push(s.atMs - t0);
  }
  if (full > 0) problems.push(`${full} of the ${repeats} one-endpoint syncs were full syncs`);
  return { seconds, p50Ms: percentile(seconds, 50) * 1000, p95Ms: percentile(seconds, 95) * 1000, full, latencyMs };
}

/** What the proxy must have counted once every event the bench made has reached a sync. */
export interface ExpectedEvents { services: number; endpointSlices: number }

/** (d) Endpoint changes and Service swaps spread evenly over `t.churnMs`, then waits until all are synced. */
export async function churn(host: ScaleApiHost, proc: ProxyProcess, t: Timing, expected: ExpectedEvents): Promise<ChurnResult> {
  const ticks = Math.max(1, Math.round(t.churnMs / 100));
  const from = proc.syncs.length;
  const t0 = performance.now();
  let changes = 0;
  let swaps = 0;
  for (let k = 1; k <= ticks; k++) {
    for (; changes < Math.round((t.churnEndpointChanges * k) / ticks); changes++) host.changeEndpoint(undefined, changes % 5 === 4 ? 'flip' : 'replace');
    for (; swaps < Math.round((t.churnServiceSwaps * k) / ticks); swaps++) {
      host.addService();
      host.deleteService();
    }
    await sleep(t0 + (k * t.churnMs) / ticks - performance.now());
  }
  expected.endpointSlices += changes + 2 * swaps;
  expected.services += 2 * swaps;
  await allSynced(proc, expected, 120_000);
  const syncs = proc.syncs.slice(from).filter((s) => s.ok);
  const seconds = syncs.map((s) => s.seconds);
  return {
    endpointChanges: changes, servicesAdded: swaps, servicesDeleted: swaps, durationS: (performance.now() - t0) / 1000,
    syncs: syncs.length, fullSyncs: syncs.filter((s) => s.full).length,
    syncP50Ms: percentile(seconds, 50) * 1000, syncP95Ms: percentile(seconds, 95) * 1000,
  };
}

/** A counter's value over all its label sets (the event counters carry `ip_family`, as upstream's). */
function sumSeries(m: ReadonlyMap<string, number>, name: string): number {
  let sum = 0;
  for (const [key, v] of m) if (key === name || key.startsWith(`${name}{`)) sum += v;
  return sum;
}

/** Polls /metrics until the event counters the sync loop keeps reach what the bench sent. */
async function allSynced(proc: ProxyProcess, expected: ExpectedEvents, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const m = await proc.metrics();
    const eps = sumSeries(m, ENDPOINT_EVENTS);
    const svcs = sumSeries(m, SERVICE_EVENTS);
    if (eps >= expected.endpointSlices && svcs >= expected.services) return;
    if (performance.now() > deadline) {
      throw new Error(`after churn, the proxy synced ${eps} of ${expected.endpointSlices} EndpointSlice events and ${svcs} of ${expected.services} Service events`);
    }
    await sleep(250);
  }
}

/** The event counters the sync loop keeps, summed over their label sets. */
async function eventCounts(proc: ProxyProcess): Promise<ExpectedEvents> {
  const m = await proc.metrics();
  return { services: sumSeries(m, SERVICE_EVENTS), endpointSlices: sumSeries(m, ENDPOINT_EVENTS) };
}

export function planCategory(p: ServicePlan): ServiceCategory {
  return { type: p.type, local: p.externalLocal, affinity: p.affinity, ports: p.ports.length };
}

/**
 * (e) Issue 32's partial syncs by kind (bench/lib/partial-kinds.ts): `repeats` rounds of three
 * changes, each awaited as its own sync before the next is made: one ready endpoint of a Service
 * removed (even rounds) or one added (odd rounds); one ready pod of a Service replaced; a Service
 * deleted with its slice (even rounds) or a new one, drawn from the mix, added (odd rounds). Every
 * change is to a different Service, the Services spread over the mix in proportion. One untimed
 * change first: after an idle spell the loop syncs at once on the first event, which could take a
 * new Service without its slice; from then on each change comes right after a sync, so both of its
 * events arrive within the minSyncPeriod (1 s) before the next one. After each sync the event
 * counters on /metrics show whether the whole change was in it.
 */
export async function partialKinds(host: ScaleApiHost, proc: ProxyProcess, n: number, repeats: number, seed: number, problems: string[]): Promise<KindsAtSize> {
  const rand = seededRandom(seed);
  const plan = (i: number): ServicePlan => host.cluster.plans.get(i)!;
  const [counted, replaced, removed] = spreadGroups(host.liveIndices(), [repeats, repeats, Math.ceil(repeats / 2)], (i) => categoryKey(planCategory(plan(i))), rand);
  const picked = new Set([...counted, ...replaced, ...removed]);
  const spare = host.liveIndices().find((i) => !picked.has(i));
  const expected = await eventCounts(proc);
  const samples: KindSample[] = [];
  let split = 0;
  let full = 0;
  /** Makes one change, awaits its sync; `events`: the Service and EndpointSlice events the change makes. */
  const change = async (what: string, act: () => { index: number; ports: number }, events: ExpectedEvents): Promise<{ sync: SyncLine; index: number }> => {
    const from = proc.syncs.length;
    const { index, ports } = act();
    expected.services += events.services;
    expected.endpointSlices += events.endpointSlices;
    let sync = await proc.waitForSync(from, (x) => x.ok && x.changed >= 1, `the sync of ${what}`, 60_000);
    const seen = await eventCounts(proc);
    if (seen.services < expected.services || seen.endpointSlices < expected.endpointSlices) {
      split++;
      const at = proc.syncs.indexOf(sync);
      sync = await proc.waitForSync(at + 1, (x) => x.ok, `the rest of ${what}`, 60_000);
    }
    if (sync.full) full++;
    if (sync.changed !== ports) problems.push(`kinds: the sync of ${what} carried ${sync.changed} changed ServicePorts (expected the Service's ${ports})`);
    return { sync, index };
  };
  const slice = (index: number, how: EndpointChange) => () => ({ index, ports: host.changeEndpoint(index, how) });
  const record = (kind: PartialKind, c: KindChange, r: { sync: SyncLine; index: number }) => {
    samples.push({ kind, change: c, category: planCategory(plan(r.index)), ms: r.sync.seconds * 1000, ops: r.sync.ops, bytes: r.sync.bytes });
  };
  if (spare !== undefined) await change('the warm-up change', slice(spare, 'replace-ready'), { services: 0, endpointSlices: 1 });
  for (let r = 0; r < repeats; r++) {
    const c: KindChange = r % 2 === 0 ? 'endpoint removed' : 'endpoint added';
    record('count-change', c, await change(`${c} (round ${r + 1})`, slice(counted[r], r % 2 === 0 ? 'remove' : 'add'), { services: 0, endpointSlices: 1 }));
    record('replaced', 'pod replaced', await change(`pod replaced (round ${r + 1})`, slice(replaced[r], 'replace-ready'), { services: 0, endpointSlices: 1 }));
    if (r % 2 === 0) {
      const index = removed[r / 2];
      record('service', 'Service removed', await change(`Service removed (round ${r + 1})`, () => {
        host.deleteService(index);
        return { index, ports: plan(index).ports.length };
      }, { services: 1, endpointSlices: 1 }));
    } else {
      record('service', 'Service added', await change(`Service added (round ${r + 1})`, () => {
        const index = host.addService();
        return { index, ports: plan(index).ports.length };
      }, { services: 1, endpointSlices: 1 }));
    }
  }
  if (split > 0) problems.push(`kinds: ${split} of the ${3 * repeats} changes were split over two syncs (the first one's duration is the sample)`);
  if (full > 0) problems.push(`kinds: ${full} of the ${3 * repeats} syncs were full syncs`);
  return kindsAtSize(n, host.cluster.spec.endpoints, samples);
}
