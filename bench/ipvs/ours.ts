// Our side of the IPVS bench for one size: the real IpvsProxier with IpvsSocket, RtnlSocket and the
// real IpvsHelperTable (Nft) in a fresh namespace; the cold full sync, R one-endpoint partial syncs
// (a different Service each), then a full sync with nothing changed. Each sync's wall time is split
// by the handle it waited on (timed.ts): helper table, IPVS, rtnetlink (kube-ipvs0 and addresses).
import { systemClock } from '../../src/base/clock';
import type { ChangeSet } from '../../src/core/types';
import { IpvsSocket, Nft, RtnlSocket } from '../../src/native';
import { IpvsHelperTable, IpvsProxier } from '../../src/proxier/ipvs';
import { CLUSTER_CIDR } from '../lib/cluster';
import { progress } from '../report/table';
import { benchNetns, type TestNetns } from '../lib/netns';
import { benchCluster, NO_CHANGES, NODE_IP, replaceOnePod, type BenchCluster, type EndpointSwap } from './snapshot';
import { TimeBuckets, timed } from './timed';

export interface SyncTiming {
  wallMs: number;
  cpuMs: number;
  /** Wall time waiting on each handle: helper (table, TS build included), ipvs (serialize included), rtnl. */
  parts: Record<string, number>;
}

export interface OursResult {
  cold: SyncTiming;
  partial: SyncTiming[];
  fullUnchanged: SyncTiming;
  /** What the cold sync left in the kernel, as `ipvsadm -Sn` lines (sorted); only when asked. */
  coldState?: string[];
  /** The same after the partial syncs. */
  finalState?: string[];
  swaps: EndpointSwap[];
  problems: string[];
}

/** A node with one address the proxier serves NodePorts on (lo is never one). */
export function nodeNetns(): TestNetns {
  const ns = benchNetns();
  ns.exec('ip', ['link', 'add', 'node0', 'type', 'dummy']);
  ns.exec('ip', ['addr', 'add', `${NODE_IP}/24`, 'dev', 'node0']);
  ns.exec('ip', ['link', 'set', 'node0', 'up']);
  return ns;
}

/** `ipvsadm -Sn` of the namespace, sorted lines: an independent reading of IPVS. */
export function ipvsState(ns: TestNetns): string[] {
  return ns.exec('ipvsadm', ['-Sn']).split('\n').filter(Boolean).sort();
}

/** Empties IPVS, nftables and kube-ipvs0 before deleting, so the kernel's clean-up is not charged to the next run. */
export function emptyAndDestroy(ns: TestNetns): void {
  for (const [cmd, args] of [['ipvsadm', ['-C']], ['nft', ['flush', 'ruleset']], ['ip', ['link', 'del', 'kube-ipvs0']]] as const) {
    try { ns.exec(cmd, [...args]); } catch { /* absent */ }
  }
  ns.destroy();
}

/** The Service of the k-th partial sync: spread over N, a different one each time (some with a NodePort). */
export function partialIndex(k: number, n: number): number {
  return (1 + k * 7919) % n;
}

export async function measureOurs(n: number, repeats: number, readState: boolean): Promise<OursResult> {
  const cluster = benchCluster(n);
  const ns = nodeNetns();
  const where = { netns: ns.path };
  const ipvs = await IpvsSocket.open(where);
  const rtnl = new RtnlSocket(where);
  const nft = Nft.open(where);
  const problems: string[] = [];
  try {
    const buckets = new TimeBuckets();
    const helper = new IpvsHelperTable({ nft, families: ['ip'], localDetector: { mode: 'ClusterCIDR', cidrs: [CLUSTER_CIDR] } });
    const log = quietLog(problems);
    const proxier = new IpvsProxier({
      ipvs: timed(ipvs, 'ipvs', buckets), rtnl: timed(rtnl, 'rtnl', buckets), helperTable: timed(helper, 'helper', buckets),
      families: ['IPv4'], scheduler: '', excludeCIDRs: [], nodePortAddresses: [], log, clock: systemClock,
    });
    const sync = (changes: ChangeSet, full: boolean): Promise<SyncTiming> => timedSync(proxier, cluster, changes, full, buckets);
    // A GC before each phase, not each sync: one costs seconds in the guest, and a partial sync
    // makes little garbage. So no phase is charged the previous one's garbage.
    global.gc?.();
    const cold = await sync(NO_CHANGES, true);
    progress(`  ours: cold full sync ${cold.wallMs.toFixed(0)} ms`);
    const coldState = readState ? ipvsState(ns) : undefined;
    global.gc?.();
    const partial: SyncTiming[] = [];
    const swaps: EndpointSwap[] = [];
    for (let k = 0; k < repeats; k++) {
      const { swap, changes } = replaceOnePod(cluster, partialIndex(k, n), k + 1);
      swaps.push(swap);
      partial.push(await sync(changes, false));
    }
    const finalState = readState ? ipvsState(ns) : undefined;
    progress(`  ours: ${repeats} partial syncs done`);
    global.gc?.();
    const fullUnchanged = await sync(NO_CHANGES, true);
    progress(`  ours: unchanged full sync ${fullUnchanged.wallMs.toFixed(0)} ms`);
    return { cold, partial, fullUnchanged, coldState, finalState, swaps, problems };
  } finally {
    ipvs.close();
    rtnl.close();
    nft.close();
    emptyAndDestroy(ns);
    progress('  ours: namespace emptied and deleted');
  }
}

async function timedSync(proxier: IpvsProxier, c: BenchCluster, changes: ChangeSet, full: boolean, buckets: TimeBuckets): Promise<SyncTiming> {
  buckets.take();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await proxier.sync(c.snapshot, changes, full);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  if (!r.ok) throw new Error(`IpvsProxier ${full ? 'full' : 'partial'} sync failed: ${r.error?.message}`);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, parts: buckets.take() };
}

/** The proxier's log: silent, but warnings and errors are the bench's problems to report. */
function quietLog(problems: string[]): ConstructorParameters<typeof IpvsProxier>[0]['log'] {
  const note = (level: string) => (obj: object, msg: string): void => { problems.push(`${level}: ${msg} ${JSON.stringify(obj)}`); };
  const none = (): void => undefined;
  return { debug: none, info: none, warn: note('warn'), error: note('error') };
}
