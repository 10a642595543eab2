// The scale bench's pure parts: statistics, the /proc and /metrics parsers, the heap snapshot
// summary (on real snapshots of this process), and the report's tables and chart.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v8 from 'node:v8';
import { median, percentile } from '../../bench/lib/stats';
import { parseProcStatus } from '../../bench/scale/memory-sampler';
import { parseProcStat, readProcCpuSeconds } from '../../bench/scale/proc-cpu';
import { parseMetrics } from '../../bench/scale/proxy-process';
import { diffSummaries, summarizeChunks, summarizeHeapSnapshot } from '../../bench/scale/heap-summary';
import { breakdownTable, roundsTable, scaleChart, sizeTable, snapshotTable } from '../../bench/scale/report';
import type { BreakdownResult, MemoryReading, SizeResult } from '../../bench/scale/scale-types';

describe('scale bench statistics and parsers', () => {
  it('takes nearest-rank percentiles and medians', () => {
    const xs = Array.from({ length: 20 }, (_, i) => 20 - i);
    assert.equal(percentile(xs, 50), 10);
    assert.equal(percentile(xs, 95), 19);
    assert.equal(percentile(xs, 100), 20);
    assert.equal(percentile([7], 95), 7);
    assert.ok(Number.isNaN(percentile([], 50)));
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
  });

  it('reads VmRSS and VmHWM from /proc/PID/status', () => {
    const text = 'Name:\tnode\nVmPeak:\t 1000 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n';
    assert.deepEqual(parseProcStatus(text), { rssKiB: 102400, hwmKiB: 204800 });
    assert.equal(parseProcStatus('Name:\tkthread\n'), undefined);
  });

  it('reads user + system CPU from /proc/PID/stat, whatever the command name holds', () => {
    const fields = (name: string) => `4242 (${name}) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 125 0 0 20 0 11 0 100 1000 100`;
    assert.equal(parseProcStat(fields('node')), 3.75);
    assert.equal(parseProcStat(fields('a) b (c')), 3.75);
    for (let i = 0; i < 3e6; i++) Math.sqrt(i);
    const own = readProcCpuSeconds(process.pid)!;
    const u = process.cpuUsage();
    assert.ok(Math.abs(own - (u.user + u.system) / 1e6) < 0.1, `/proc says ${own} s, process.cpuUsage ${(u.user + u.system) / 1e6} s`);
  });

  it('parses Prometheus text with labels', () => {
    const m = parseMetrics('# HELP x y\n# TYPE x gauge\nnodejs_heap_size_used_bytes 1234\nkubeproxy_sync_proxy_rules_duration_seconds_count{ip_family="IPv4"} 3\n');
    assert.equal(m.get('nodejs_heap_size_used_bytes'), 1234);
    assert.equal(m.get('kubeproxy_sync_proxy_rules_duration_seconds_count{ip_family="IPv4"}'), 3);
    assert.equal(m.size, 2);
  });
});

class ScaleProbeThing {
  constructor(readonly i: number) {}
}

describe('heap snapshot summary', () => {
  it('counts what was allocated between two real snapshots of this process', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kpn-heap-test-'));
    try {
      const before = await summarizeHeapSnapshot(v8.writeHeapSnapshot(join(dir, 'a.heapsnapshot')));
      const kept = Array.from({ length: 20_000 }, (_, i) => new ScaleProbeThing(i));
      const after = await summarizeHeapSnapshot(v8.writeHeapSnapshot(join(dir, 'b.heapsnapshot')));
      const row = diffSummaries(before, after, 1000).find((r) => r.name === 'ScaleProbeThing');
      assert.equal(row?.count, 20_000);
      assert.ok(row!.selfBytes >= 20_000 * 16, `self bytes ${row!.selfBytes}`);
      assert.equal(kept.length, 20_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a snapshot in any chunking, escaped names included', async () => {
    const text = '{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],"node_types":[["hidden","object","string"],"string","number","number","number"]},"node_count":3},\n'
      + '"nodes":[1,1,1,40,0\n,1,1,3,24,0\n,2,2,5,16,0],\n"edges":[],\n"strings":["<dummy>",\n"Quo\\"ted \\u00e9",\n"a string"]}';
    for (const size of [1, 3, 7, text.length]) {
      const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
      const s = await summarizeChunks(chunks);
      assert.deepEqual(s.get('Quo"ted é'), { selfBytes: 64, count: 2 }, `chunk size ${size}`);
      assert.deepEqual(s.get('(string)'), { selfBytes: 16, count: 1 });
    }
    await assert.rejects(summarizeChunks([text.slice(0, text.indexOf('"edges"'))]), /ended early/);
    await assert.rejects(summarizeChunks(['{"snapshot":{"meta":{}},"nodes":[1,2']), /no node_fields/);
  });
});

const reading = (rss: number, heap: number): MemoryReading => ({ rssMiB: rss, heapUsedMiB: heap, heapTotalMiB: heap * 1.5, externalMiB: 3, heapSpacesUsedMiB: {}, samples: 5, peakRssMiB: rss * 1.2 });

function sizeResult(n: number): SizeResult {
  return {
    n, seed: 11, objectMB: n * 0.005, servedMB: n * 0.0051, startToSyncedS: 1.5, firstSyncS: 0.25, proxyCpuToSyncS: 2.25, apiServerCpuToSyncS: 0.5,
    mix: { services: n, clusterIP: n * 0.8, nodePort: n * 0.12, loadBalancer: n * 0.08, multiPort: 3, udpPorts: 1, servicePorts: n, sessionAffinity: 1, externalLocal: 1, internalLocal: 0, healthCheckNodePorts: 1, topologyHints: 1, slices: n, readyEndpoints: 6 * n, terminatingEndpoints: 7, localEndpoints: 2 },
    releases: [{ when: 'before the first full sync', gcMs: 120.25 }, { when: 'after a full sync', gcMs: 150 }],
    partial: { seconds: [0.001, 0.002], p50Ms: 1.25, p95Ms: 2, full: 0, latencyMs: [5, 900] },
    steady: reading(100 + n / 100, 50 + n / 200), afterChurn: reading(101 + n / 100, 52 + n / 200), laterRounds: [reading(102 + n / 100, 52 + n / 200)],
    churn: { endpointChanges: 3000, servicesAdded: 200, servicesDeleted: 200, durationS: 45, syncs: 44, fullSyncs: 0, syncP50Ms: 12, syncP95Ms: 30 },
    syncLines: 70, metricSyncCount: 70, timeline: [], loadavgEnd: [1, 1, 1], problems: [], proxyWarnings: [],
  };
}

describe('scale bench report', () => {
  it('prints one row per size with the figures the docs quote', () => {
    const t = sizeTable([sizeResult(1000), sizeResult(10000)]);
    const rows = t.split('\n');
    assert.equal(rows.length, 4);
    assert.match(rows[0], /start to first sync s .*CPU to first sync: proxy \/ API server s .*forced GC ms: before \/ after 1st full sync .*steady RSS MiB .*peak RSS MiB .*JS heap used MiB/);
    assert.match(rows[3], /^\| 10,000 +\| 60,000 \+ 7 +\| 50\.0 \/ 51\.0 +\| 1\.50 +\| 2\.25 \/ 0\.50 +\| 0\.25 +\| 120\.3 \/ 150\.0 +\| 1\.25 \/ 2\.00 +\| 200\.0 +\| 240\.0 +\| 100\.0 +\| 201\.0 \/ 102\.0 +\| 241\.2 +\|$/);
  });

  it('prints the steady reading before churn and after each churn round', () => {
    const rows = roundsTable([sizeResult(10000)]).split('\n');
    assert.equal(rows.length, 5);
    assert.match(rows[2], /^\| 10,000 +\| before churn +\| 200\.0 +\| 100\.0 +\| 150\.0 +\|$/);
    assert.match(rows[4], /^\| 10,000 +\| after churn round 2 +\| 202\.0 +\| 102\.0 +\| 153\.0 +\|$/);
  });

  it('prints the breakdown as deltas between steps, and the snapshot rows side by side', () => {
    const steps = [33, 43, 143, 203, 293].map((u, i) => ({ step: `s${i}`, heapUsedMiB: u, heapTotalMiB: u, externalMiB: 2, arrayBuffersMiB: 0.5, rssMiB: u * 2 }));
    const b: BreakdownResult = {
      n: 10000, steps, heapStatistics: {}, problems: [],
      snapshot: { caches: [{ name: 'V1Endpoint', selfBytes: 3 * 1048576, count: 60000 }], proxyParts: [{ name: 'Map', selfBytes: 1048576, count: 10 }], mib: [100, 200, 350] },
    };
    const row = breakdownTable([b]).split('\n')[2];
    assert.match(row, /^\| 10,000 \| 10\.0 +\| 100\.0 +\| 60\.0 +\| 90\.0 +\| 250\.0 +\| 10\.24 +\| 2\.0 \/ 0\.5 +\|$/);
    const snap = snapshotTable(b);
    assert.match(snap, /caches added \(100\.0 MiB\), what the model and the first sync added \(150\.0 MiB\)/);
    assert.match(snap, /\| V1Endpoint +\| 3\.0 +\| 60,000 \| Map +\| 1\.0 +\| 10 +\|/);
    assert.match(snapshotTable({ ...b, snapshot: { caches: [], proxyParts: [], mib: [], skipped: 'not at this N' } }), /N=10000: not at this N/);
  });

  it('draws memory and sync times against N side by side', () => {
    const svg = scaleChart([sizeResult(1000), sizeResult(10000), sizeResult(44000)], 'test');
    assert.equal((svg.match(/<svg /g) ?? []).length, 3);
    assert.match(svg, /<svg x="860" y="0"/);
    assert.match(svg, /100 MiB/);
    assert.match(svg, /steady RSS: N=44000, 540 MiB/);
    assert.match(svg, /first full sync: N=10000, 0\.250 s/);
  });
});
