// Issue 16's commit costs, through the bench's pipeline (model -> SyncLoop -> NftablesProxier ->
// addon -> a fresh netns): at N Services, what one Service's change costs the commit. The changes:
// one pod replaced (the count kept) at a small and a larger count; a new Service; the Service's
// endpoint count moving between two counts other Services have, small ones and larger ones; from 4
// to 5; to a count no other Service has, and back from it. Which of them make the kernel validate the
// whole table depends on the ruleset's shape: the rows name changes to the cluster, not to the
// ruleset, so they compare across shapes. Two clusters: counts 1..8 (Service i has 1 + i % 8
// endpoints) and every Service at 6 (but one at 7). Each figure: the median over R syncs of
// different Services; the commit's wall time is measured around Nft.commit (the kernel's part; the
// sum when a sync commits more than once), the sync's around SyncLoop.run.
//   npm run bench -- count-change [--sizes N] [--repeats R] [--quick]
// On a loaded machine read the min column: other processes only ever add time.
import { syntheticCluster, endpointIp, type SynthService } from '../lib/cluster';
import { benchEnv, envLine } from '../lib/env';
import { benchNetns, teardown } from '../lib/netns';
import { timestamp, writeResult } from '../lib/results';
import { ModelDriver } from './model-driver';
import { makeParts } from './parts';

let N = 30000;
let R = 11;
const PER = 8;
let out = '';
const emit = (text: string) => { process.stdout.write(text); out += text; };

/** [Service index, endpoints before (set first, not timed; 0: the Service is new), endpoints after (timed), set back after (not timed)]. */
type Step = [number, number, number, boolean?];

interface Sample { wallMs: number; commitMs: number; ops: number }
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))];

async function scenario(label: string, count: (i: number) => number, cases: [string, (n: number) => Step[]][]): Promise<void> {
  // R more Services than the cluster's, added by the 'a new Service' cases.
  const services = syntheticCluster({ services: N + R, endpointsPerService: PER, nodePortShare: 0.1, endpointCount: (i) => Math.min(PER, count(i)) });
  const driver = new ModelDriver();
  for (const s of services.slice(0, N)) driver.upsert(s);
  const ns = benchNetns();
  const parts = await makeParts(ns.path, N, driver.state);
  try {
    const t0 = performance.now();
    if (!(await parts.sync(true))) throw new Error(`full sync failed: ${parts.errors.join('; ')}`);
    const fullMs = performance.now() - t0;
    const fullCommitMs = parts.commits.at(-1)!.ms;
    // The first commits after a large one are slow (the kernel frees the old generation's objects): not timed.
    for (let i = 0; i < 5; i++) {
      driver.upsert({ ...services[N - 1 - i], endpoints: services[N - 1 - i].endpoints.map((e) => ({ ...e, port: 8081 })) });
      if (!(await parts.sync(false))) throw new Error(`sync failed: ${parts.errors.join('; ')}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
    const gen = new Map<number, number>();
    const withEndpoints = (s: SynthService, n: number): SynthService => {
      const g = (gen.get(s.index) ?? 0) + 1;
      gen.set(s.index, g);
      return { ...s, endpoints: Array.from({ length: n }, (_, slot) => ({ ip: endpointIp(s.index, slot, PER, slot === 0 ? g % 2 : 0), port: 8080 })) };
    };
    emit(`\n## ${label}: ${N} Services, 10% with a NodePort (first full sync ${fullMs.toFixed(0)} ms, its commit ${fullCommitMs.toFixed(0)} ms)\n\n| change | syncs | sync wall p50 ms | commit min ms | commit p50 ms | commit p90 ms | ops |\n|---|---|---|---|---|---|---|\n`);
    for (const [name, steps] of cases) {
      const samples: Sample[] = [];
      for (const [index, from, to, restore] of steps(R)) {
        const s = services[index];
        if (from > 0 && s.endpoints.length !== from) {
          driver.upsert(withEndpoints(s, from));
          if (!(await parts.sync(false))) throw new Error(`sync failed: ${parts.errors.join('; ')}`);
        }
        (globalThis as { gc?: () => void }).gc?.();
        const next = withEndpoints(s, to);
        driver.upsert(next);
        const before = parts.commits.length;
        const t = performance.now();
        if (!(await parts.sync(false))) throw new Error(`sync failed: ${parts.errors.join('; ')}`);
        const wallMs = performance.now() - t;
        const commits = parts.commits.slice(before);
        samples.push({ wallMs, commitMs: commits.reduce((a, c) => a + c.ms, 0), ops: commits.reduce((a, c) => a + c.ops, 0) });
        services[index] = next;
        if (restore) {
          driver.upsert(services[index] = withEndpoints(next, from));
          if (!(await parts.sync(false))) throw new Error(`sync failed: ${parts.errors.join('; ')}`);
        }
      }
      const p = (k: keyof Sample, q = 0.5) => quantile(samples.map((x) => x[k]), q).toFixed(k === 'ops' ? 0 : 2);
      emit(`| ${name} | ${samples.length} | ${p('wallMs')} | ${p('commitMs', 0)} | ${p('commitMs')} | ${p('commitMs', 0.9)} | ${p('ops')} |\n`);
    }
  } finally {
    parts.close();
    teardown(ns);
  }
}

/** R Service indexes whose index % 8 is `rest`, spread over the cluster (every 10th has a NodePort: index % 10 === 0). */
const pick = (rest: number, r: number) => Array.from({ length: r }, (_, k) => rest + 8 * Math.floor((k * (N - 16)) / (8 * r)));

export async function runCountChangeCost(opts: { quick: boolean; sizes?: number[]; repeats?: number }): Promise<void> {
  N = opts.sizes?.[0] ?? (opts.quick ? 2000 : 30000);
  R = opts.repeats ?? (opts.quick ? 3 : 11);
  out = '';
  emit(`# Commit cost of one Service's endpoint-count change at ${N} Services (median of ${R} syncs)\n\n${envLine(benchEnv())}\n`);
  // Counts 1..8: Service i has 1 + i % 8 endpoints.
  await scenario('counts 1..8', (i) => 1 + (i % 8), [
    ['one endpoint replaced, E = 3', (r) => pick(2, r).map((i) => [i, 3, 3])],
    ['a new Service, E = 3', (r) => Array.from({ length: r }, (_, k) => [N + k, 0, 3])],
    ['one endpoint replaced, E = 7', (r) => pick(6, r).map((i) => [i, 7, 7])],
    ['E 2 -> 3 (both counts in use)', (r) => pick(1, r).map((i) => [i, 2, 3])],
    ['E 4 -> 5 (both counts in use)', (r) => pick(3, r).map((i) => [i, 4, 5])],
    ['E 6 -> 7 (both counts in use)', (r) => pick(5, r).map((i) => [i, 6, 7])],
    ['E 8 -> 9 (no other Service has 9)', (r) => pick(7, r).map((i) => [i, 8, 9, true])],
    ['E 9 -> 8 (back: the last Service with 9)', (r) => pick(7, r).map((i) => [i, 9, 8])],
  ]);
  // Every Service at 6, but Service 1 at 7.
  await scenario('every Service at 6 endpoints', (i) => (i === 1 ? 7 : 6), [
    ['one endpoint replaced, E = 6', (r) => pick(2, r).map((i) => [i, 6, 6])],
    ['a new Service, E = 6', (r) => Array.from({ length: r }, (_, k) => [N + k, 0, 6])],
    ['E 6 -> 7 (both counts in use)', (r) => pick(3, r).map((i) => [i, 6, 7])],
    ['E 6 -> 8 (no other Service has 8)', (r) => pick(4, r).map((i) => [i, 6, 8, true])],
    ['E 6 -> 3 (no other Service has 3)', (r) => pick(5, r).map((i) => [i, 6, 3, true])],
  ]);
  writeResult('count-change-', timestamp(), 'md', out);
}
