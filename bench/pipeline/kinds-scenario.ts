// Issue 32's partial syncs by kind through the real pipeline (model -> SyncLoop -> NftablesProxier
// -> addon -> a fresh namespace), in a child process of its own per size (run-pipeline.ts): the
// generator's realistic mix (bench/lib/cluster.ts, ClusterSpec.mix) with 6 endpoints per Service,
// one full sync, a few untimed partial syncs, then R rounds of three changes, each its own sync:
//   count-change  one endpoint of a Service removed (even rounds) or one added (odd rounds)
//   replaced      one pod of a Service replaced by a new one (a new IP), the count unchanged
//   service       a Service removed with its slice (even rounds) or a new one added (odd rounds)
// Every change is to a different Service; the Services are spread over the mix's categories in
// proportion (bench/lib/partial-kinds.ts, spreadGroups). A new Service has the category of a Service
// drawn the same way: its index keeps that Service's index mod 200, which decides the mix.
import { loadavg } from 'node:os';
import { ip4ToInt, intToIp4, syntheticService, type ClusterSpec, type SynthService } from '../lib/cluster';
import { benchNetns, teardown } from '../lib/netns';
import { categoryKey, kindsAtSize, seededRandom, spreadGroups, type KindChange, type KindSample, type KindsAtSize, type PartialKind, type ServiceCategory } from '../lib/partial-kinds';
import { progress } from '../report/table';
import { ModelDriver } from './model-driver';
import type { PipelineParts } from './parts';
import { collectGarbage, measureSync } from './scenario';
import type { ProxyState } from '../../src/core/proxy-state';

export interface KindsOptions { n: number; endpoints: number; nodePortShare: number; repeats: number; seed: number }

export interface KindsResult extends KindsAtSize {
  nodePortShare: number;
  /** The first full sync of the mixed cluster, ms (sync_proxy_rules_duration_seconds). */
  firstSyncMs: number;
  loadavgEnd: number[];
  errors: string[];
}

/** Addresses for the endpoints this scenario adds: the generator's first generation of pods (all it uses here) stays below 10.160.0.0 up to 2 million endpoints. */
const FRESH_BASE = ip4ToInt('10.192.0.1');
/** The mix repeats every 200 indexes (ports every 4, NodePorts 10, LoadBalancers 20, Local 40, affinity 100). */
const MIX_PERIOD = 200;
/** Untimed partial syncs after the full sync: the first commits after a large one pay for freeing its generation. */
const WARMUP_SYNCS = 5;

export function categoryOf(s: SynthService): ServiceCategory {
  return {
    type: s.loadBalancerIP ? 'LoadBalancer' : s.nodePort ? 'NodePort' : 'ClusterIP',
    local: !!s.externalLocal, affinity: !!s.affinity, ports: s.secondPort ? 2 : 1,
  };
}

/** Service `s` without endpoint `slot` (its local endpoint, if that was the one, gone with it). */
export function withoutEndpoint(s: SynthService, slot: number): SynthService {
  const endpoints = s.endpoints.filter((_, i) => i !== slot);
  const local = s.localSlot;
  const localSlot = local === undefined || local === slot ? undefined : local > slot ? local - 1 : local;
  return { ...s, endpoints, localSlot };
}

export async function runKindsScenario(o: KindsOptions, makeParts: (netnsPath: string, n: number, state: ProxyState) => Promise<PipelineParts>): Promise<KindsResult> {
  const spec: ClusterSpec = { services: o.n, endpointsPerService: o.endpoints, nodePortShare: o.nodePortShare, mix: true };
  const rand = seededRandom(o.seed);
  progress(`N=${o.n}: kinds: the model (${o.n} Services x ${o.endpoints} endpoints, the realistic mix)`);
  const driver = new ModelDriver();
  const live = new Map<number, SynthService>();
  for (let i = 0; i < o.n; i++) {
    const s = syntheticService(i, spec);
    live.set(i, s);
    driver.upsert(s);
  }
  const R = o.repeats;
  const [counted, replaced, services] = spreadGroups([...live.values()], [R, R, R], (s) => categoryKey(categoryOf(s)), rand);
  const picked = new Set([...counted, ...replaced, ...services].map((s) => s.index));
  let fresh = 0;
  const freshIp = () => intToIp4(FRESH_BASE + fresh++);
  const addBase = Math.ceil(o.n / MIX_PERIOD) * MIX_PERIOD;
  let added = 0;
  const errors: string[] = [];
  const samples: KindSample[] = [];
  const ns = benchNetns();
  const parts = await makeParts(ns.path, o.n, driver.state);
  try {
    progress(`N=${o.n}: kinds: full sync into an empty namespace`);
    const first = await measureSync(parts, 'full-initial', true);
    errors.push(...first.errors);
    const replacePod = (s: SynthService): SynthService => {
      const slot = Math.floor(rand() * s.endpoints.length);
      const next = { ...s, endpoints: s.endpoints.map((e, i) => (i === slot ? { ip: freshIp(), port: e.port } : e)) };
      live.set(s.index, next);
      driver.upsert(next);
      return next;
    };
    const spare = [...live.values()].filter((s) => !picked.has(s.index)).slice(0, WARMUP_SYNCS);
    for (const s of spare) {
      replacePod(s);
      errors.push(...(await measureSync(parts, 'warm-up', false)).errors);
    }
    await new Promise((r) => setTimeout(r, 1000));
    collectGarbage();
    const timed = async (kind: PartialKind, change: KindChange, s: SynthService): Promise<void> => {
      const m = await measureSync(parts, kind, false);
      errors.push(...m.errors);
      samples.push({ kind, change, category: categoryOf(s), ms: m.sample.metricS * 1000, commitMs: m.sample.commitMs, ops: m.sample.ops, bytes: m.sample.bytes });
    };
    progress(`N=${o.n}: kinds: ${R} rounds of a count change, a replaced pod, a Service added or removed`);
    for (let r = 0; r < R; r++) {
      // An endpoint removed (a pod gone, a scale-down) or added (a scale-up): the count changes.
      const c = live.get(counted[r].index)!;
      const next = r % 2 === 0
        ? withoutEndpoint(c, Math.floor(rand() * c.endpoints.length))
        : { ...c, endpoints: [...c.endpoints, { ip: freshIp(), port: c.endpoints[0]?.port ?? 8080 }] };
      live.set(c.index, next);
      driver.upsert(next);
      await timed('count-change', r % 2 === 0 ? 'endpoint removed' : 'endpoint added', next);
      // One pod replaced, the count kept.
      await timed('replaced', 'pod replaced', replacePod(live.get(replaced[r].index)!));
      // A Service removed, or a new one (of the drawn Service's category) added, with its slice.
      const t = live.get(services[r].index)!;
      if (r % 2 === 0) {
        live.delete(t.index);
        driver.remove(t);
        await timed('service', 'Service removed', t);
      } else {
        const s = syntheticService(addBase + MIX_PERIOD * added++ + (t.index % MIX_PERIOD), spec);
        live.set(s.index, s);
        driver.upsert(s);
        await timed('service', 'Service added', s);
      }
    }
    errors.push(...parts.errors.slice(0, 20), ...driver.warnings);
    const result = kindsAtSize(o.n, o.endpoints, samples);
    const line = result.figures.map((f) => `${f.kind} p50 ${f.p50Ms.toFixed(2)} p99 ${f.p99Ms.toFixed(2)} ms`).join(', ');
    progress(`N=${o.n}: kinds: ${line}`);
    return { ...result, nodePortShare: o.nodePortShare, firstSyncMs: first.sample.metricS * 1000, loadavgEnd: loadavg(), errors };
  } finally {
    parts.close();
    teardown(ns);
  }
}
