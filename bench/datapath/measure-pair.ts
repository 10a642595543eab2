// One (N, D) point of the datapath bench: our ruleset and upstream's shape, each in its own fresh
// namespace, the same connections timed in both by the connect bench's method (bench/lib/connect-timing.ts).
// A third namespace holds no ruleset; case by case the three are timed batch by batch in turn (bare,
// ours, upstream, bare, ...), so that the machine's load, which drifts, weighs on a case's three figures alike.
import { interleavedUs, type ConnectTarget, type Scheduling } from '../lib/connect-timing';
import { benchNetns, teardown, type TestNetns } from '../lib/netns';
import { ModelDriver } from '../pipeline/model-driver';
import { makeParts, type PipelineParts } from '../pipeline/parts';
import { progress } from '../report/table';
import { datapathCluster, ENDPOINT_PORT, NODE_IP, SERVICE_CIDR, TIMED, upstreamOptions, type DatapathCluster } from './layout';
import { loadUpstream } from './load-upstream';

export const CASES = ['first', 'last', 'miss', 'nodeport', 'affinity'] as const;
export type CaseName = (typeof CASES)[number];

type PerCase = Record<CaseName, number>;

export interface DatapathRow {
  services: number;
  distinct: number;
  endpoints: number;
  /** Our first full sync (model -> SyncLoop -> proxier -> addon), seconds. */
  oursSyncS: number;
  /** upstream's table through `nft -f`, seconds. */
  upstreamLoadS: number;
  /** µs per connection per case: in the namespace without a ruleset (timed just before the other two), ours, upstream's. */
  bare: PerCase;
  ours: PerCase;
  upstream: PerCase;
}

/** Own server ports for the connections that reach no Service, so no tuple clashes with a DNATed one or an earlier case's. */
const MISS_PORT = 18081;
const BARE_PORT = 18090;

/** Every timed connection is answered by a server on any address (the endpoints are 127.x addresses). */
function targets(c: DatapathCluster): Record<CaseName, ConnectTarget> {
  const svc = (host: string, port: number): ConnectTarget => ({ host, port, listen: ['0.0.0.0'], listenPort: ENDPOINT_PORT });
  const last = c.cluster[TIMED.last];
  return {
    first: svc(c.cluster[TIMED.first].clusterIP, c.cluster[TIMED.first].port),
    last: svc(last.clusterIP, last.port),
    miss: { host: '127.0.0.1', port: MISS_PORT, listen: ['0.0.0.0'], listenPort: MISS_PORT },
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

/** How the connections are timed: `connections` in a row, best of `batches`, the client scheduled so. */
export interface Timing { connections: number; batches: number; scheduling: Scheduling }

type Spaces = { bare: TestNetns; ours: TestNetns; theirs: TestNetns };

/** Every case, batch by batch in turn across the three namespaces; the no-ruleset one on a port of the case's own. */
function timeCases(ns: Spaces, tg: Record<CaseName, ConnectTarget>, timing: Timing): Pick<DatapathRow, 'bare' | 'ours' | 'upstream'> {
  const out = { bare: {} as PerCase, ours: {} as PerCase, upstream: {} as PerCase };
  CASES.forEach((k, i) => {
    const port = BARE_PORT + i;
    [out.bare[k], out.ours[k], out.upstream[k]] = interleavedUs([
      { ns: ns.bare, target: { host: '127.0.0.1', port, listen: ['0.0.0.0'], listenPort: port } },
      { ns: ns.ours, target: tg[k] },
      { ns: ns.theirs, target: tg[k] },
    ], timing.connections, timing.batches, timing.scheduling);
  });
  return out;
}

export async function measurePair(services: number, distinct: number, timing: Timing): Promise<DatapathRow> {
  const c = datapathCluster(services, distinct);
  const made: TestNetns[] = [];
  const fresh = () => { const ns = benchNetns(); made.push(ns); prepare(ns); return ns; };
  let parts: PipelineParts | undefined;
  try {
    const ns: Spaces = { bare: fresh(), ours: fresh(), theirs: fresh() };
    progress(`  ours: full sync of ${services} Services, ${c.endpoints} endpoints`);
    const programmed = await programOurs(ns.ours, c);
    parts = programmed.parts;
    const upstreamLoadS = await loadUpstream(ns.theirs, upstreamOptions(c));
    progress(`  ours ${programmed.seconds.toFixed(2)} s, upstream nft -f ${upstreamLoadS.toFixed(1)} s; timing ${CASES.length} cases`);
    return {
      services, distinct, endpoints: c.endpoints, oursSyncS: programmed.seconds, upstreamLoadS,
      ...timeCases(ns, targets(c), timing),
    };
  } finally {
    parts?.close();
    for (const ns of made) teardown(ns);
  }
}
