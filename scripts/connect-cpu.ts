// `npm run bench -- connect` measured in CPU time instead of wall time, for a loaded machine (issue
// 16): the same cluster (1,000 Services whose endpoint counts take D distinct values, the Service
// with the most endpoints last in select-endpoint's order), programmed through the pipeline's parts
// into a fresh netns, and the same sequential TCP connections from the namespace itself; but the
// client reports its own CPU time per connection (process.cpuUsage, user + system, and system
// alone). The SYN's nat hooks run in the connecting process's system time, so other processes'
// load inflates these far less than wall time. Best of B batches of C connections.
//   node dist/scripts/connect-cpu.js [D,D,...] [C] [B]
import { syntheticCluster } from '../bench/lib/cluster';
import { benchNetns, teardown, type TestNetns } from '../bench/lib/netns';
import { ModelDriver } from '../bench/pipeline/model-driver';
import { makeParts } from '../bench/pipeline/parts';

const DS = (process.argv[2] ?? '1,50,200,254').split(',').map(Number);
const C = Number(process.argv[3] ?? 2000);
const B = Number(process.argv[4] ?? 7);
const SERVICES = 1000;
const PORTS = { bare: 18080, bareHit: 18090, miss: 18081 };

const CLIENT = `const net=require('net');const [n,host,port,addrs,listen]=[+process.argv[1],process.argv[2],+process.argv[3],process.argv[4].split(','),+process.argv[5]];
let up=0;for(const a of addrs)net.createServer((s)=>s.destroy()).listen(listen,a,async()=>{if(++up<addrs.length)return;
let failed=0;const c0=process.cpuUsage();for(let i=0;i<n;i++){await new Promise((r)=>{const c=net.connect(port,host,()=>{c.destroy();r();});c.on('error',()=>{failed++;r();});});}
const c=process.cpuUsage(c0);console.log((c.user+c.system)/n,c.system/n,failed);process.exit(0);});`;

interface Target { host: string; port: number; listen: string[]; listenPort: number }
interface Cost { cpu: number; sys: number }

function perConnection(ns: TestNetns, t: Target): Cost {
  const args = ['-e', CLIENT, String(C), t.host, String(t.port), t.listen.join(','), String(t.listenPort)];
  let best: Cost = { cpu: Infinity, sys: Infinity };
  for (let b = 0; b < B; b++) {
    const [cpu, sys, failed] = ns.exec(process.execPath, args).trim().split(' ').map(Number);
    if (failed > 0) throw new Error(`${failed} of ${C} connections to ${t.host}:${t.port} failed`);
    best = { cpu: Math.min(best.cpu, cpu), sys: Math.min(best.sys, sys) };
  }
  return best;
}

async function measure(d: number): Promise<string> {
  const services = syntheticCluster({ services: SERVICES, endpointsPerService: d, nodePortShare: 0.1, endpointCount: (i) => (i === 0 ? d : 1 + (i % d)) });
  const loopbacks = Array.from({ length: d }, (_, j) => `127.0.0.${j + 1}`);
  services[0] = { ...services[0], endpoints: loopbacks.map((ip) => ({ ip, port: 8080 })) };
  const driver = new ModelDriver();
  for (const s of services) driver.upsert(s);
  const ns = benchNetns();
  try {
    ns.exec('ip', ['route', 'add', '10.96.0.0/12', 'dev', 'lo']);
    const local = (port: number, listen = ['127.0.0.1']): Target => ({ host: '127.0.0.1', port, listen, listenPort: port });
    const bare = perConnection(ns, local(PORTS.bare));
    const bareHit = perConnection(ns, local(PORTS.bareHit, loopbacks));
    const parts = await makeParts(ns.path, SERVICES, driver.state);
    try {
      if (!(await parts.sync(true))) throw new Error(`the full sync failed: ${parts.errors.join('; ')}`);
      const miss = perConnection(ns, local(PORTS.miss));
      const hit = perConnection(ns, { host: services[0].clusterIP, port: services[0].port, listen: loopbacks, listenPort: 8080 });
      const x = (a: number, b: number) => `${a - b >= 0 ? '+' : ''}${(a - b).toFixed(1)}`;
      return `| ${d} | ${bare.cpu.toFixed(1)} / ${bare.sys.toFixed(1)} | ${x(miss.cpu, bare.cpu)} / ${x(miss.sys, bare.sys)} | ${x(hit.cpu, bareHit.cpu)} / ${x(hit.sys, bareHit.sys)} |`;
    } finally {
      parts.close();
    }
  } finally {
    teardown(ns);
  }
}

async function main(): Promise<void> {
  const load = () => require('node:fs').readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  process.stdout.write(`connect-cpu: ${SERVICES} Services, best of ${B} x ${C} connections, load ${load()}\n\n`);
  process.stdout.write('| D | no ruleset CPU / sys µs/conn | not a Service: extra CPU / sys µs | to the Service with D endpoints (last count): extra CPU / sys µs |\n|---|---|---|---|\n');
  for (const d of DS) process.stdout.write(`${await measure(d)}\n`);
  process.stdout.write(`\nload at end ${load()}\n`);
}

main().catch((e) => { console.error(e); process.exit(1); });
