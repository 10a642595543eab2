// `npm run bench -- chains`: what the number of chains in the namespace costs a partial sync's commit.
// nf_tables_commit walks every chain of every table in the namespace on every commit, whatever the
// batch holds; a partial sync comes after idling, when those chains have left the CPU's caches.
// Each shape below is loaded into a fresh namespace, then a dual-stack batch of 10 element ops (the
// size of a one-endpoint partial sync) is committed back to back (warm) and after a second of idling.
import { loadNative, NativeApi, Nft, Transaction } from '../lib/native';
import { benchNetns, teardown } from '../lib/netns';
import { benchEnv, envLine } from '../lib/env';
import { quantile } from '../pipeline/histogram';
import { markdownTable, progress, Cell } from '../report/table';
import { timestamp, writeResult } from '../lib/results';

type Fam = 'ip' | 'ip6';
const FAMILIES: Fam[] = ['ip', 'ip6'];
const T = 'kube-proxy';
const SET = 'cluster-ips';
const FIXED_CHAINS = 30;       // about what the ruleset has per family without affinity Services
const SET_ELEMENTS = 40_000;   // per family, so the element ops hit a populated hash set
const ENDPOINTS = 6;           // the scale cluster's endpoints per Service
const IDLE_MS = 1000;          // about the gap between the scale bench's partial syncs
const PER_TX = 500;            // ServicePorts per loading transaction

/** `fixed`: no per-Service chains; `service`: one chain per affinity ServicePort, endpoints inline; `service+endpoint`: upstream's 1 + E. */
type Shape = 'fixed' | 'service' | 'service+endpoint';
const SHAPES: Shape[] = ['fixed', 'service', 'service+endpoint'];

interface Row { servicePorts: number; shape: Shape; chains: number; warmWallMs: number; warmSysMs: number; idleWallMs: number; idleSysMs: number }

const keyType = (f: Fam) => (f === 'ip' ? 'ipv4_addr' : 'ipv6_addr');
const addr = (f: Fam, i: number) => (f === 'ip' ? `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` : `fd00::${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}`);
const endpoint = (s: number, e: number) => `10.200.${(s >> 4) & 255}.${((s & 15) << 4) | e}`;

async function loadBase(api: NativeApi, nft: Nft): Promise<void> {
  for (const f of FAMILIES) {
    const tx = new api.Transaction().addTable(f, T).addSet(f, T, { name: SET, key: [keyType(f)] });
    const elements = Array.from({ length: SET_ELEMENTS }, (_, i) => ({ key: [addr(f, i)] }));
    tx.addElements(f, T, SET, elements);
    for (let b = 0; b < FIXED_CHAINS; b++) tx.addChain(f, T, { name: `fixed-${b}` });
    await nft.commit(tx);
  }
}

/** The affinity ServicePorts' chains (IPv4 only, as in the scale cluster): all chains of a slice first, then their rules, as a full sync does. */
async function loadAffinity(api: NativeApi, nft: Nft, shape: Shape, servicePorts: number): Promise<void> {
  for (let s0 = 0; s0 < servicePorts; s0 += PER_TX) {
    const tx = new api.Transaction();
    const slice = Array.from({ length: Math.min(PER_TX, servicePorts - s0) }, (_, k) => s0 + k);
    for (const s of slice) {
      tx.addChain('ip', T, { name: `service-${s}` });
      if (shape === 'service+endpoint') for (let e = 0; e < ENDPOINTS; e++) tx.addChain('ip', T, { name: `endpoint-${s}-${e}` });
    }
    for (const s of slice) for (let e = 0; e < ENDPOINTS; e++) addEndpointRules(api, tx, shape, s, e);
    await nft.commit(tx);
  }
}

function addEndpointRules(api: NativeApi, tx: Transaction, shape: Shape, s: number, e: number): void {
  const dnat = api.rule('ip').l4proto('tcp').dnat(endpoint(s, e), 8080).build();
  if (shape === 'service') {
    tx.addRule('ip', T, `service-${s}`, dnat);
    return;
  }
  const chain = `endpoint-${s}-${e}`;
  tx.addRule('ip', T, `service-${s}`, api.rule('ip').counter().goto(chain).build());
  tx.addRule('ip', T, chain, api.rule('ip').counter().jump('fixed-0').build());
  tx.addRule('ip', T, chain, api.rule('ip').counter().build());
  tx.addRule('ip', T, chain, dnat);
}

let nextElement = 0;

/** Two deletes and three adds per family, as a one-endpoint change of a dual-stack Service does. */
function elementBatch(api: NativeApi): Transaction {
  const i = nextElement++;
  const tx = new api.Transaction();
  for (const f of FAMILIES) {
    tx.declareSet(f, T, { name: SET, key: [keyType(f)] });
    tx.deleteElements(f, T, SET, [0, 1].map((k) => ({ key: [addr(f, 2 * i + k)] })));
    tx.addElements(f, T, SET, [0, 1, 2].map((k) => ({ key: [addr(f, SET_ELEMENTS + 3 * i + k)] })));
  }
  return tx;
}

async function timeCommits(api: NativeApi, nft: Nft, repeats: number, idleMs: number): Promise<{ wallMs: number; sysMs: number }> {
  const wall: number[] = [];
  const sys: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const tx = elementBatch(api);
    if (idleMs > 0) await new Promise((r) => setTimeout(r, idleMs));
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await nft.commit(tx);
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
    sys.push(process.cpuUsage(c0).system / 1000);
  }
  return { wallMs: quantile(wall, 0.5)!, sysMs: quantile(sys, 0.5)! };
}

async function probeShape(api: NativeApi, shape: Shape, servicePorts: number, repeats: number): Promise<Row> {
  const ns = benchNetns();
  try {
    const nft = api.Nft.open({ netns: ns.path });
    progress(`chains: ${servicePorts} affinity ServicePorts, shape ${shape}: loading`);
    await loadBase(api, nft);
    if (shape !== 'fixed') await loadAffinity(api, nft, shape, servicePorts);
    const perPort = shape === 'fixed' ? 0 : shape === 'service' ? 1 : 1 + ENDPOINTS;
    const chains = FAMILIES.length * FIXED_CHAINS + servicePorts * perPort;
    await timeCommits(api, nft, 3, 0);
    const warm = await timeCommits(api, nft, repeats, 0);
    const idle = await timeCommits(api, nft, repeats, IDLE_MS);
    nft.close();
    return { servicePorts, shape, chains, warmWallMs: warm.wallMs, warmSysMs: warm.sysMs, idleWallMs: idle.wallMs, idleSysMs: idle.sysMs };
  } finally {
    teardown(ns);
  }
}

export async function runChainWalk(opts: { quick: boolean; sizes?: number[]; repeats?: number }): Promise<void> {
  const api = loadNative();
  const env = benchEnv();
  const sizes = opts.sizes ?? (opts.quick ? [300] : [3060]);
  const repeats = opts.repeats ?? (opts.quick ? 5 : 15);
  const rows: Row[] = [];
  for (const n of sizes) for (const shape of SHAPES) rows.push(await probeShape(api, shape, n, repeats));
  const ms = (wall: number, sys: number) => `${wall.toFixed(2)} / ${sys.toFixed(2)}`;
  const table = markdownTable(['affinity ServicePorts', 'shape', 'chains in the namespace', 'warm: wall / sys ms', `after ${IDLE_MS} ms idle: wall / sys ms`],
    rows.map((r): Cell[] => [r.servicePorts, r.shape, r.chains, ms(r.warmWallMs, r.warmSysMs), ms(r.idleWallMs, r.idleSysMs)]));
  const file = writeResult('chains-', timestamp(), 'json', JSON.stringify({ env, repeats, endpoints: ENDPOINTS, rows }, null, 2) + '\n');
  process.stdout.write(`\nCommit of 10 element ops (dual-stack) vs the chains in the namespace (median of ${repeats})\n`);
  process.stdout.write(`${envLine(env)}\n\n${table}\n\nresults: ${file}\n`);
}
