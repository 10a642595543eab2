// `npm run bench -- probe`: what a one-object transaction costs the kernel as the table grows.
// The table is the linear-shape ruleset (bench/shapes) at N Services; each probe commits one tiny
// transaction through the addon. Expressions with a kernel `validate` hook (jump/goto, dnat, a
// verdict-map element that jumps) make the commit re-validate every chain reachable from the base
// chains, so their cost follows the table's size: this is the floor under any partial sync.
import { syntheticCluster } from '../lib/cluster';
import { linearTransaction } from '../shapes/linear-tx';
import { loadNative, NativeApi, Transaction } from '../lib/native';
import { benchNetns, teardown } from '../lib/netns';
import { benchEnv, envLine } from '../lib/env';
import { quantile } from '../pipeline/histogram';
import { markdownTable, progress, Cell } from '../report/table';
import { timestamp, writeResult } from '../lib/results';

const F = 'ip';
const T = 'kube-proxy';
const SMALL = 'probe-small';
const REPEATS = 11;

type Probe = (api: NativeApi, i: number) => Transaction;

// declareSet: the set exists in the kernel already; the builder only needs its type to encode keys.
const PROBES: Record<string, Probe> = {
  'element into a plain set (cluster-ips)': (api, i) => new api.Transaction()
    .declareSet(F, T, { name: 'cluster-ips', key: ['ipv4_addr'] })
    .addElements(F, T, 'cluster-ips', [{ key: [`10.99.${i >> 8}.${i & 255}`] }]),
  'new chain + counter rule': (api, i) => new api.Transaction()
    .addChain(F, T, { name: `probe-counter-${i}` }).addRule(F, T, `probe-counter-${i}`, api.rule(F).counter().build()),
  'new chain + goto rule': (api, i) => new api.Transaction()
    .addChain(F, T, { name: `probe-goto-${i}` }).addRule(F, T, `probe-goto-${i}`, api.rule(F).verdict({ kind: 'goto', chain: 'mark-for-masquerade' }).build()),
  'new chain + dnat rule': (api, i) => new api.Transaction()
    .addChain(F, T, { name: `probe-dnat-${i}` }).addRule(F, T, `probe-dnat-${i}`, api.rule(F).l4proto('tcp').dnat('10.1.1.1', 80).build()),
  // The same dnat rule in a second, small table of the same namespace: validation is per table.
  'new chain + dnat rule in a separate small table': (api, i) => new api.Transaction()
    .addChain(F, SMALL, { name: `probe-dnat-${i}` }).addRule(F, SMALL, `probe-dnat-${i}`, api.rule(F).l4proto('tcp').dnat('10.1.1.1', 80).build()),
  'verdict-map element (goto) into service-ips': (api, i) => new api.Transaction()
    .declareSet(F, T, { name: 'service-ips', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' })
    .addElements(F, T, 'service-ips', [{ key: [`10.98.${i >> 8}.${i & 255}`, 'tcp', 80], verdict: { kind: 'goto', chain: 'mark-for-masquerade' } }]),
};

interface ProbeRow { n: number; probe: string; wallMs: number; sysMs: number; userMs: number }

async function probeSize(api: NativeApi, n: number): Promise<ProbeRow[]> {
  const ns = benchNetns();
  try {
    const nft = api.Nft.open({ netns: ns.path });
    progress(`probe N=${n}: loading the linear-shape ruleset`);
    await nft.commit(linearTransaction(api, syntheticCluster({ services: n, endpointsPerService: 4, nodePortShare: 0.1 })));
    await nft.commit(new api.Transaction().addTable(F, SMALL)
      .addChain(F, SMALL, { name: 'base', base: { type: 'nat', hook: 'prerouting', priority: -90, policy: 'accept' } })
      .addChain(F, SMALL, { name: 'target' })
      .addRule(F, SMALL, 'base', api.rule(F).verdict({ kind: 'jump', chain: 'target' }).build()));
    const rows: ProbeRow[] = [];
    for (const [name, make] of Object.entries(PROBES)) {
      const wall: number[] = []; const sys: number[] = []; const user: number[] = [];
      for (let i = 1; i <= REPEATS; i++) {
        const tx = make(api, i);
        const c0 = process.cpuUsage();
        const t0 = process.hrtime.bigint();
        await nft.commit(tx);
        wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
        const c = process.cpuUsage(c0);
        sys.push(c.system / 1000); user.push(c.user / 1000);
      }
      rows.push({ n, probe: name, wallMs: quantile(wall, 0.5)!, sysMs: quantile(sys, 0.5)!, userMs: quantile(user, 0.5)! });
      progress(`probe N=${n}: ${name}: ${rows.at(-1)!.wallMs.toFixed(2)} ms`);
    }
    nft.close();
    return rows;
  } finally {
    teardown(ns);
  }
}

export async function runProbe(opts: { quick: boolean; sizes?: number[] }): Promise<void> {
  const api = loadNative();
  const env = benchEnv();
  const sizes = opts.sizes ?? (opts.quick ? [100, 1000] : [1000, 10000, 30000, 50000]);
  const rows: ProbeRow[] = [];
  for (const n of sizes) rows.push(...await probeSize(api, n));
  const names = Object.keys(PROBES);
  const table = markdownTable(['one-object transaction', ...sizes.map((n) => `N=${n.toLocaleString('en-US')} wall / sys ms`)],
    names.map((p): Cell[] => [p, ...sizes.map((n) => {
      const r = rows.find((x) => x.n === n && x.probe === p)!;
      return `${r.wallMs.toFixed(2)} / ${r.sysMs.toFixed(2)}`;
    })]));
  const file = writeResult('probe-', timestamp(), 'json', JSON.stringify({ env, rows }, null, 2) + '\n');
  process.stdout.write(`\nCommit cost of a one-object transaction vs table size (linear shape, N Services x 4 endpoints; median of ${REPEATS})\n`);
  process.stdout.write(`${envLine(env)}\n\n${table}\n\nresults: ${file}\n`);
}
