// `npm run bench -- monitor`: what an open NftMonitor costs our own big commits. With no listener
// on NFNLGRP_NFTABLES the kernel builds no notifications at all; with one it builds one message
// per changed object, and the monitor's BPF filter drops ours before they are queued. Each shape
// is committed in a fresh namespace: without a listener, with a monitor whose own port ids hold
// the committing socket (the intended set-up), and with one that has no own ids (every
// notification reaches the reader thread). Best of `repeats`.
import { loadNative, NativeApi, Transaction } from '../lib/native';
import { benchNetns, teardown } from '../lib/netns';
import { benchEnv, envLine } from '../lib/env';
import { markdownTable, progress, Cell } from '../report/table';
import { timestamp, writeResult } from '../lib/results';

const F = 'ip';
const T = 'kube-proxy';
const MAP = { name: 'service-ips', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' } as const;

type Shape = (api: NativeApi) => Transaction;
type Mode = 'no listener' | 'monitor, own filter' | 'monitor, no own filter';

export const SHAPES: Record<string, Shape> = {
  '1 table, 1 map, 300k elements': (api) => {
    const tx = new api.Transaction().addTable(F, T).addChain(F, T, { name: 'svc' }).addSet(F, T, { ...MAP, key: [...MAP.key] });
    const elements = [];
    for (let i = 0; i < 300_000; i++) {
      elements.push({ key: [`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 'tcp', 80], verdict: { kind: 'goto' as const, chain: 'svc' } });
    }
    return tx.addElements(F, T, MAP.name, elements);
  },
  '5k chains, 20k rules': (api) => {
    const tx = new api.Transaction().addTable(F, T);
    for (let c = 0; c < 5000; c++) {
      const chain = `svc-${c}`;
      tx.addChain(F, T, { name: chain });
      for (let r = 0; r < 4; r++) tx.addRule(F, T, chain, api.rule(F).markOr(1 << r).counter().build());
    }
    return tx;
  },
};

interface Row { shape: string; mode: Mode; bestMs: number; allMs: number[]; datagrams?: number }

async function once(api: NativeApi, shape: Shape, mode: Mode): Promise<{ ms: number; datagrams?: number }> {
  const ns = benchNetns();
  try {
    const nft = api.Nft.open({ netns: ns.path });
    const monitor = mode === 'no listener' ? undefined : api.NftMonitor.open({
      netns: ns.path, interest: [{ family: F, table: T }], ownPortIds: mode === 'monitor, own filter' ? [nft.portId] : [],
    }, () => {});
    const tx = shape(api);
    const t0 = performance.now();
    await nft.commit(tx);
    const ms = performance.now() - t0;
    await new Promise((r) => setTimeout(r, 200));  // let the reader finish before stats / close
    const datagrams = monitor?.stats().datagrams;
    monitor?.close();
    nft.close();
    return { ms, datagrams };
  } finally {
    teardown(ns);
  }
}

export async function runMonitorCost(opts: { repeats?: number }): Promise<void> {
  const api = loadNative();
  const repeats = opts.repeats ?? 3;
  const rows: Row[] = [];
  for (const [name, shape] of Object.entries(SHAPES)) {
    for (const mode of ['no listener', 'monitor, own filter', 'monitor, no own filter'] as Mode[]) {
      const runs = [];
      for (let i = 0; i < repeats; i++) {
        progress(`monitor cost: ${name}, ${mode}, run ${i + 1}/${repeats}`);
        runs.push(await once(api, shape, mode));
      }
      const best = runs.reduce((a, b) => (b.ms < a.ms ? b : a));
      rows.push({ shape: name, mode, bestMs: best.ms, allMs: runs.map((r) => r.ms), datagrams: best.datagrams });
    }
  }
  const base = (shape: string) => rows.find((r) => r.shape === shape && r.mode === 'no listener')!.bestMs;
  const table = markdownTable(['shape', 'mode', 'best commit ms', 'vs no listener', 'all runs ms', 'datagrams read'],
    rows.map((r): Cell[] => [r.shape, r.mode, r.bestMs.toFixed(0), (r.bestMs / base(r.shape)).toFixed(2),
      r.allMs.map((m) => m.toFixed(0)).join(' '), r.datagrams]));
  const body = `# NftMonitor cost on our own commits\n\n${envLine(benchEnv())}\n\n${table}\n`;
  process.stdout.write(body);
  writeResult('monitor-cost-', timestamp(), 'md', body);
}
