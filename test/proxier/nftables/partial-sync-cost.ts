// Not a test: measures a one-Service endpoint-change partial sync at several cluster sizes and
// shard counts in a fresh network namespace (the bench owns the published numbers).
//   node dist/test/proxier/nftables/partial-sync-cost.js [sizes=1000,10000,50000] [shards=1,64] [repeats=7]
import { performance } from 'node:perf_hooks';
import { withNetns } from '../../helpers/netns';
import { ep, snapshot, sp } from './fixtures';
import { changed, proxierIn } from './kernel-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

function cluster(n: number): [ServicePort, Endpoint[]][] {
  return Array.from({ length: n }, (_, i) => {
    const s = sp(`svc${i}`, {
      key: `ns${i % 50}/svc${i}:p80/TCP`, namespace: `ns${i % 50}`,
      clusterIP: `172.${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`, nodePort: i % 10 === 0 ? 30000 + (i / 10) : 0,
    });
    return [s, [0, 1, 2, 3].map((j) => ep(`10.${100 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`, 8000 + j))];
  });
}

const commitMs: number[] = [];

async function measure(n: number, shards: number, repeats: number): Promise<number[]> {
  return withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns, { families: ['ip'], serviceShards: shards });
    const commit = nft.commit.bind(nft);
    (nft as { commit: typeof commit }).commit = async (tx) => {
      const c0 = performance.now();
      try { return await commit(tx); } finally { commitMs.push(performance.now() - c0); }
    };
    try {
      const entries = cluster(n);
      const t0 = performance.now();
      const r = await proxier.sync(snapshot(entries), changed(), true);
      if (!r.ok) throw r.error;
      console.error(`  n=${n} K=${shards} full sync ${(performance.now() - t0).toFixed(0)} ms`);
      const times: number[] = [];
      commitMs.length = 0;
      // Lets a profiler attach after the full sync: KPN_PAUSE_MS=3000.
      await new Promise((r) => setTimeout(r, Number(process.env.KPN_PAUSE_MS ?? 0)));
      for (let k = 0; k < repeats; k++) {
        const i = (k * 7919) % n;
        const [s, eps] = entries[i];
        entries[i] = [s, [...eps.slice(1), ep(eps[0].ip, 9000 + k)]];
        const snap = snapshot(entries);
        (globalThis as { gc?: () => void }).gc?.();
        const t = performance.now();
        const p = await proxier.sync(snap, changed(s.key), false);
        if (!p.ok) throw p.error;
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b);
    } finally { nft.close(); }
  }, 'kpn-cost');
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '1000,10000,50000').split(',').map(Number);
  const shardCounts = (process.argv[3] ?? '1,64').split(',').map(Number);
  const repeats = Number(process.argv[4] ?? 7);
  for (const k of shardCounts) {
    for (const n of sizes) {
      const t = await measure(n, k, repeats);
      const c = [...commitMs].sort((a, b) => a - b);
      console.log(`K=${k}\tN=${n}\tp50=${t[t.length >> 1].toFixed(1)} ms\tmin=${t[0].toFixed(1)}\tmax=${t[t.length - 1].toFixed(1)}`
        + `\tcommit p50=${c[c.length >> 1].toFixed(1)} ms`);
    }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
