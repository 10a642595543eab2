// After a demo-like run (Services, endpoint changes, traffic, a refused address claim, an API server
// restart, a foreign flush of our table, a few refused commits), every query of the shipped Grafana dashboard returns data from a real
// Prometheus scraping the proxy, and so do the kubernetes-mixin kube-proxy dashboard's queries,
// unchanged, except the one panel our metrics cannot feed (mixin-queries.ts says which and why).
// KPN_DASHBOARD_DATA=file.json also writes every dashboard query's range result there, for
// scripts/monitoring/plot-dashboard.py (the picture in docs/monitoring.md).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { readCgroupMemoryLimit } from '../../src/metrics/memory-limit';
import { endpointSlice, service } from '../traffic/fixtures';
import { waitForAnswer } from '../traffic/harness';
import { startLiveCluster, takeTable, tableText, until, type LiveCluster } from './live-cluster';
import { MIXIN_INSTANCE_VARIABLE, MIXIN_PANELS } from './mixin-queries';
import { JOB } from './prometheus-server';
import { DASHBOARD_FILE } from './test-rules';

/** Grafana's variables as a user who picked job kube-proxy and every node would have them. */
const RATE_INTERVAL = '2m';
function substitute(expr: string): string {
  return expr.replace(/\$__rate_interval/g, RATE_INTERVAL).replace(/\$__range/g, '10m')
    .replace(/\$job/g, JOB).replace(/\$instance/g, '.+').replace(/\$cluster/g, '');
}

interface Target { expr: string; legendFormat?: string }
interface Panel { type: string; title: string; targets?: Target[]; gridPos: { x: number; y: number; w: number; h: number } }
const dashboard = () => JSON.parse(fs.readFileSync(DASHBOARD_FILE, 'utf8')) as { panels: Panel[]; templating: { list: Array<{ name: string; query: unknown }> } };

/** A target whose series exist only on some nodes: the container's memory limit (absent when unlimited). */
const CONDITIONAL = /kubeproxy_native_memory_limit_bytes/;

const ports = [{ name: 'http', port: 80, targetPort: 8080 }];
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the dashboards\' queries against a real Prometheus after a demo-like run', () => {
  let l: LiveCluster;
  let start = 0;
  before(async () => {
    l = await startLiveCluster({ pods: 3 });
    start = Date.now() / 1000;
    const pods = l.c.topo.pods;
    for (let i = 0; i < 4; i++) {
      const vip = `100.100.6.${10 + i}`;
      l.c.api.create('services', service(`app${i}`, { clusterIP: vip, ports }));
      l.c.api.create('endpointslices', endpointSlice(`app${i}`, `app${i}-1`, { ports, endpoints: pods.slice(0, 2).map((p) => ({ ip: p.ip })) }));
      await waitForAnswer(l.c, 'tcp', vip, 80);
    }
    // Endpoint changes (partial syncs, network programming) and traffic, over half a minute.
    for (let round = 0; round < 6; round++) {
      const i = round % 4;
      const eps = round % 2 === 0 ? pods : pods.slice(0, 1);
      l.c.api.update('endpointslices', endpointSlice(`app${i}`, `app${i}-1`, { ports, endpoints: eps.map((p) => ({ ip: p.ip })) }));
      l.c.topo.probe('tcp', `100.100.6.${10 + i}`, 80, 5, { timeoutMs: 300 });
      await pause(5_000);
    }
    // A Service claims another's ClusterIP as an external IP: refused, with a Warning event (a POST).
    l.c.api.create('services', service('claimer', { clusterIP: '100.100.6.20', externalIPs: ['100.100.6.10'], ports }));
    // The API server restarts and its watch history is gone (etcd compacted meanwhile): the watchers'
    // resumed watches get 410 Gone and they relist (timed GETs; a resumed watch alone is not timed).
    await l.c.api.restart({ compact: true });
    await pause(2_000);
    await until(() => l.c.proxy.watcher.status().connected, 'the watchers to reconnect', 60_000);
    // Someone flushes our table once (a repair), and something holds it for a few seconds (refused syncs).
    l.c.topo.node.nft('flush', 'table', 'ip', 'kube-proxy');
    await pause(3_000);
    const table = await takeTable(l);
    await pause(4_000);
    await table.release();
    await until(() => /chain nat-prerouting/.test(tableText(l)), 'our table back', 30_000);
    await waitForAnswer(l.c, 'tcp', '100.100.6.10', 80);
    await pause(10_000);
  });
  after(async () => { await l?.stop(); });

  it('every query of every dashboard panel returns data (the memory limit only where the container has one)', async () => {
    const d = dashboard();
    const panels = d.panels.filter((p) => p.type !== 'row');
    assert.ok(panels.length >= 13, `${panels.length} panels`);
    const empty: string[] = [];
    const record: Record<string, { gridPos: Panel['gridPos']; type: string; series: unknown[] }> = {};
    const end = Date.now() / 1000;
    for (const p of panels) {
      for (const t of p.targets ?? []) {
        const expr = substitute(t.expr);
        const rows = (await l.prom.query(expr)).filter((r) => Number.isFinite(Number(r.value[1])));
        if (CONDITIONAL.test(expr)) {
          assert.equal(rows.length > 0, readCgroupMemoryLimit() !== undefined, `${p.title}: the limit series exists exactly when this process has a limit`);
        } else if (rows.length === 0) empty.push(`${p.title}: ${expr}`);
        if (process.env.KPN_DASHBOARD_DATA) {
          const range = await l.prom.queryRange(expr.replace(/\[10m\]/g, `[${RATE_INTERVAL}]`), start, end, 2);
          const entry = (record[p.title] ??= { gridPos: p.gridPos, type: p.type, series: [] });
          entry.series.push(...range.map((s) => ({ legend: legend(t.legendFormat, s.metric), values: s.values })));
        }
      }
    }
    if (process.env.KPN_DASHBOARD_DATA) fs.writeFileSync(process.env.KPN_DASHBOARD_DATA, JSON.stringify({ start, end, panels: record }));
    assert.deepEqual(empty, [], 'dashboard queries without data');
  });

  it('the dashboard\'s variables: the job and the node selector list the proxy', async () => {
    const vars = new Map(dashboard().templating.list.map((v) => [v.name, v.query as { query?: string } | string]));
    for (const name of ['job', 'instance']) {
      const q = (vars.get(name) as { query: string }).query;
      const m = /^label_values\((.*), (\w+)\)$/.exec(q);
      assert.ok(m, `${name}: ${q}`);
      const values = new Set((await l.prom.query(substitute(m[1]))).map((r) => r.metric[m[2]]));
      assert.ok(values.has(name === 'job' ? JOB : l.metricsAddress), `${name} lists ${[...values]}`);
    }
  });

  it('the kubernetes-mixin kube-proxy dashboard: its queries, unchanged, return data except Goroutines', async () => {
    const nodes = new Set((await l.prom.query(substitute(MIXIN_INSTANCE_VARIABLE))).map((r) => r.metric.instance));
    assert.deepEqual([...nodes], [l.metricsAddress], 'its node selector lists the proxy');
    const got: Array<[string, 'data' | 'none']> = [];
    for (const p of MIXIN_PANELS) {
      const rows = [];
      for (const q of p.queries) rows.push(...(await l.prom.query(substitute(q))).filter((r) => Number.isFinite(Number(r.value[1]))));
      got.push([p.title, rows.length > 0 ? 'data' : 'none']);
    }
    assert.deepEqual(got, MIXIN_PANELS.map((p) => [p.title, p.expect]));
  });
});

function legend(format: string | undefined, metric: Record<string, string>): string {
  return (format ?? '').replace(/\{\{\s*(\w+)\s*\}\}/g, (_, k: string) => metric[k] ?? '');
}
