// The pieces of the real pipeline the bench drives, loaded from the compiled project: the model
// (ProxyState), the nftables proxier over the addon, the metrics, and the program's own SyncLoop
// (src/app/sync-loop.ts), which times each sync and records it with observeSync(). This is the only
// bench file that knows how those are constructed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { ProxyState } from '../../src/core/proxy-state';
import { loadNative, nativeMissing, type Transaction } from '../lib/native';
import { CommitRecord, recordingNft } from './recording-nft';
import { CLUSTER_CIDR } from '../lib/cluster';

export const SYNC_METRIC = 'kubeproxy_sync_proxy_rules_duration_seconds';
export const FULL_METRIC = 'kubeproxy_sync_full_proxy_rules_duration_seconds';
const FULL_SYNC_PERIOD_MS = 60 * 60 * 1000;

type RunReason = 'periodic' | 'requested' | 'retry';

export interface PipelineParts {
  n: number;
  /** One sync through the program's SyncLoop; `full` forces a periodic full sync. */
  sync(full: boolean): Promise<boolean>;
  registry: Registry;
  description: string;
  commits: CommitRecord[];
  /** Warnings and errors the proxier and the sync loop logged. */
  errors: string[];
  close(): void;
}

const DIST = join(__dirname, '..', '..', 'src');
const MODULES = {
  proxier: join(DIST, 'proxier', 'nftables', 'index.js'),
  metrics: join(DIST, 'metrics', 'proxy-metrics.js'),
  syncLoop: join(DIST, 'app', 'sync-loop.js'),
  health: join(DIST, 'health', 'proxy-health.js'),
  guard: join(DIST, 'app', 'ruleset-guard.js'),
};

/** What is missing for the pipeline bench, or undefined when everything is there. */
export function pipelineMissing(): string | undefined {
  const missing: string[] = [];
  const native = nativeMissing();
  if (native) missing.push(native);
  for (const [what, file] of Object.entries(MODULES)) {
    if (!existsSync(file)) missing.push(`${what} (${file}; run npx tsc -p .)`);
  }
  return missing.length ? missing.join('; ') : undefined;
}

function requireExport<T>(file: string, name: string): T {
  const v = require(file)[name];
  if (v === undefined) throw new Error(`${file} does not export ${name}`);
  return v as T;
}

function collectingLog(errors: string[]) {
  const keep = (level: string) => (obj: object, msg: string) => {
    if (errors.length < 50) errors.push(`${level}: ${msg} ${JSON.stringify(obj, (_k, v) => (v instanceof Error ? v.message : v))}`);
  };
  return { info: () => undefined, debug: () => undefined, warn: keep('warn'), error: keep('error') };
}

interface SyncLoopLike { run(reason: RunReason): Promise<boolean> }
interface GuardLike { start(): void; stop(): void; commitQuietly(nft: unknown, tx: Transaction): Promise<unknown> }

export async function makeParts(netnsPath: string, n: number, state: ProxyState): Promise<PipelineParts> {
  const why = pipelineMissing();
  if (why) throw new Error(`pipeline bench cannot run: missing ${why}`);
  const native = loadNative();
  const { Registry: PromRegistry } = require('prom-client') as typeof import('prom-client');
  const createProxyMetrics = requireExport<(r: Registry, o?: { processMetrics?: boolean }) => unknown>(MODULES.metrics, 'createProxyMetrics');
  const NftablesProxier = requireExport<new (o: object) => unknown>(MODULES.proxier, 'NftablesProxier');
  const SyncLoop = requireExport<new (d: object) => SyncLoopLike>(MODULES.syncLoop, 'SyncLoop');
  const ProxyHealth = requireExport<new (timeoutMs: number) => unknown>(MODULES.health, 'ProxyHealth');

  const registry = new PromRegistry();
  const metrics = createProxyMetrics(registry, { processMetrics: false });
  const raw = native.Nft.open({ netns: netnsPath });
  const { nft: recording, commits } = recordingNft(raw);
  // As in production (src/app/proxy-app.ts): a RulesetGuard watches the nftables event group and
  // makes large commits with its monitor off the group. KPN_BENCH_MONITOR=0 leaves the guard out;
  // KPN_BENCH_MONITOR=listening keeps the monitor on the group through every commit.
  const mode = process.env.KPN_BENCH_MONITOR ?? 'production';
  const RulesetGuard = requireExport<new (o: object) => GuardLike>(MODULES.guard, 'RulesetGuard');
  const guardedTables = requireExport<(f: string[]) => object>(MODULES.proxier, 'guardedTables');
  const guard = mode === '0' ? undefined : new RulesetGuard({
    netns: netnsPath, tables: guardedTables(['ip']), ownPortIds: () => [raw.portId], repair: () => undefined,
    clock: { now: () => performance.now(), wall: () => new Date(), setTimer: setTimeout, clearTimer: clearTimeout }, log: collectingLog([]),
  });
  guard?.start();
  const nft = guard && mode !== 'listening'
    ? { commit: (tx: Transaction) => guard.commitQuietly(recording, tx), dumpTable: recording.dumpTable.bind(recording), dumpSet: recording.dumpSet.bind(recording) }
    : recording;
  const errors: string[] = [];
  const log = collectingLog(errors);
  const proxier = new NftablesProxier({
    nft, families: ['ip'], masqueradeBit: 14, masqueradeAll: false,
    localDetector: { mode: 'ClusterCIDR', cidrs: [CLUSTER_CIDR] },
    nodePortAddresses: [], nodeIPs: [], serviceCIDRs: ['10.96.0.0/12'], log,
  });
  // The loop syncs fully on its first run and then on a periodic tick an hour after the last full
  // sync: a clock that jumps an hour ahead asks for a full sync the way production gets one.
  let offsetMs = 0;
  const loop = new SyncLoop({
    state, proxier, families: ['IPv4'], metrics, health: new ProxyHealth(120_000), log,
    clock: { wall: () => new Date(Date.now() + offsetMs) },
  });
  let first = true;
  return {
    n, registry, commits, errors,
    description: `src/app SyncLoop -> src/proxier/nftables NftablesProxier -> addon${guard ? `, RulesetGuard watching (${mode})` : ''}`,
    async sync(full) {
      if (full && !first) offsetMs += FULL_SYNC_PERIOD_MS;
      const reason: RunReason = full ? 'periodic' : 'requested';
      first = false;
      return loop.run(reason);
    },
    close: () => { guard?.stop(); raw.close(); },
  };
}
