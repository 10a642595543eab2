// Not a test: measures a one-Service endpoint-change partial sync at several cluster sizes in a
// fresh network namespace (the bench owns the published numbers).
//   node dist/test/proxier/nftables/partial-sync-cost.js [sizes=1000,10000,50000] [repeats=7]
import { performance } from 'node:perf_hooks';
import { withNetns } from '../../helpers/netns';
import { Transaction, rule } from '../../../src/native';
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
let floorMs = 0;
let syncCommitMs: number[] = [];

async function measure(n: number, repeats: number): Promise<number[]> {
  return withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns, { families: ['ip'] });
    const commit = nft.commit.bind(nft);
    let lastTx: Transaction | undefined;
    (nft as { commit: typeof commit }).commit = async (tx) => {
      lastTx = tx;
      const c0 = performance.now();
      try { return await commit(tx); } finally { commitMs.push(performance.now() - c0); }
    };
    try {
      const entries = cluster(n);
      const t0 = performance.now();
      const r = await proxier.sync(snapshot(entries), changed(), true);
      if (!r.ok) throw r.error;
      console.error(`  n=${n} full sync ${(performance.now() - t0).toFixed(0)} ms`);
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
        if (process.env.KPN_PROBES && k === 0) {
          const tx = lastTx!;
          console.log(Array.from({ length: tx.opCount }, (_, i) => `    op ${tx.describe(i).slice(0, 110)}`).join('\n'));
        }
      }
      syncCommitMs = [...commitMs];
      // The floor: a commit the kernel need not validate (one element in a plain set, then out).
      const floor: number[] = [];
      for (let k = 0; k < repeats; k++) {
        const tx = new Transaction().declareSet('ip', 'kube-proxy', { name: 'cluster-ips', key: ['ipv4_addr'] })
          .addElements('ip', 'kube-proxy', 'cluster-ips', [{ key: ['192.0.2.1'] }]);
        const t = performance.now();
        await nft.commit(tx);
        floor.push(performance.now() - t);
        await nft.commit(new Transaction().declareSet('ip', 'kube-proxy', { name: 'cluster-ips', key: ['ipv4_addr'] })
          .deleteElements('ip', 'kube-proxy', 'cluster-ips', [{ key: ['192.0.2.1'] }]));
      }
      floorMs = floor.sort((a, b) => a - b)[floor.length >> 1];
      if (process.env.KPN_PROBES) await probes(nft, repeats);
      return times.sort((a, b) => a - b);
    } finally { nft.close(); }
  }, 'kpn-cost');
}

/** Single-op commits into our table, to tell which kernel step costs what (KPN_PROBES=1). */
async function probes(nft: { commit(tx: Transaction): Promise<unknown> }, repeats: number): Promise<void> {
  const t = 'kube-proxy';
  const time = async (name: string, make: (i: number) => Transaction, undo: (i: number) => Transaction) => {
    const ms: number[] = [];
    const undoMs: number[] = [];
    for (let i = 0; i < repeats; i++) {
      const t0 = performance.now();
      await nft.commit(make(i));
      ms.push(performance.now() - t0);
      const t1 = performance.now();
      await nft.commit(undo(i));
      undoMs.push(performance.now() - t1);
    }
    const p50 = (a: number[]) => a.sort((x, y) => x - y)[a.length >> 1].toFixed(1);
    console.log(`    probe ${name}: p50 ${p50(ms)} ms, undone in ${p50(undoMs)} ms`);
  };
  await time('add empty chain', (i) => new Transaction().addChain('ip', t, { name: `probe${i}` }),
    (i) => new Transaction().deleteChain('ip', t, `probe${i}`));
  await time('add chain + counter-free accept rule', (i) => new Transaction().addChain('ip', t, { name: `probe${i}` })
    .addRule('ip', t, `probe${i}`, rule('ip').verdict({ kind: 'accept' }).build()),
  (i) => new Transaction().flushChain('ip', t, `probe${i}`).deleteChain('ip', t, `probe${i}`));
  for (let i = 0; i < repeats; i++) await nft.commit(new Transaction().addChain('ip', t, { name: `probe${i}` }));
  await time('delete empty chain', (i) => new Transaction().deleteChain('ip', t, `probe${i}`),
    (i) => new Transaction().addChain('ip', t, { name: `probe${i}` }));
  for (let i = 0; i < repeats; i++) await nft.commit(new Transaction().deleteChain('ip', t, `probe${i}`));
  await time('add chain + dnat rule', (i) => new Transaction().addChain('ip', t, { name: `probe${i}` })
    .addRule('ip', t, `probe${i}`, rule('ip').l4proto('tcp').dnat('10.9.9.9', 80).build()),
  (i) => new Transaction().flushChain('ip', t, `probe${i}`).deleteChain('ip', t, `probe${i}`));
  await time('add chain + goto rule to it from a new chain', (i) => new Transaction().addChain('ip', t, { name: `probe${i}` })
    .addChain('ip', t, { name: `probeb${i}` }).addRule('ip', t, `probeb${i}`, rule('ip').verdict({ kind: 'goto', chain: `probe${i}` }).build()),
  (i) => new Transaction().flushChain('ip', t, `probeb${i}`).deleteChain('ip', t, `probeb${i}`).deleteChain('ip', t, `probe${i}`));
}

async function main(): Promise<void> {
  const sizes = (process.argv[2] ?? '1000,10000,50000').split(',').map(Number);
  const repeats = Number(process.argv[3] ?? 7);
  {
    for (const n of sizes) {
      const t = await measure(n, repeats);
      const c = [...syncCommitMs].sort((a, b) => a - b);
      console.log(`N=${n}\tp50=${t[t.length >> 1].toFixed(1)} ms\tmin=${t[0].toFixed(1)}\tmax=${t[t.length - 1].toFixed(1)}`
        + `\tcommit p50=${c[c.length >> 1].toFixed(1)} ms\tunvalidated commit p50=${floorMs.toFixed(1)} ms`);
    }
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
