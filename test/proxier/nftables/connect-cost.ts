// Not a test: what our nat chains cost each new connection. Programs 1000 Services whose
// endpoint counts take D distinct values (D endpoint maps, D rules in select-endpoint) in a fresh
// netns, then times sequential TCP connections from the namespace itself to
//   - a loopback port that is no Service (dispatch only: every lookup misses), and
//   - a Service whose endpoint count is the largest (its select rule comes last: D - 1 misses
//     first); its endpoints are 127.0.0.1 (DNAT in the output hook), where a server answers;
// each against the same connection with no ruleset at all.
//   node dist/test/proxier/nftables/connect-cost.js [distinct=1,10,50] [connections=3000]
import { withNetns, type TestNetns } from '../../helpers/netns';
import { ep, snapshot, sp } from './fixtures';
import { changed, proxierIn } from './kernel-helpers';

const PORT = 18080;
/** Each measurement gets its own server port, so no connection's tuple can clash with an earlier one's. */
const ENDPOINT_PORT = 18090;
const CLIENT = `const net=require('net');const [n,host,port,listen,servers]=[+process.argv[1],process.argv[2],+process.argv[3],+process.argv[4],+process.argv[5]];
const all=Array.from({length:servers},(_,i)=>net.createServer((s)=>s.destroy()));
for(let i=1;i<servers;i++)all[i].listen(listen+i,'127.0.0.1');const srv=all[0];
srv.listen(listen,'127.0.0.1',async()=>{const t=process.hrtime.bigint();for(let i=0;i<n;i++){await new Promise((r)=>{const c=net.connect(port,host,()=>{c.destroy();r();});c.on('error',r);});}
console.log(Number(process.hrtime.bigint()-t)/1e3/n);process.exit(0);});`;

/** The best of five batches: scheduling noise only ever adds time. */
function perConnectionUs(ns: TestNetns, n: number, host: string, port: number, listen = port, servers = 1): number {
  const args = ['-e', CLIENT, String(n), host, String(port), String(listen), String(servers)];
  return Math.min(...[0, 1, 2, 3, 4].map(() => Number(ns.exec('node', args).trim())));
}

async function main(): Promise<void> {
  const distinct = (process.argv[2] ?? '1,10,50').split(',').map(Number);
  const n = Number(process.argv[3] ?? 3000);
  for (const d of distinct) {
    // svc0 has d endpoints (the largest count), all 127.0.0.1:PORT; the others spread over 1..d.
    const entries = Array.from({ length: 1000 }, (_, i) => [
      sp(`svc${i}`, { key: `ns1/svc${i}:p80/TCP`, clusterIP: `172.30.${i >> 8}.${i & 255}`, nodePort: i % 10 === 0 ? 30000 + i : 0 }),
      i === 0 ? [] : Array.from({ length: 1 + (i % d) }, (_, j) => ep(`10.${180 + j}.${i >> 8}.${i & 255}`)),
    ] as Parameters<typeof snapshot>[0][number]);
    // Endpoints are deduplicated by IP and port: svc0's are 127.0.0.1 on distinct ports, each listening.
    entries[0][1] = Array.from({ length: d }, (_, j) => ep('127.0.0.1', ENDPOINT_PORT + j));
    await withNetns(async (ns) => {
      ns.exec('ip', ['link', 'set', 'lo', 'up']);
      ns.exec('ip', ['route', 'add', '172.30.0.0/16', 'dev', 'lo']);
      const bare = perConnectionUs(ns, n, '127.0.0.1', PORT);
      const bareHit = perConnectionUs(ns, n, '127.0.0.1', ENDPOINT_PORT + 1000, ENDPOINT_PORT + 1000, d);
      // The client is not a local pod: Service connections are also marked and masqueraded, as
      // upstream does for such clients (without it, DNAT to 127.0.0.1 from this route stalls).
      const { proxier, nft } = proxierIn(ns, { families: ['ip'] });
      try {
        const r = await proxier.sync(snapshot(entries), changed(), true);
        if (!r.ok) throw r.error;
        const miss = perConnectionUs(ns, n, '127.0.0.1', PORT + 1);
        const hit = perConnectionUs(ns, n, '172.30.0.0', 80, ENDPOINT_PORT, d);
        console.log(`D=${d}\tno ruleset ${bare.toFixed(1)} us/conn\tnot a Service +${(miss - bare).toFixed(1)} us\t`
          + `to a Service, whose select rule is the last +${(hit - bareHit).toFixed(1)} us`);
      } finally { nft.close(); }
    }, 'kpn-conn');
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
