// One size of the scale bench, run inside the size's network namespace: the test API server holding
// the cluster, the real kube-proxy-native process against it, and the phases (phases.ts), all read
// from outside the process.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScaleApiHost } from './api-host';
import { phaseCpuLine, startPhaseCpu, type PhaseCpu } from './machine-cpu';
import { MemorySampler } from './memory-sampler';
import { NftMonitorProcess } from './nft-monitor';
import { churn, firstSync, partialKinds, partialSyncs, steadyMemory } from './phases';
import { ProxyProcess } from './proxy-process';
import type { SizeResult, Timing } from './scale-types';
import { progress } from '../report/table';

export interface SizeRunOptions { n: number; seed: number; timing: Timing; /** run `nft monitor` in the namespace throughout */ nftMonitor?: boolean }

const SYNC_COUNT = 'kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family="IPv4"}';

export async function runSize(o: SizeRunOptions): Promise<SizeResult> {
  const t = o.timing;
  const problems: string[] = [];
  progress(`N=${o.n}: generating the cluster into the test API server`);
  const host = await ScaleApiHost.start({ services: o.n, seed: o.seed });
  const dir = mkdtempSync(join(tmpdir(), 'kpn-scale-'));
  const monitor = o.nftMonitor ? NftMonitorProcess.start() : undefined;
  const proc = ProxyProcess.start(dir, host.api.kubeconfig(dir));
  const sampler = new MemorySampler(proc.pid, proc.spawnedAtMs);
  sampler.start();
  let result: SizeResult;
  let exit: number | null;
  try {
    progress(`N=${o.n}: proxy started (pid ${proc.pid}); waiting for its first sync`);
    const first = await firstSync(proc, t.startTimeoutMs, problems);
    const servedMB = host.api.bytesSent() / 1e6;
    progress(`N=${o.n}: first sync after ${first.startToSyncedS.toFixed(1)} s; steady state`);
    const steady = await steadyMemory(proc, sampler, t);
    progress(`N=${o.n}: ${t.partialRepeats} one-endpoint partial syncs`);
    const partial = await partialSyncs(host, proc, t.partialRepeats, problems);
    progress(`N=${o.n}: churn, ${t.churnEndpointChanges} endpoint changes and ${t.churnServiceSwaps} Service swaps over ${t.churnMs / 1000} s`);
    const expected = { services: o.n, endpointSlices: o.n + t.partialRepeats };
    const churned = await churn(host, proc, t, expected);
    progress(`N=${o.n}: steady state after churn`);
    const afterChurn = await steadyMemory(proc, sampler, t);
    const laterRounds = [];
    for (let round = 2; round <= t.churnRounds; round++) {
      progress(`N=${o.n}: churn round ${round} of ${t.churnRounds}`);
      await churn(host, proc, t, expected);
      laterRounds.push(await steadyMemory(proc, sampler, t));
    }
    let kinds;
    let kindsCpu: PhaseCpu | undefined;
    if (t.kindRepeats > 0) {
      const cpu = startPhaseCpu(proc.pid);
      progress(`N=${o.n}: partial syncs by kind, ${t.kindRepeats} of each (a count change, a pod replaced, a Service added or removed), one a second`);
      kinds = await partialKinds(host, proc, o.n, t.kindRepeats, o.seed, problems);
      kindsCpu = cpu();
      progress(`N=${o.n}: during the kinds: ${phaseCpuLine(kindsCpu)}`);
      progress(`N=${o.n}: ${kinds.figures.map((f) => `${f.kind} p50 ${f.p50Ms.toFixed(2)} p99 ${f.p99Ms.toFixed(2)} ms`).join(', ')}`);
    }
    const metricSyncCount = (await proc.metrics()).get(SYNC_COUNT);
    if (metricSyncCount !== proc.syncs.length) problems.push(`the log showed ${proc.syncs.length} syncs, sync_proxy_rules_duration_seconds_count says ${metricSyncCount}`);
    result = {
      n: o.n, seed: o.seed, mix: host.mix, objectMB: host.objectBytes / 1e6, servedMB,
      startToSyncedS: first.startToSyncedS, firstSyncS: first.seconds, proxyCpuToSyncS: first.proxyCpuS, apiServerCpuToSyncS: first.apiServerCpuS,
      partial, steady, churn: churned, afterChurn, laterRounds, kinds, kindsCpu,
      releases: proc.releases.map((r) => ({ when: r.when, gcMs: r.gcMs })), syncLines: proc.syncs.length, metricSyncCount,
      timeline: sampler.timeline(), loadavgEnd: loadavg(), problems: [...problems, ...proc.problems], proxyWarnings: proc.warnings,
    };
  } finally {
    sampler.stop();
    exit = await proc.stop();
    const nftMonitor = await monitor?.stop();
    if (nftMonitor && result!) result.nftMonitor = nftMonitor;
    await host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (exit !== 0) result.problems.push(`the proxy exited with ${exit} after SIGTERM`);
  if (result.nftMonitor?.exitedEarly) result.problems.push(`nft monitor ended before the size did: ${result.nftMonitor.stderr}`);
  return result;
}
