// `npm run bench -- connect`: what our nat chains cost each new connection. For each D, 1,000
// Services whose endpoint counts take D distinct values (D endpoint maps, D rules in select-endpoint)
// go through the real pipeline (model -> SyncLoop -> NftablesProxier -> addon) into a fresh netns,
// then sequential TCP connections from the namespace itself are timed:
//   - to a loopback port that is no Service (dispatch only: every lookup misses), and
//   - to the Service with the most endpoints (its select rule comes last: D - 1 misses first), whose
//     endpoints are 127.0.0.1..127.0.0.D (DNAT in the output hook), where servers answer;
// each against the same connection in the same namespace before any ruleset.
import { benchEnv, envLine } from '../lib/env';
import { syntheticCluster } from '../lib/cluster';
import { benchNetns, teardown } from '../lib/netns';
import { timestamp, writeResult } from '../lib/results';
import { ModelDriver } from '../pipeline/model-driver';
import { makeParts } from '../pipeline/parts';
import { markdownTable, progress, type Cell } from '../report/table';
import { perConnectionUs, signedUs as signed, type ConnectTarget as Target } from '../lib/connect-timing';

const SERVICES = 1000;
/** Each measurement gets its own server port, so no connection's tuple can clash with an earlier one's. */
const PORTS = { bare: 18080, bareHit: 18090, miss: 18081 };
/** The synthetic cluster's endpoint port (bench/lib/cluster.ts). */
const ENDPOINT_PORT = 8080;

interface Row { distinct: number; bareUs: number; missUs: number; bareHitUs: number; hitUs: number }

async function measure(distinct: number, connections: number): Promise<Row> {
  // Service 0 has the most endpoints (D); the others spread over 1..D, so D distinct counts.
  const services = syntheticCluster({
    services: SERVICES, endpointsPerService: distinct, nodePortShare: 0.1, endpointCount: (i) => (i === 0 ? distinct : 1 + (i % distinct)),
  });
  const loopbacks = Array.from({ length: distinct }, (_, j) => `127.0.0.${j + 1}`);
  services[0] = { ...services[0], endpoints: loopbacks.map((ip) => ({ ip, port: ENDPOINT_PORT })) };
  const driver = new ModelDriver();
  for (const s of services) driver.upsert(s);
  const ns = benchNetns();
  try {
    ns.exec('ip', ['route', 'add', '10.96.0.0/12', 'dev', 'lo']);
    const local = (port: number, listen = ['127.0.0.1']): Target => ({ host: '127.0.0.1', port, listen, listenPort: port });
    const bareUs = perConnectionUs(ns, connections, local(PORTS.bare));
    const bareHitUs = perConnectionUs(ns, connections, local(PORTS.bareHit, loopbacks));
    // The client is not a local pod: Service connections are also marked and masqueraded, as
    // upstream does for such clients (without it, DNAT to 127.0.0.x from this route stalls).
    const parts = await makeParts(ns.path, SERVICES, driver.state);
    try {
      if (!(await parts.sync(true))) throw new Error(`the full sync failed: ${parts.errors.join('; ')}`);
      const missUs = perConnectionUs(ns, connections, local(PORTS.miss));
      const hitUs = perConnectionUs(ns, connections, { host: services[0].clusterIP, port: services[0].port, listen: loopbacks, listenPort: ENDPOINT_PORT });
      return { distinct, bareUs, missUs, bareHitUs, hitUs };
    } finally {
      parts.close();
    }
  } finally {
    teardown(ns);
  }
}

export async function runConnectCost(opts: { quick: boolean; distinct?: number[]; connections?: number }): Promise<void> {
  const distinct = opts.distinct ?? (opts.quick ? [1, 10] : [1, 10, 50]);
  const connections = opts.connections ?? (opts.quick ? 500 : 3000);
  if (distinct.some((d) => d > 254)) throw new RangeError('--distinct: at most 254 (the endpoints are 127.0.0.1..127.0.0.D)');
  const env = envLine(benchEnv());
  const rows: Row[] = [];
  for (const d of distinct) {
    progress(`connect cost: ${SERVICES} Services, ${d} distinct endpoint counts, ${connections} connections x 5 per figure`);
    rows.push(await measure(d, connections));
  }
  const table = markdownTable(
    ['distinct endpoint counts (D)', 'no ruleset µs/conn', 'not a Service: extra µs', 'to the Service whose select rule is last: extra µs'],
    rows.map((r): Cell[] => [r.distinct, r.bareUs.toFixed(1), signed(r.missUs - r.bareUs), signed(r.hitUs - r.bareHitUs)]),
  );
  const body = `# Per-connection cost of the nat chains (${SERVICES} Services, best of 5 x ${connections} connections)\n\n${env}\n\n${table}\n`;
  process.stdout.write(body);
  writeResult('connect-cost-', timestamp(), 'md', body);
}
