// Issue 32: the changes a cluster makes most (an endpoint added, removed or replaced, a Service's
// endpoint count changing, a Service without affinity or source ranges added or removed) must
// commit without anything that makes the kernel validate the whole table: no new rule, no
// verdict-map element that jumps or goes to a chain (docs/nftables-ruleset.md, "When the kernel
// validates the whole table"). Random sequences of such changes over a mixed cluster, on the fake
// kernel; each partial sync must also end where a fresh full sync would.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import { changed, ep, snapshot, sp } from './fixtures';
import { freshFullSync, lastCommit, opsOf, proxierOnFake, ruleset } from './fake-helpers';

type Entries = [ServicePort, Endpoint[]][];

/** Ops that make the kernel validate the table (helper-measured on 6.18 and read in 5.13: any new rule; a jump or goto element). */
const validating = (ops: string[]): string[] => ops.filter((o) => /^add rule /.test(o) || /^add element .* : (goto|jump) /.test(o));

function rng(seed: number): () => number {
  let x = seed;
  return () => { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return (x >>> 0) / 2 ** 32; };
}

const COUNTS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12];

function service(i: number): ServicePort {
  return sp(`svc${i}`, {
    clusterIP: `172.30.${Math.floor(i / 200)}.${(i % 200) + 1}`,
    ...(i % 3 === 0 ? { nodePort: 30000 + i } : {}),
    ...(i % 7 === 0 ? { externalIPs: [`192.0.2.${(i % 200) + 1}`], externalPolicyLocal: i % 2 === 0 } : {}),
  });
}

function endpoints(i: number, n: number, gen: number): Endpoint[] {
  return Array.from({ length: n }, (_, j) => ep(`10.${100 + (gen % 50)}.${i % 250}.${j + 1}`, 8080, { isLocal: j % 2 === 0 }));
}

test('endpoint changes, count changes between counts in use, Services added and removed: no rule, no jump, for 30 random sequences of 25 changes', async () => {
  for (let seed = 1; seed <= 30; seed++) {
    const r = rng(seed);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
    // Every count of COUNTS in use in every endpoint map family by a Service that never changes, so
    // the rules stay as they are (a count new to the cluster adds its rule: larger-counts.test.ts).
    const allLocal = (i: number, n: number) => endpoints(i, n, 0).map((e) => ({ ...e, isLocal: true }));
    const everywhere = (i: number) => sp(`fixed${i}`, { clusterIP: `172.31.0.${i + 1}`, nodePort: 32000 + i, externalIPs: [`198.51.100.${i + 1}`], externalPolicyLocal: true });
    const fixed: Entries = COUNTS.map((n, k) => [everywhere(k), allLocal(1000 + k, n)]);
    const live = new Map<number, { sp: ServicePort; eps: Endpoint[] }>();
    for (let i = 0; i < 40; i++) live.set(i, { sp: service(i), eps: endpoints(i, pick(COUNTS), 0) });
    const entries = (): Entries => [...fixed, ...[...live.values()].map((s): [ServicePort, Endpoint[]] => [s.sp, s.eps])];
    const { proxier, nft, kernel } = proxierOnFake();
    assert.deepEqual(await proxier.sync(snapshot(entries()), changed(), true), { full: true, ok: true });
    let next = 40;
    const steps: string[] = [];
    for (let step = 0; step < 25; step++) {
      const kind = pick(['count', 'replace', 'add', 'remove'] as const);
      const i = pick([...live.keys()]);
      const s = live.get(i)!;
      if (kind === 'count') s.eps = endpoints(i, pick(COUNTS.filter((n) => n !== s.eps.length)), step);
      else if (kind === 'replace') s.eps = [...s.eps.slice(0, -1), ep(`10.99.${step}.${i % 250}`, 8080, { isLocal: s.eps.at(-1)!.isLocal })];
      else if (kind === 'add') live.set(next, { sp: service(next), eps: endpoints(next++, pick(COUNTS), step) });
      else live.delete(i);
      const key = kind === 'add' ? service(next - 1).key : s.sp.key;
      steps.push(`${kind} ${key}`);
      assert.deepEqual(await proxier.sync(snapshot(entries()), changed(key), false), { full: false, ok: true }, `seed ${seed}: ${steps.join(', ')}`);
      const ops = opsOf(lastCommit(nft));
      assert.deepEqual(validating(ops), [], `seed ${seed}: ${steps.join(', ')}`);
      assert.ok(!ops.some((o) => /^(add|delete|flush) chain /.test(o)), `seed ${seed}: no chain touched: ${steps.join(', ')}`);
    }
    assert.equal(ruleset(kernel), await freshFullSync(entries()), `seed ${seed}: ${steps.join(', ')}`);
  }
});
