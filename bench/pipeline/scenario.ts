// One cluster size through the real pipeline: model -> NftablesProxier -> addon -> kernel (fresh
// namespace). Runs in its own child process (see run-pipeline.ts) so RSS is this size's alone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpointIp, syntheticService, SynthService, ClusterSpec } from '../lib/cluster';
import { Cost, measureNftFile } from '../lib/measure';
import { benchNetns, teardown } from '../lib/netns';
import { progress } from '../report/table';
import { histogramTotals, HistogramTotals } from './histogram';
import { ModelDriver } from './model-driver';
import { FULL_METRIC, PipelineParts, SYNC_METRIC } from './parts';
import type { ProxyState } from '../../src/core/proxy-state';

export type SyncKind = 'full-initial' | 'full' | 'partial-1-endpoint' | 'partial-100-added';

export interface SyncSample {
  kind: SyncKind;
  /** This sync's observation in sync_proxy_rules_duration_seconds (the histogram's _sum delta). */
  metricS: number;
  /** The bench's clock around SyncLoop.run(): also covers takeChanges() and post-sync bookkeeping. */
  wallS: number;
  userS: number;
  sysS: number;
  ops: number;
  bytes: number;
  messages: number;
  /** Wall time of the sync's commits, around Nft.commit (the kernel's part). */
  commitMs: number;
}

/** Bucket upper bounds as strings ('+Inf' survives JSON) with the observations this phase added. */
export interface PhaseBuckets { kind: SyncKind; buckets: [string, number][]; count: number }

export interface SizeResult {
  n: number;
  endpointsPerService: number;
  nodePortShare: number;
  model: string;
  proxier: string;
  metricName: string;
  samples: SyncSample[];
  /** Bucket counts each phase added to the histogram (its own resolution). */
  phaseBuckets: PhaseBuckets[];
  rssMiB: { afterModel: number; afterInitialSync: number; end: number; peak: number };
  heapUsedMiB: number;
  nftFile: Cost & { ops: number; scriptMB: number };
  kernelServiceIps?: number;
  errors: string[];
}

export interface ScenarioOptions { n: number; endpoints: number; nodePortShare: number; fullRepeats: number; partialRepeats: number; addRepeats: number }

const MiB = (b: number) => b / 1024 / 1024;

function bucketDelta(before: HistogramTotals, after: HistogramTotals): [string, number][] {
  return [...after.buckets].map(([le, c]) => [le === Infinity ? '+Inf' : String(le), c - (before.buckets.get(le) ?? 0)] as [string, number]);
}

/** Collect the previous phase's garbage first, so one phase's allocations are not charged to the next. */
export function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** One sync through the program's SyncLoop; the duration is read back from its histogram. */
export async function measureSync(parts: PipelineParts, kind: string, full: boolean): Promise<{ sample: Omit<SyncSample, 'kind'>; errors: string[] }> {
  const errors: string[] = [];
  const reg = parts.registry;
  const before = await histogramTotals(reg, SYNC_METRIC);
  const fullBefore = await histogramTotals(reg, FULL_METRIC);
  const commitsBefore = parts.commits.length;
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const ok = await parts.sync(full);
  const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const after = await histogramTotals(reg, SYNC_METRIC);
  const wasFull = (await histogramTotals(reg, FULL_METRIC)).count > fullBefore.count;
  if (!ok) errors.push(`${kind} sync failed (see the logged errors)`);
  if (after.count - before.count !== 1) errors.push(`${kind} sync added ${after.count - before.count} observations to ${SYNC_METRIC}, expected 1`);
  if (wasFull !== full) errors.push(`${kind} sync was ${wasFull ? 'full' : 'partial'}, expected ${full ? 'full' : 'partial'}`);
  const commits = parts.commits.slice(commitsBefore);
  return {
    sample: {
      metricS: after.sum - before.sum, wallS, userS: cpu.user / 1e6, sysS: cpu.system / 1e6,
      ops: commits.reduce((a, c) => a + c.ops, 0),
      bytes: commits.reduce((a, c) => a + c.stats.bytes, 0),
      messages: commits.reduce((a, c) => a + c.stats.messages, 0),
      commitMs: commits.reduce((a, c) => a + c.ms, 0),
    },
    errors,
  };
}

class Recorder {
  readonly samples: SyncSample[] = [];
  readonly phases: PhaseBuckets[] = [];
  readonly errors: string[] = [];
  constructor(private readonly parts: PipelineParts) {}

  async sync(kind: SyncKind, full: boolean): Promise<void> {
    const { sample, errors } = await measureSync(this.parts, kind, full);
    this.errors.push(...errors);
    this.samples.push({ kind, ...sample });
  }

  async phase(kind: SyncKind, repeats: number, full: boolean, change: (r: number) => void): Promise<void> {
    collectGarbage();
    const before = await histogramTotals(this.parts.registry, SYNC_METRIC);
    for (let r = 0; r < repeats; r++) {
      change(r);
      await this.sync(kind, full);
    }
    const after = await histogramTotals(this.parts.registry, SYNC_METRIC);
    this.phases.push({ kind, buckets: bucketDelta(before, after), count: after.count - before.count });
    const last = this.samples.filter((s) => s.kind === kind).map((s) => s.metricS.toFixed(3));
    progress(`N=${this.parts.n}: ${kind} x${repeats}: ${last.join(' ')} s`);
  }
}

/** Replace one pod of Service `s` (a new IP in slot `slot`): the commonest endpoint change. */
function replaceOnePod(s: SynthService, slot: number, gen: number, perService: number): SynthService {
  const endpoints = s.endpoints.map((ep, i) => (i === slot ? { ip: endpointIp(s.index, i, perService, gen), port: ep.port } : ep));
  return { ...s, endpoints };
}

function nftFileCost(script: string, ops: number): SizeResult['nftFile'] {
  const dir = mkdtempSync(join(tmpdir(), 'kpn-bench-'));
  const file = join(dir, 'full-sync.nft');
  writeFileSync(file, script);
  const ns = benchNetns();
  try {
    return { ...measureNftFile(ns.name, file), ops, scriptMB: script.length / 1e6 };
  } finally {
    teardown(ns);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * ClusterIP destinations the kernel holds: elements of `cluster-ip-ports` (Services served by the
 * endpoint maps) plus `service-ips` (Services with session affinity, served by their own chains).
 * One set at a time: listing whole tables takes minutes at 30k+ Services.
 */
function kernelServiceIps(nft: (args: string[]) => string): number {
  const count = (kind: 'set' | 'map', name: string): number => {
    const out = nft(['-j', 'list', kind, 'ip', 'kube-proxy', name]);
    const obj = JSON.parse(out).nftables.find((o: Record<string, unknown>) => o[kind]);
    return obj?.[kind]?.elem?.length ?? 0;
  };
  return count('set', 'cluster-ip-ports') + count('map', 'service-ips');
}

export async function runScenario(o: ScenarioOptions, makeParts: (netnsPath: string, n: number, state: ProxyState) => Promise<PipelineParts>): Promise<SizeResult> {
  const spec: ClusterSpec = { services: o.n, endpointsPerService: o.endpoints, nodePortShare: o.nodePortShare };
  progress(`N=${o.n}: building the model from ${o.n} Services and EndpointSlices`);
  const driver = new ModelDriver();
  const services: SynthService[] = [];
  for (let i = 0; i < o.n; i++) {
    services.push(syntheticService(i, spec));
    driver.upsert(services[i]);
  }
  const rssAfterModel = MiB(process.memoryUsage().rss);
  const ns = benchNetns();
  try {
    const parts = await makeParts(ns.path, o.n, driver.state);
    const rec = new Recorder(parts);
    progress(`N=${o.n}: initial full sync into an empty namespace`);
    await rec.phase('full-initial', 1, true, () => undefined);
    const initial = parts.commits[0];
    const rssAfterInitial = MiB(process.memoryUsage().rss);
    await rec.phase('full', o.fullRepeats, true, () => undefined);
    await rec.phase('partial-1-endpoint', o.partialRepeats, false, (r) => {
      const i = (r * 7919 + 1) % o.n;
      services[i] = replaceOnePod(services[i], r % o.endpoints, r + 1, o.endpoints);
      driver.upsert(services[i]);
    });
    await rec.phase('partial-100-added', o.addRepeats, false, (r) => {
      for (let j = 0; j < 100; j++) driver.upsert(syntheticService(o.n + r * 100 + j, spec));
    });
    const kernelCount = kernelServiceIps((args) => ns.nft(...args));
    const expected = o.n + 100 * o.addRepeats;
    if (kernelCount !== expected) rec.errors.push(`the kernel holds ${kernelCount} ClusterIP destinations (cluster-ip-ports + service-ips), expected ${expected}`);
    rec.errors.push(...parts.errors.slice(0, 20), ...driver.warnings);
    const rssEnd = MiB(process.memoryUsage().rss);
    // Before the nft -f comparison: writing the initial transaction as a script is the bench's own work.
    const rssPeak = process.resourceUsage().maxRSS / 1024;
    const heapUsedMiB = MiB(process.memoryUsage().heapUsed);
    parts.close();
    if (!initial?.tx) throw new Error('the initial full sync committed no transaction');
    progress(`N=${o.n}: the initial full sync's transaction through nft -f into a fresh namespace`);
    const nftFile = nftFileCost(initial.tx.toNftScript(), initial.ops);
    progress(`N=${o.n}: nft -f ${nftFile.wallS.toFixed(3)} s`);
    return {
      n: o.n, endpointsPerService: o.endpoints, nodePortShare: o.nodePortShare,
      model: driver.kind, proxier: parts.description, metricName: SYNC_METRIC,
      samples: rec.samples, phaseBuckets: rec.phases,
      rssMiB: { afterModel: rssAfterModel, afterInitialSync: rssAfterInitial, end: rssEnd, peak: rssPeak },
      heapUsedMiB, nftFile, kernelServiceIps: kernelCount, errors: rec.errors,
    };
  } finally {
    teardown(ns);
  }
}
