// kubeproxy_native_conntrack_*: a real scrape over HTTP of a fresh namespace's conntrack table
// (the figures the kernel reports, one kernel read per scrape), a failing read (metrics absent,
// error counted, scrape still served), and the table-nearly-full warning with a fake clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import type { Log } from '../../src/base/log';
import { ConntrackClient } from '../../src/native';
import { CONNTRACK_COUNTERS, registerConntrackMetrics, type ConntrackStatsReading } from '../../src/metrics/conntrack-metrics';
import { ConntrackFullWarning } from '../../src/metrics/conntrack-full-warning';
import { startMetricsServer } from '../../src/metrics/server';
import { withNetns } from '../helpers/netns';
import { parsePrometheusText, sample, type Scrape } from './prom-text';

interface Line { level: string; obj: Record<string, unknown>; msg: string }
function recordingLog(): Log & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: string) => (obj: object, msg: string) => { lines.push({ level, obj: obj as Record<string, unknown>, msg }); };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), fatal: at('fatal') };
}

async function scrapeOver(registry: Registry): Promise<Scrape> {
  const server = await startMetricsServer({ bindAddress: '127.0.0.1:0', registry });
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    assert.equal(res.status, 200);
    return parsePrometheusText(await res.text());
  } finally {
    await server.close();
  }
}

test('conntrack metrics: a real scrape reports the namespace table as the kernel does, reading it once', async () => {
  await withNetns(async (ns) => {
    for (let i = 0; i < 12; i++) {
      ns.exec('conntrack', ['-I', '-p', 'udp', '-s', '10.0.7.1', '-d', '10.0.7.2', '--sport', String(30000 + i), '--dport', '53', '-t', '120']);
    }
    const client = new ConntrackClient({ netns: ns.path });
    let reads = 0;
    const registry = new Registry();
    registerConntrackMetrics(registry, { read: () => { reads++; return client.readStats(); }, log: recordingLog() });
    const s = await scrapeOver(registry);
    assert.equal(reads, 1);
    assert.equal(sample(s, 'kubeproxy_native_conntrack_entries'), 12);
    assert.equal(s.families.get('kubeproxy_native_conntrack_entries')?.type, 'gauge');
    const max = Number(ns.exec('cat', ['/proc/sys/net/netfilter/nf_conntrack_max']).trim());
    assert.equal(sample(s, 'kubeproxy_native_conntrack_max_entries'), max);
    const kernel = await client.readStats();
    for (const [name] of CONNTRACK_COUNTERS) {
      const metric = `kubeproxy_native_conntrack_${name}_total`;
      assert.equal(s.families.get(metric)?.type, 'counter', metric);
      assert.equal(sample(s, metric), kernel.counters[name as keyof typeof kernel.counters], metric);
    }
    assert.equal(sample(s, 'kubeproxy_native_conntrack_insert_total'), 12);
    assert.equal(sample(s, 'kubeproxy_native_conntrack_stats_read_errors_total'), 0);
    const again = await scrapeOver(registry);
    assert.equal(reads, 2);
    assert.equal(sample(again, 'kubeproxy_native_conntrack_entries'), 12);
  }, 'kpncm');
});

test('conntrack metrics: counters follow the kernel values from scrape to scrape', async () => {
  const registry = new Registry();
  let reading: ConntrackStatsReading = { entries: 5, maxEntries: 100, counters: { drop: 3, insert_failed: 1 } };
  registerConntrackMetrics(registry, { read: async () => reading, log: recordingLog() });
  let s = parsePrometheusText(await registry.metrics());
  assert.deepEqual([sample(s, 'kubeproxy_native_conntrack_drop_total'), sample(s, 'kubeproxy_native_conntrack_insert_failed_total')], [3, 1]);
  assert.equal(sample(s, 'kubeproxy_native_conntrack_early_drop_total'), undefined, 'a counter the kernel did not send is absent');
  reading = { entries: 7, maxEntries: 100, counters: { drop: 10, insert_failed: 1 } };
  s = parsePrometheusText(await registry.metrics());
  assert.deepEqual([sample(s, 'kubeproxy_native_conntrack_drop_total'), sample(s, 'kubeproxy_native_conntrack_entries')], [10, 7]);
});

test('conntrack metrics: a failed read leaves the figures out, counts the error and still serves the scrape', async () => {
  const registry = new Registry();
  const log = recordingLog();
  let fail = true;
  registerConntrackMetrics(registry, {
    read: async () => { if (fail) throw new Error('conntrack stats: open: Permission denied'); return { entries: 1, maxEntries: 10, counters: {} }; },
    log,
  });
  const s = await scrapeOver(registry);
  assert.equal(sample(s, 'kubeproxy_native_conntrack_entries'), undefined);
  assert.equal(sample(s, 'kubeproxy_native_conntrack_max_entries'), undefined);
  assert.equal(sample(s, 'kubeproxy_native_conntrack_stats_read_errors_total'), 1);
  assert.deepEqual(log.lines.map((l) => [l.level, l.obj.err]), [['warn', 'conntrack stats: open: Permission denied']]);
  await scrapeOver(registry);
  assert.equal(log.lines.length, 1, 'a second failure in a row is counted, not logged again');
  fail = false;
  const ok = await scrapeOver(registry);
  assert.equal(sample(ok, 'kubeproxy_native_conntrack_entries'), 1);
  assert.equal(sample(ok, 'kubeproxy_native_conntrack_stats_read_errors_total'), 2);
  fail = true;
  await scrapeOver(registry);
  assert.equal(log.lines.length, 2, 'a failure after a success is logged again');
});

test('conntrack full warning: over 80% only, at most once per 10 minutes, with the figures', () => {
  const log = recordingLog();
  let now = 1_000_000;
  const w = new ConntrackFullWarning({ log, now: () => now });
  assert.equal(w.check(800, 1000), false, 'exactly 80% is not over');
  assert.equal(w.check(801, 1000), true);
  assert.deepEqual(log.lines[0].obj, { entries: 801, maxEntries: 1000, percentFull: 80.1, thresholdPercent: 80, readingsOverSinceLastWarning: 0 });
  assert.equal(log.lines[0].level, 'warn');
  assert.match(log.lines[0].msg, /conntrack table is nearly full/);
  now += 9 * 60_000;
  assert.equal(w.check(990, 1000), false, 'within 10 minutes: suppressed');
  assert.equal(w.check(995, 1000), false);
  now += 60_000 - 1;
  assert.equal(w.check(999, 1000), false, 'one millisecond short of 10 minutes');
  now += 1;
  assert.equal(w.check(1000, 1000), true);
  assert.deepEqual(log.lines[1].obj, { entries: 1000, maxEntries: 1000, percentFull: 100, thresholdPercent: 80, readingsOverSinceLastWarning: 3 });
  assert.equal(w.check(5, 0), false, 'an unknown limit never warns');
  assert.equal(log.lines.length, 2);
});

test('conntrack full warning: fed by each scrape reading', async () => {
  const log = recordingLog();
  const registry = new Registry();
  let now = 0;
  registerConntrackMetrics(registry, {
    read: async () => ({ entries: 95, maxEntries: 100, counters: {} }), log,
    fullWarning: new ConntrackFullWarning({ log, now: () => now }),
  });
  await registry.metrics();
  await registry.metrics();
  now += 10 * 60_000;
  await registry.metrics();
  assert.deepEqual(log.lines.map((l) => [l.level, l.obj.entries, l.obj.maxEntries]), [['warn', 95, 100], ['warn', 95, 100]]);
});
