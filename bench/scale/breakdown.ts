// Where the proxy's heap goes, step by step, in one process started with --expose-gc inside the
// size's network namespace: the same cluster in a test API server (measured first, so it can be
// subtracted), then the real ClusterWatcher listing it (the informer caches), then ProxyState fed by a
// second watcher's events as production's sink feeds it (the model; that watcher is stopped and
// dropped before the reading), then the production sync parts (syncParts: NftablesProxier, sync
// loop, guard, health-check servers) after their first full sync into this namespace's kernel. After
// each step: gc, then process.memoryUsage(). Heap snapshots before and after the proxy's parts
// cross-check the deltas by constructor name.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v8 from 'node:v8';
import { Registry } from 'prom-client';
import { parseCommandLine, type KubeProxyConfiguration } from '../../src/config';
import { ProxyState } from '../../src/core';
import { ClusterWatcher } from '../../src/k8s/cluster-watcher';
import { loadKubeConfig } from '../../src/k8s/kubeconfig';
import type { ClusterEventSink } from '../../src/k8s/sink';
import { createLogger, type Logger } from '../../src/log';
import { createProxyMetrics } from '../../src/metrics/proxy-metrics';
import { ProxyHealth } from '../../src/health/proxy-health';
import { ConntrackClient, Nft } from '../../src/native';
import { servedFamilies } from '../../src/app/families';
import { nftablesParts } from '../../src/app/nftables-parts';
import { syncParts } from '../../src/app/sync-parts';
import { ScaleApiHost } from './api-host';
import { NODE_NAME } from './cluster-state';
import { diffSummaries, summarizeHeapSnapshot, totalBytes, type HeapSummary } from './heap-summary';
import { configYaml } from './proxy-process';
import type { BreakdownResult, HeapReading } from './scale-types';

const MiB = 1024 * 1024;

export interface BreakdownOptions { n: number; seed: number; snapshotMaxN: number }

function gcNow(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the breakdown needs node --expose-gc');
  // Twice: the first pass can leave objects whose finalizers free more.
  gc();
  gc();
}

function reading(step: string): HeapReading {
  gcNow();
  const m = process.memoryUsage();
  return { step, heapUsedMiB: m.heapUsed / MiB, heapTotalMiB: m.heapTotal / MiB, externalMiB: m.external / MiB, arrayBuffersMiB: m.arrayBuffers / MiB, rssMiB: m.rss / MiB };
}

/** A pino logger (the production one) whose warnings and errors land in `problems`. */
function problemLogger(problems: string[]): Logger {
  const write = (line: string) => {
    const e = JSON.parse(line) as { level: number; msg: string };
    if (e.level >= 40 && problems.length < 50) problems.push(line.trim().slice(0, 300));
  };
  return createLogger({ format: 'json', verbosity: 0, destination: { write } });
}

/**
 * A ClusterWatcher that has listed everything. Its sink feeds `state` as production's does, or, without
 * one, keeps nothing beyond the watcher's own caches.
 */
async function listedWatcher(config: KubeProxyConfiguration, log: Logger, state?: ProxyState): Promise<ClusterWatcher> {
  let done!: () => void;
  const synced = new Promise<void>((r) => (done = r));
  const sink: ClusterEventSink = {
    onService: (k, svc) => void state?.onService(k, svc), onEndpointSlice: (k, slice) => void state?.onEndpointSlice(k, slice),
    onNode: (n) => void state?.onNode(n), onServiceCIDRs: (c) => void state?.onServiceCIDRs(c), onSynced: () => done(),
  };
  const watcher = new ClusterWatcher({ kubeConfig: loadKubeConfig({ kubeconfig: config.clientConnection.kubeconfig }), nodeName: NODE_NAME, log, sink });
  watcher.start();
  await synced;
  return watcher;
}

async function snapshot(dir: string, name: string): Promise<HeapSummary> {
  const file = v8.writeHeapSnapshot(join(dir, `${name}.heapsnapshot`));
  try {
    return await summarizeHeapSnapshot(file);
  } finally {
    rmSync(file, { force: true });
  }
}

export async function runBreakdown(o: BreakdownOptions): Promise<BreakdownResult> {
  const problems: string[] = [];
  const log = problemLogger(problems);
  const dir = mkdtempSync(join(tmpdir(), 'kpn-scale-breakdown-'));
  const snapshots: HeapSummary[] = [];
  const snap = async (name: string) => { if (o.n <= o.snapshotMaxN) snapshots.push(await snapshot(dir, name)); };
  const steps: HeapReading[] = [reading('modules loaded')];
  const host = await ScaleApiHost.start({ services: o.n, seed: o.seed });
  // The server keeps its creation events (for resuming watches) and each paged list's snapshot (for
  // continue tokens): dropped before each reading, so the server's share stays constant.
  host.api.compact();
  steps.push(reading('+ test API server holding the cluster (not the proxy)'));
  await snap('server');

  const config = proxyConfig(dir, host);
  const watcher = await listedWatcher(config, log);
  host.api.compact();
  steps.push(reading('+ informer caches (ClusterWatcher listed everything)'));
  await snap('caches');

  const families = servedFamilies(config);
  const state = new ProxyState({ nodeName: NODE_NAME, ipFamilies: families, log });
  // Fed by a second watcher's events, as production's sink feeds it; that watcher stops once listed.
  // Its aborted requests settle on the next turn of the event loop: until then they hold it and its
  // caches (at 10k, 6 MiB that the model's reading counted and the next step's then did not).
  (await listedWatcher(config, log, state)).stop();
  await new Promise((settled) => setTimeout(settled, 50));
  host.api.compact();
  steps.push(reading('+ model (ProxyState fed, changes pending)'));

  const inputs = { config, log, families, metrics: createProxyMetrics(new Registry()), health: new ProxyHealth(2 * config.syncPeriod), state, conntrack: new ConntrackClient() };
  const parts = syncParts(inputs, nftablesParts({ ...inputs, nft: Nft.open() }));
  parts.guard?.start();
  if (!(await parts.loop.run('requested'))) problems.push('the first sync failed');
  steps.push(reading('+ first full sync (proxier state, sync loop, guard, health-check servers)'));
  await snap('synced');

  watcher.stop();
  rmSync(dir, { recursive: true, force: true });
  return { n: o.n, steps, problems, heapStatistics: { ...v8.getHeapStatistics() } as unknown as Record<string, number>, snapshot: snapshotDiffs(snapshots, o) };
}

function proxyConfig(dir: string, host: ScaleApiHost): KubeProxyConfiguration {
  const file = join(dir, 'config.yaml');
  writeFileSync(file, configYaml(host.api.kubeconfig(dir)));
  const cl = parseCommandLine(['--config', file]);
  if (cl.errors.length) throw new Error(`config: ${cl.errors.join('; ')}`);
  return cl.config;
}

function snapshotDiffs(s: HeapSummary[], o: BreakdownOptions): BreakdownResult['snapshot'] {
  if (s.length < 3) return { caches: [], proxyParts: [], mib: [], skipped: `heap snapshots are taken at N <= ${o.snapshotMaxN} only` };
  return { caches: diffSummaries(s[0], s[1], 25), proxyParts: diffSummaries(s[1], s[2], 25), mib: s.map((x) => totalBytes(x) / MiB) };
}
