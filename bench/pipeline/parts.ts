// The pieces of the real pipeline the bench drives, loaded from the compiled project. This is the
// only bench file that knows how NftablesProxier and the metrics are constructed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { Proxier } from '../../src/core/types';
import { loadNative, nativeMissing } from '../lib/native';
import { CommitRecord, recordingNft } from './recording-nft';
import { CLUSTER_CIDR } from '../shapes/cluster';

export const SYNC_METRIC = 'kubeproxy_sync_proxy_rules_duration_seconds';

export interface PipelineParts {
  n: number;
  proxier: Proxier;
  registry: Registry;
  metricName: string;
  description: string;
  commits: CommitRecord[];
  /** Warnings and errors the proxier logged. */
  errors: string[];
  close(): void;
}

const DIST = join(__dirname, '..', '..', 'src');
const PROXIER_FILES = ['index.js', 'proxier.js'].map((f) => join(DIST, 'proxier', 'nftables', f));
const METRICS_FILES = ['index.js', 'proxy-metrics.js'].map((f) => join(DIST, 'metrics', f));
const found = (files: string[]) => files.find((f) => existsSync(f));

/** What is missing for the pipeline bench, or undefined when everything is there. */
export function pipelineMissing(): string | undefined {
  const missing: string[] = [];
  const native = nativeMissing();
  if (native) missing.push(native);
  if (!found(PROXIER_FILES)) missing.push(`the nftables proxier (one of ${PROXIER_FILES.join(', ')} exporting NftablesProxier, compiled from src/proxier/nftables/)`);
  if (!found(METRICS_FILES)) missing.push(`the metrics (one of ${METRICS_FILES.join(', ')} exporting createProxyMetrics and observeSync, compiled from src/metrics/)`);
  return missing.length ? missing.join('; ') : undefined;
}

interface MetricsModule {
  createProxyMetrics(registry: Registry, opts?: { processMetrics?: boolean }): unknown;
  observeSync(m: unknown, family: 'IPv4' | 'IPv6', full: boolean, seconds: number, ok: boolean, now: Date): void;
}

function requireExport<T>(files: string[], name: string): T {
  for (const f of files) {
    if (!existsSync(f)) continue;
    const v = require(f)[name];
    if (v !== undefined) return v as T;
  }
  throw new Error(`none of ${files.join(', ')} exports ${name}`);
}

const quietLog = (errors: string[]) => ({
  info: () => undefined,
  warn: (obj: object, msg: string) => { errors.push(`proxier warning: ${msg} ${JSON.stringify(obj)}`); },
  error: (obj: object, msg: string) => { errors.push(`proxier error: ${msg} ${JSON.stringify(obj)}`); },
});

/**
 * The proxier wrapped the way the program's sync loop runs it: time proxier.sync() and record it
 * with the metrics module's observeSync(), so the bench reads the same histogram production exports.
 */
export async function makeParts(netnsPath: string, n: number): Promise<PipelineParts> {
  const why = pipelineMissing();
  if (why) throw new Error(`pipeline bench cannot run: missing ${why}`);
  const native = loadNative();
  const { Registry: PromRegistry } = require('prom-client') as typeof import('prom-client');
  const createProxyMetrics = requireExport<MetricsModule['createProxyMetrics']>(METRICS_FILES, 'createProxyMetrics');
  const observeSync = requireExport<MetricsModule['observeSync']>(METRICS_FILES, 'observeSync');
  const NftablesProxier = requireExport<new (o: object) => Proxier>(PROXIER_FILES, 'NftablesProxier');
  const registry = new PromRegistry();
  const metrics = createProxyMetrics(registry, { processMetrics: false });
  const { nft, commits } = recordingNft(native.Nft.open({ netns: netnsPath }));
  const errors: string[] = [];
  const inner = new NftablesProxier({
    nft, families: ['ip'], masqueradeBit: 14, masqueradeAll: false,
    localDetector: { mode: 'ClusterCIDR', cidrs: [CLUSTER_CIDR] },
    nodePortAddresses: [], nodeIPs: [], serviceCIDRs: ['10.96.0.0/12'], log: quietLog(errors),
  });
  const proxier: Proxier = {
    async sync(snapshot, changes, full) {
      const t0 = process.hrtime.bigint();
      const result = await inner.sync(snapshot, changes, full);
      observeSync(metrics, 'IPv4', full, Number(process.hrtime.bigint() - t0) / 1e9, result.ok, new Date());
      return result;
    },
  };
  return {
    n, proxier, registry, metricName: SYNC_METRIC, commits, errors,
    description: 'src/proxier/nftables NftablesProxier over the addon, timed into the metric with observeSync()',
    close: () => nft.close(),
  };
}
