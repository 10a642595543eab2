// One size of the proxier memory bench, in a child process of its own (node --expose-gc): the
// model alone, then the proxier's first full sync, a periodic full sync and many one-pod partial
// syncs, with the live heap and the RSS high-water mark around each (docs/benchmarks.md).
import { endpointIp, syntheticService, type ClusterSpec, type SynthService } from '../lib/cluster';
import { benchNetns, teardown, type TestNetns } from '../lib/netns';
import { loadNative } from '../lib/native';
import { progress } from '../report/table';
import { ModelDriver } from '../pipeline/model-driver';
import { quantile } from '../pipeline/histogram';
import { NftablesProxier } from '../../src/proxier/nftables';
import type { ProxyState } from '../../src/core/proxy-state';
import { reading, resetRssPeak, rssPeak, type HeapReading } from './heap';
import { measuringNft, type CommitSample, type MeasuringNft } from './measuring-nft';
import { countState, dropAndMeasure, type StateCounts } from './state-breakdown';

export interface MemoryOptions { n: number; endpoints: number; partials: number; kernel: boolean }

export interface FullSyncResult {
  ms: number;
  /** This process's CPU time (user + sys) during the sync: less sensitive than wall time to other load on the machine. */
  cpuMs: number;
  commit: CommitSample | undefined;
  /** RSS high-water mark during the sync (VmHWM, reset before it), MiB. */
  rssPeak: number;
  after: HeapReading;
}

export interface MemoryResult {
  n: number;
  endpoints: number;
  servicePorts: number;
  kernel: boolean;
  start: HeapReading;
  model: HeapReading;
  initial: FullSyncResult;
  second: FullSyncResult;
  partial: { count: number; cpuP50Ms: number; p50Ms: number; p99Ms: number; maxMs: number; ops: number; after: HeapReading };
  counts: StateCounts;
  freedMiB: [string, number][];
  errors: string[];
}

const CLUSTER_CIDR = '10.128.0.0/9';

function quietLog(errors: string[]) {
  const keep = (level: string) => (obj: object, msg: string) => { if (errors.length < 20) errors.push(`${level}: ${msg} ${JSON.stringify(obj)}`); };
  return { debug: () => undefined, info: () => undefined, warn: keep('warn'), error: keep('error') };
}

async function fullSync(state: ProxyState, proxier: NftablesProxier, nft: MeasuringNft, errors: string[]): Promise<FullSyncResult> {
  const taken = state.takeChanges();
  reading();
  resetRssPeak();
  const before = nft.samples.length;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await proxier.sync(taken.snapshot, taken.changes, true);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const peak = rssPeak();
  if (!r.ok) errors.push(`full sync failed: ${r.error?.message}`);
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, commit: nft.samples[before], rssPeak: peak, after: reading() };
}

/** Replaces one pod of a different Service each time, and syncs the one changed Service. */
async function partialSyncs(o: MemoryOptions, services: SynthService[], driver: ModelDriver, proxier: NftablesProxier,
  nft: MeasuringNft, errors: string[]): Promise<MemoryResult['partial']> {
  nft.measure = false;
  const times: number[] = [];
  const cpus: number[] = [];
  let ops = 0;
  const counting = nft.commit.bind(nft);
  nft.commit = (tx) => { ops += tx.opCount; return counting(tx); };
  for (let r = 0; r < o.partials; r++) {
    const i = (r * 7919 + 1) % o.n;
    const s = services[i];
    const slot = r % s.endpoints.length;
    services[i] = { ...s, endpoints: s.endpoints.map((ep, k) => (k === slot ? { ip: endpointIp(i, k, o.endpoints, r + 1), port: ep.port } : ep)) };
    driver.upsert(services[i]);
    const taken = driver.state.takeChanges();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const res = await proxier.sync(taken.snapshot, taken.changes, false);
    times.push(performance.now() - t0);
    const cpu = process.cpuUsage(cpu0);
    cpus.push((cpu.user + cpu.system) / 1000);
    if (!res.ok || res.full) errors.push(`partial sync ${r}: ${res.ok ? 'ran as a full sync' : res.error?.message}`);
  }
  nft.measure = true;
  return { count: times.length, cpuP50Ms: quantile(cpus, 0.5) ?? NaN, p50Ms: quantile(times, 0.5) ?? NaN, p99Ms: quantile(times, 0.99) ?? NaN, maxMs: Math.max(...times), ops, after: reading() };
}

function openKernel(kernel: boolean): { ns?: TestNetns; nft: MeasuringNft } {
  if (!kernel) return { nft: measuringNft() };
  const ns = benchNetns();
  return { ns, nft: measuringNft(loadNative().Nft.open({ netns: ns.path })) };
}

export async function runMemoryScenario(o: MemoryOptions): Promise<MemoryResult> {
  const errors: string[] = [];
  const start = reading();
  const spec: ClusterSpec = { services: o.n, endpointsPerService: o.endpoints, nodePortShare: 0.1, mix: true };
  progress(`N=${o.n}: the model (${o.n} Services x ${o.endpoints} endpoints, mixed)`);
  const driver = new ModelDriver();
  const services: SynthService[] = [];
  for (let i = 0; i < o.n; i++) driver.upsert(services[i] = syntheticService(i, spec));
  const model = reading();
  const { ns, nft } = openKernel(o.kernel);
  try {
    const proxier = new NftablesProxier({
      nft, families: ['ip'], masqueradeBit: 14, masqueradeAll: false, localDetector: { mode: 'ClusterCIDR', cidrs: [CLUSTER_CIDR] },
      nodePortAddresses: [], nodeIPs: ['192.168.0.10'], serviceCIDRs: ['10.96.0.0/12'], log: quietLog(errors),
    });
    progress(`N=${o.n}: first full sync${o.kernel ? ' into a fresh namespace' : ''}`);
    const initial = await fullSync(driver.state, proxier, nft, errors);
    const servicePorts = driver.state.snapshot().services.size;
    progress(`N=${o.n}: periodic full sync`);
    const second = await fullSync(driver.state, proxier, nft, errors);
    progress(`N=${o.n}: ${o.partials} one-pod partial syncs`);
    const partial = await partialSyncs(o, services, driver, proxier, nft, errors);
    errors.push(...driver.warnings);
    const counts = countState(proxier);
    const freedMiB = dropAndMeasure(proxier, ['services', 'index']);
    return { n: o.n, endpoints: o.endpoints, servicePorts, kernel: o.kernel, start, model, initial, second, partial, counts, freedMiB, errors };
  } finally {
    teardown(ns);
  }
}
