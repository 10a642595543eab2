// The pieces of the real pipeline the bench drives, loaded from the compiled project. This is the
// only bench file that knows how NftablesProxier and the metrics are constructed.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { Proxier } from '../../src/core/types';
import { loadNative, nativeMissing } from '../lib/native';
import { CommitRecord, recordingNft } from './recording-nft';

export const SYNC_METRIC = 'kubeproxy_sync_proxy_rules_duration_seconds';

export interface PipelineParts {
  n: number;
  proxier: Proxier;
  registry: Registry;
  metricName: string;
  description: string;
  commits: CommitRecord[];
  close(): void;
}

const DIST = join(__dirname, '..', '..', 'src');
const PROXIER = join(DIST, 'proxier', 'nftables', 'index.js');
const METRICS = join(DIST, 'metrics', 'index.js');

/** What is missing for the pipeline bench, or undefined when everything is there. */
export function pipelineMissing(): string | undefined {
  const missing: string[] = [];
  const native = nativeMissing();
  if (native) missing.push(native);
  if (!existsSync(PROXIER)) missing.push(`the nftables proxier (${PROXIER}, from src/proxier/nftables/index.ts exporting NftablesProxier)`);
  if (!existsSync(METRICS)) missing.push(`the metrics (${METRICS}, from src/metrics/index.ts exporting createProxyMetrics(registry))`);
  return missing.length ? missing.join('; ') : undefined;
}

export async function makeParts(netnsPath: string, n: number): Promise<PipelineParts> {
  const why = pipelineMissing();
  if (why) throw new Error(`pipeline bench cannot run: missing ${why}`);
  const native = loadNative();
  const { Registry: PromRegistry } = require('prom-client') as typeof import('prom-client');
  const { createProxyMetrics } = require(METRICS);
  const { NftablesProxier } = require(PROXIER);
  if (typeof NftablesProxier !== 'function') throw new Error(`${PROXIER} does not export NftablesProxier`);
  if (typeof createProxyMetrics !== 'function') throw new Error(`${METRICS} does not export createProxyMetrics`);
  const registry = new PromRegistry();
  const metrics = createProxyMetrics(registry);
  const { nft, commits } = recordingNft(native.Nft.open({ netns: netnsPath }));
  const proxier: Proxier = new NftablesProxier({ nft, metrics, ipFamilies: ['IPv4'] });
  return {
    n, proxier, registry, metricName: SYNC_METRIC, commits,
    description: 'src/proxier/nftables NftablesProxier over the addon',
    close: () => nft.close(),
  };
}
