// The scale bench's tables (markdown) and chart (RSS and sync times against N, side by side).
import { lineChartSvg, sideBySideSvg, type Series } from '../report/svg';
import { markdownTable, type Cell } from '../report/table';
import type { BreakdownResult, SizeResult } from './scale-types';

const f1 = (v: number | undefined): Cell => (v === undefined || Number.isNaN(v) ? undefined : v.toFixed(1));
const f2 = (v: number | undefined): Cell => (v === undefined || Number.isNaN(v) ? undefined : v.toFixed(2));
const n0 = (v: number): Cell => Math.round(v);

export function sizeTable(rs: SizeResult[]): string {
  const head = ['N', 'endpoints (ready + terminating)', 'JSON MB (objects / served)', 'start to first sync s', 'CPU to first sync: proxy / API server s', 'first full sync s',
    'forced GC ms: before / after 1st full sync', 'partial p50 / p95 ms', 'steady RSS MiB', 'peak RSS MiB', 'JS heap used MiB', 'after churn: RSS / heap MiB', 'peak RSS after churn MiB'];
  return markdownTable(head, rs.map((r) => [
    n0(r.n), `${r.mix.readyEndpoints.toLocaleString('en-US')} + ${r.mix.terminatingEndpoints.toLocaleString('en-US')}`,
    `${f1(r.objectMB)} / ${f1(r.servedMB)}`, f2(r.startToSyncedS), `${f2(r.proxyCpuToSyncS)} / ${f2(r.apiServerCpuToSyncS)}`, f2(r.firstSyncS),
    forcedGc(r), `${f2(r.partial.p50Ms)} / ${f2(r.partial.p95Ms)}`, f1(r.steady.rssMiB), f1(r.steady.peakRssMiB), f1(r.steady.heapUsedMiB),
    `${f1(r.afterChurn.rssMiB)} / ${f1(r.afterChurn.heapUsedMiB)}`, f1(r.afterChurn.peakRssMiB),
  ]));
}

/** The proxy's first two forced GCs (src/app/release-memory.ts): the one before its first full sync, and the one after. */
function forcedGc(r: SizeResult): Cell {
  const ms = (when: string): string => String(f1(r.releases.find((x) => x.when === when)?.gcMs) ?? '-');
  return `${ms('before the first full sync')} / ${ms('after a full sync')}`;
}

export function mixTable(rs: SizeResult[]): string {
  const head = ['N', 'ClusterIP / NodePort / LB', 'ServicePorts (UDP)', 'multi-port', 'ClientIP affinity', 'eTP Local (health-check ports)', 'iTP Local', 'topology hints', 'endpoints on this node'];
  return markdownTable(head, rs.map(({ n, mix: m }) => [
    n0(n), `${m.clusterIP} / ${m.nodePort} / ${m.loadBalancer}`, `${m.servicePorts} (${m.udpPorts})`, m.multiPort, m.sessionAffinity,
    `${m.externalLocal} (${m.healthCheckNodePorts})`, m.internalLocal, m.topologyHints, m.localEndpoints,
  ]));
}

export function churnTable(rs: SizeResult[]): string {
  const head = ['N', 'endpoint changes', 'Services added + deleted', 'seconds', 'syncs (full)', 'sync p50 / p95 ms', 'heap used MiB before / after', 'RSS MiB before / after'];
  return markdownTable(head, rs.map((r) => [
    n0(r.n), r.churn.endpointChanges, `${r.churn.servicesAdded} + ${r.churn.servicesDeleted}`, f1(r.churn.durationS),
    `${r.churn.syncs} (${r.churn.fullSyncs})`, `${f2(r.churn.syncP50Ms)} / ${f2(r.churn.syncP95Ms)}`,
    `${f1(r.steady.heapUsedMiB)} / ${f1(r.afterChurn.heapUsedMiB)}`, `${f1(r.steady.rssMiB)} / ${f1(r.afterChurn.rssMiB)}`,
  ]));
}

/** --nft-monitor: what the listener printed and the CPU it used, per size. */
export function nftMonitorTable(rs: SizeResult[]): string {
  const head = ['N', 'lines', '"lost some netlink events" lines', 'MB', 'nft monitor CPU s', 'ended by itself'];
  return markdownTable(head, rs.map((r) => (r.nftMonitor
    ? [n0(r.n), r.nftMonitor.lines, r.nftMonitor.lostReports, f1(r.nftMonitor.megabytes), f1(r.nftMonitor.cpuS), r.nftMonitor.exitedEarly ? `yes: ${r.nftMonitor.stderr}` : 'no']
    : [n0(r.n), undefined, undefined, undefined, undefined, undefined])));
}

/** Memory over time: the steady reading before churn and after each churn round (--churn-rounds). */
export function roundsTable(rs: SizeResult[]): string {
  const head = ['N', 'reading', 'RSS MiB', 'JS heap used MiB', 'JS heap total MiB'];
  return markdownTable(head, rs.flatMap((r) => [r.steady, r.afterChurn, ...r.laterRounds].map((m, i) => [
    n0(r.n), i === 0 ? 'before churn' : `after churn round ${i}`, f1(m.rssMiB), f1(m.heapUsedMiB), f1(m.heapTotalMiB),
  ])));
}

/** Heap used after each step minus the step before (all after gc). */
export function breakdownTable(bs: BreakdownResult[]): string {
  const labels = ['API server store (bench, not the proxy)', 'informer caches', 'model (ProxyState)', 'first full sync: proxier, sync loop, guard, health servers'];
  const head = ['N', ...labels.map((l) => `${l} MiB`), 'proxy total MiB', 'caches KiB / Service', 'external / arrayBuffers MiB at end'];
  return markdownTable(head, bs.map((b) => {
    const used = b.steps.map((s) => s.heapUsedMiB);
    const deltas = used.slice(1, 5).map((u, i) => u - used[i]);
    const synced = b.steps[4];
    return [n0(b.n), ...deltas.map(f1), f1(used[4] - used[1]), f2((deltas[1] * 1024) / b.n),
      `${f1(synced.externalMiB)} / ${f1(synced.arrayBuffersMiB)}`];
  }));
}

export function snapshotTable(b: BreakdownResult, top = 12): string {
  const s = b.snapshot;
  if (s.skipped) return `N=${b.n}: ${s.skipped}`;
  const head = ['informer caches: constructor (or node type)', 'self MiB', 'count', 'model + first sync: constructor (or node type)', 'self MiB ', 'count '];
  const rows = Array.from({ length: top }, (_, i) => {
    const c = s.caches[i];
    const p = s.proxyParts[i];
    return [c?.name, c && f1(c.selfBytes / 1048576), c?.count, p?.name, p && f1(p.selfBytes / 1048576), p?.count] as Cell[];
  });
  const [server, caches, synced] = s.mib;
  return `N=${b.n}: heap snapshots, self sizes by constructor: what the watcher's caches added (${f1(caches - server)} MiB), `
    + `what the model and the first sync added (${f1(synced - caches)} MiB)\n${markdownTable(head, rows)}`;
}

const series = (name: string, rs: SizeResult[], y: (r: SizeResult) => number, dashed = false): Series =>
  ({ name, dashed, points: rs.map((r) => ({ x: r.n, y: y(r) })) });

export function scaleChart(rs: SizeResult[], subtitle: string): string {
  const memory = lineChartSvg({
    title: 'kube-proxy-native memory vs Services', subtitle, xLabel: 'Services (N)', yLabel: 'MiB', yUnit: 'MiB',
    series: [
      series('steady RSS', rs, (r) => r.steady.rssMiB), series('peak RSS (VmHWM)', rs, (r) => r.afterChurn.peakRssMiB, true),
      series('JS heap used', rs, (r) => r.steady.heapUsedMiB), series('RSS after churn', rs, (r) => r.afterChurn.rssMiB, true),
    ],
  });
  const times = lineChartSvg({
    title: 'kube-proxy-native sync times vs Services', subtitle, xLabel: 'Services (N)', yLabel: 'seconds',
    series: [
      series('start to first sync', rs, (r) => r.startToSyncedS), series('first full sync', rs, (r) => r.firstSyncS),
      series('1-endpoint partial p50', rs, (r) => r.partial.p50Ms / 1000), series('1-endpoint partial p95', rs, (r) => r.partial.p95Ms / 1000, true),
    ],
  });
  return sideBySideSvg([memory, times]);
}
