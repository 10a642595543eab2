// kubeproxy_native_conntrack_*: the kernel's conntrack statistics (entries, the limit, and the
// per-CPU counters summed) read in collect() on every scrape. The metrics of one scrape share one
// read (prom-client collects them concurrently); the read costs the same whatever the table holds
// (docs/conntrack.md, "Metrics"). Each reading also feeds the table-nearly-full warning.
import { Counter, type Registry } from 'prom-client';
import type { Log } from '../base/log';
import { ConntrackFullWarning } from './conntrack-full-warning';
import { optionalFigure, optionalGauge } from './optional-figure';

/** What one read returns (src/native's ConntrackStats has this shape). */
export interface ConntrackStatsReading {
  entries: number;
  maxEntries: number;
  counters: Partial<Record<string, number>>;
}

/** The kernel's counter names (as `conntrack -S` prints them) with their help texts. */
export const CONNTRACK_COUNTERS: ReadonlyArray<readonly [string, string]> = [
  ['found', 'Candidate NAT tuples found already in use by another entry'],
  ['invalid', 'Packets conntrack could not track (malformed, out of window, unknown state), summed over CPUs'],
  ['insert', 'Entries inserted through ctnetlink (e.g. conntrack -I); entries made by packets are not counted here'],
  ['insert_failed', 'Packets whose new entry could not be inserted (a clash that could not be resolved): the packet was dropped'],
  ['drop', 'Packets dropped because a new entry could not be allocated: the table was full and no entry could be evicted'],
  ['early_drop', 'Entries evicted (not yet assured) to make room for a new one because the table was full'],
  ['error', 'Packets conntrack refused with an error (e.g. an ICMP error it could not relate)'],
  ['search_restart', 'Table lookups restarted because the hash table was resized or an entry moved meanwhile'],
  ['clash_resolve', 'Insert clashes (two packets of a new flow at once, typically UDP) resolved without dropping'],
  ['chain_toolong', 'Inserts refused because a hash bucket chain was too long (possibly a hash flooding attack)'],
];

export interface ConntrackMetricsOptions {
  /** One read of the kernel's statistics (ConntrackClient.readStats). */
  read: () => Promise<ConntrackStatsReading>;
  log: Log;
  /** The table-nearly-full warning; a default one (80%, every 10 min, on `log`) when absent. */
  fullWarning?: ConntrackFullWarning;
}

/** Registers the metrics on `register`; each scrape reads the kernel once. */
export function registerConntrackMetrics(register: Registry, o: ConntrackMetricsOptions): void {
  const registers = [register];
  const warning = o.fullWarning ?? new ConntrackFullWarning({ log: o.log });
  const errors = new Counter({
    name: 'kubeproxy_native_conntrack_stats_read_errors_total',
    help: 'Scrapes whose read of the kernel conntrack statistics failed (the conntrack metrics are absent from those scrapes)',
    registers,
    // Waits for this scrape's read, so a failure shows in the same scrape.
    async collect() { await reading(); },
  });
  let inflight: Promise<ConntrackStatsReading | undefined> | undefined;
  let failing = false;  // logged once per run of failed reads, not on every scrape
  const reading = (): Promise<ConntrackStatsReading | undefined> => {
    inflight ??= o.read().then((r) => {
      failing = false;
      warning.check(r.entries, r.maxEntries);
      return r;
    }, (e: unknown) => {
      errors.inc();
      if (!failing) o.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'Could not read the kernel conntrack statistics (logged again only after a successful read)');
      failing = true;
      return undefined;
    }).finally(() => { inflight = undefined; });
    return inflight;
  };
  const figure = (pick: (r: ConntrackStatsReading) => number | undefined) => async () => {
    const r = await reading();
    return r ? pick(r) : undefined;
  };
  for (const [name, help, pick] of GAUGES) {
    optionalGauge(name, help, registers, figure(pick));
  }
  for (const [kernelName, help] of CONNTRACK_COUNTERS) {
    const f = optionalFigure(figure((r) => r.counters[kernelName]));
    f.hideWhenUnknown(new Counter({
      name: `kubeproxy_native_conntrack_${kernelName}_total`, help, registers,
      async collect() {
        const v = await f.read();
        // The kernel's running total, not an increment: the counter is set to it.
        if (v !== undefined) { this.reset(); this.inc(v); }
      },
    }));
  }
}

const GAUGES: ReadonlyArray<readonly [string, string, (r: ConntrackStatsReading) => number]> = [
  ['kubeproxy_native_conntrack_entries', 'Entries in the node\'s conntrack table', (r) => r.entries],
  ['kubeproxy_native_conntrack_max_entries', 'The conntrack table\'s limit (nf_conntrack_max): new flows are dropped when entries reach it', (r) => r.maxEntries],
];
