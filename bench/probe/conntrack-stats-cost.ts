// `npm run bench -- conntrack-stats`: what a scrape of the kubeproxy_native_conntrack_* metrics
// costs with an empty conntrack table and with one holding --sizes entries (default 100,000: real
// UDP entries made by datagrams from one socket to distinct loopback ports, in a fresh namespace).
// For each: the addon's conntrackStats (two ctnetlink requests), a whole /metrics scrape over HTTP
// of a registry holding only these metrics, and, for contrast, one conntrackList dump (which walks
// the table). The statistics read counters and must not grow with the table.
import { Registry } from 'prom-client';
import { silentLog } from '../../src/base/log';
import { registerConntrackMetrics } from '../../src/metrics/conntrack-metrics';
import { startMetricsServer } from '../../src/metrics/server';
import { ConntrackClient } from '../../src/native';
import { benchEnv, envLine } from '../lib/env';
import { benchNetns, teardown, type TestNetns } from '../lib/netns';
import { timestamp, writeResult } from '../lib/results';
import { markdownTable, progress } from '../report/table';

/** One socket, one datagram per destination port of 127.0.0.1, .2, ... until n entries exist. */
const FILL = `
import socket, sys
n = int(sys.argv[1]); s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); sent = 0; host = 1
while sent < n:
    for port in range(1, 65536):
        if sent == n: break
        s.sendto(b'x', ('127.0.0.%d' % host, port)); sent += 1
    host += 1
`;

function fill(ns: TestNetns, entries: number): void {
  // Conntrack runs only once a rule needs it; UDP entries must outlive the fill and the measurement.
  ns.exec('nft', ['-f', '-'], 'table ip ctfill {\n  chain out {\n    type filter hook output priority 0;\n    ct state new accept\n  }\n}\n');
  ns.exec('sysctl', ['-qw', 'net.netfilter.nf_conntrack_udp_timeout=3600']);
  if (entries > 0) ns.exec('python3', ['-c', FILL, String(entries)]);
}

async function timeMs(fn: () => Promise<unknown>, repeats: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const t = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return out.sort((a, b) => a - b);
}

const q = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

interface Row { entries: number; statsMed: number; statsP95: number; scrapeMed: number; scrapeP95: number; dumpMed: number }

async function measure(size: number, repeats: number): Promise<Row> {
  const ns = benchNetns();
  try {
    fill(ns, size);
    const client = new ConntrackClient({ netns: ns.path });
    const entries = (await client.readStats()).entries;
    const registry = new Registry();
    registerConntrackMetrics(registry, { read: () => client.readStats(), log: silentLog });
    const server = await startMetricsServer({ bindAddress: '127.0.0.1:0', registry });
    try {
      const stats = await timeMs(() => client.readStats(), repeats);
      const scrape = await timeMs(async () => (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text(), repeats);
      const dump = await timeMs(() => client.listDnatFlows({ family: 4, protocol: 'udp', max: 1 }), 5);
      return { entries, statsMed: q(stats, 0.5), statsP95: q(stats, 0.95), scrapeMed: q(scrape, 0.5), scrapeP95: q(scrape, 0.95), dumpMed: q(dump, 0.5) };
    } finally {
      await server.close();
    }
  } finally {
    teardown(ns);
  }
}

export async function runConntrackStatsCost(o: { sizes?: number[]; repeats?: number; quick: boolean }): Promise<void> {
  const sizes = [0, ...(o.sizes ?? [o.quick ? 10_000 : 100_000])];
  const repeats = o.repeats ?? (o.quick ? 50 : 300);
  const rows: Row[] = [];
  for (const size of sizes) {
    progress(`conntrack-stats: ${size} entries`);
    rows.push(await measure(size, repeats));
  }
  const f = (v: number) => v.toFixed(3);
  const table = markdownTable(
    ['entries (kernel)', 'conntrackStats median ms', 'p95 ms', '/metrics scrape median ms', 'p95 ms', 'one table dump (conntrackList) median ms'],
    rows.map((r) => [r.entries, f(r.statsMed), f(r.statsP95), f(r.scrapeMed), f(r.scrapeP95), f(r.dumpMed)]),
  );
  const text = `# conntrack statistics: cost of a scrape\n\n${envLine(benchEnv())}; ${repeats} repeats each\n\n${table}\n`;
  process.stdout.write(text);
  writeResult('conntrack-stats-', timestamp(), 'md', text);
}
