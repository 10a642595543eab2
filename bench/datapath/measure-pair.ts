// One (N, D) point of the datapath bench: our ruleset and upstream's shape, each in its own fresh
// namespace, the same connections timed in both by the connect bench's method (bench/lib/connect-timing.ts).
// A third namespace holds no ruleset; case by case one client process times the three batch by batch in
// turn, round after round, so that the machine's load, which drifts, weighs on a case's three figures alike,
// and each round gives a paired difference (ours - upstream's) that the load cancels out of.
import { medianInterval, median } from '../lib/stats';
import { benchNetns, teardown, type TestNetns } from '../lib/netns';
import { ModelDriver } from '../pipeline/model-driver';
import { makeParts, type PipelineParts } from '../pipeline/parts';
import { progress } from '../report/table';
import { datapathCluster, ENDPOINT_PORT, NODE_IP, SERVICE_CIDR, TIMED, upstreamOptions, type DatapathCluster } from './layout';
import { connectRounds, type LoopTarget, type LoopTiming } from './connect-loop';
import { loadUpstream } from './load-upstream';

export const CASES = ['first', 'last', 'miss', 'nodeport', 'affinity'] as const;
export type CaseName = (typeof CASES)[number];

/** One case's figures, from the rounds' paired batches (µs per connection). */
export interface CaseFigures {
  /** Medians over the rounds: the namespace without a ruleset, ours, upstream's. */
  bare: number;
  ours: number;
  upstream: number;
  /** Medians over the rounds of each round's difference from its own no-ruleset batch. */
  oursExtra: number;
  upstreamExtra: number;
  /** The median of the rounds' (ours - upstream's) and its 95% confidence interval. */
  diff: number;
  diffLow: number;
  diffHigh: number;
  /**
   * D > 1 only: each ruleset at D minus the same ruleset at D = 1 (the same N; two more namespaces
   * timed in the same rounds), the median of the rounds' differences and its 95% confidence
   * interval: flat in D is 0. The timed Services' endpoint counts grow with D (the "last" and
   * NodePort cases spread their connections over D endpoints), which both rulesets pay alike.
   */
  flat?: { ours: Growth; upstream: Growth };
  /** Every round: [bare, ours, upstream(, ours at D = 1, upstream at D = 1)] µs per connection. */
  rounds: number[][];
}

/** At D minus at D = 1: median, 95% CI, and the extra µs (over no ruleset) at D = 1. */
export interface Growth { diff: number; low: number; high: number; atOneExtra: number }

export interface DatapathRow {
  services: number;
  distinct: number;
  endpoints: number;
  /** Our first full sync (model -> SyncLoop -> proxier -> addon), seconds. */
  oursSyncS: number;
  /** upstream's table through `nft -f`, seconds. */
  upstreamLoadS: number;
  cases: Record<CaseName, CaseFigures>;
}

/** Own server ports for the connections that reach no Service, so no tuple clashes with a DNATed one or an earlier case's. */
const MISS_PORT = 18081;
const BARE_PORT = 18090;

/** Where each case connects; the servers listen on every address (the endpoints are 127.x addresses). */
function targets(c: DatapathCluster): Record<CaseName, { host: string; port: number; listenPort: number }> {
  const svc = (host: string, port: number) => ({ host, port, listenPort: ENDPOINT_PORT });
  const last = c.cluster[TIMED.last];
  return {
    first: svc(c.cluster[TIMED.first].clusterIP, c.cluster[TIMED.first].port),
    last: svc(last.clusterIP, last.port),
    miss: { host: '127.0.0.1', port: MISS_PORT, listenPort: MISS_PORT },
    nodeport: svc(NODE_IP, c.cluster[TIMED.nodePort].nodePort),
    affinity: svc(c.affinity.clusterIP, c.affinity.port),
  };
}

/** ClusterIPs routed to lo (connections from the namespace itself, DNAT in the output hook); a node address for NodePorts. */
function prepare(ns: TestNetns): void {
  ns.exec('ip', ['route', 'add', SERVICE_CIDR, 'dev', 'lo']);
  // On lo (this kernel has no dummy links): local, not loopback, so a NodePort address in both rulesets.
  ns.exec('ip', ['addr', 'add', `${NODE_IP}/32`, 'dev', 'lo']);
}

async function programOurs(ns: TestNetns, c: DatapathCluster): Promise<{ parts: PipelineParts; seconds: number }> {
  const driver = new ModelDriver();
  for (const s of c.cluster) driver.upsert(s);
  if (driver.warnings.length) throw new Error(`the model refused objects: ${driver.warnings.join('; ')}`);
  const parts = await makeParts(ns.path, c.services, driver.state);
  const t0 = performance.now();
  if (!(await parts.sync(true))) {
    parts.close();
    throw new Error(`our full sync failed: ${parts.errors.join('; ')}`);
  }
  return { parts, seconds: (performance.now() - t0) / 1000 };
}

/** The no-ruleset namespace, ours and upstream's at D, and (D > 1) both at D = 1 with the same N. */
type Spaces = { bare: TestNetns; ours: TestNetns; theirs: TestNetns; atOne?: { ours: TestNetns; theirs: TestNetns } };

export function caseFigures(rounds: number[][]): CaseFigures {
  const col = (i: number) => rounds.map((r) => r[i]);
  const minus = (i: number, j: number) => rounds.map((r) => r[i] - r[j]);
  const d = minus(1, 2);
  const [diffLow, diffHigh] = medianInterval(d);
  const fig: CaseFigures = {
    bare: median(col(0)), ours: median(col(1)), upstream: median(col(2)),
    oursExtra: median(minus(1, 0)), upstreamExtra: median(minus(2, 0)),
    diff: median(d), diffLow, diffHigh, rounds,
  };
  if (rounds.every((r) => r.length === 5)) {
    const growth = (atD: number, atOne: number): Growth => {
      const g = minus(atD, atOne);
      const [low, high] = medianInterval(g);
      return { diff: median(g), low, high, atOneExtra: median(minus(atOne, 0)) };
    };
    fig.flat = { ours: growth(1, 3), upstream: growth(2, 4) };
  }
  return fig;
}

/** Each case in one client run: rounds of (no ruleset, ours, upstream's) batches, the no-ruleset one on a port of the case's own. */
function timeCases(ns: Spaces, tg: ReturnType<typeof targets>, tgAtOne: ReturnType<typeof targets>, timing: LoopTiming): Record<CaseName, CaseFigures> {
  const out = {} as Record<CaseName, CaseFigures>;
  CASES.forEach((k, i) => {
    const port = BARE_PORT + i;
    const runs: LoopTarget[] = [
      { ns: ns.bare, host: '127.0.0.1', port, listenPort: port },
      { ns: ns.ours, ...tg[k] },
      { ns: ns.theirs, ...tg[k] },
      ...(ns.atOne ? [{ ns: ns.atOne.ours, ...tgAtOne[k] }, { ns: ns.atOne.theirs, ...tgAtOne[k] }] : []),
    ];
    out[k] = caseFigures(connectRounds(runs, timing));
  });
  return out;
}

export async function measurePair(services: number, distinct: number, timing: LoopTiming): Promise<DatapathRow> {
  const c = datapathCluster(services, distinct);
  const made: TestNetns[] = [];
  const fresh = () => { const ns = benchNetns(); made.push(ns); prepare(ns); return ns; };
  const parts: PipelineParts[] = [];
  try {
    const ns: Spaces = { bare: fresh(), ours: fresh(), theirs: fresh() };
    progress(`  ours: full sync of ${services} Services, ${c.endpoints} endpoints`);
    const programmed = await programOurs(ns.ours, c);
    parts.push(programmed.parts);
    const atOne = distinct > 1 ? datapathCluster(services, 1) : c;
    if (distinct > 1) {
      ns.atOne = { ours: fresh(), theirs: fresh() };
      parts.push((await programOurs(ns.atOne.ours, atOne)).parts);
      await loadUpstream(ns.atOne.theirs, upstreamOptions(atOne));
    }
    const upstreamLoadS = await loadUpstream(ns.theirs, upstreamOptions(c));
    progress(`  ours ${programmed.seconds.toFixed(2)} s, upstream nft -f ${upstreamLoadS.toFixed(1)} s; timing ${CASES.length} cases`);
    return {
      services, distinct, endpoints: c.endpoints, oursSyncS: programmed.seconds, upstreamLoadS,
      cases: timeCases(ns, targets(c), targets(atOne), timing),
    };
  } finally {
    for (const p of parts) p.close();
    for (const ns of made) teardown(ns);
  }
}
