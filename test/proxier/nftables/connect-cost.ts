// Not a test: what our nat chains cost each new connection that is not to a Service. Programs
// 1000 Services whose endpoint counts take D distinct values (D endpoint maps, D select rules)
// in a fresh netns, then times sequential TCP connections to a loopback port that is no Service,
// against the same with no ruleset.
//   node dist/test/proxier/nftables/connect-cost.js [distinct=1,10,50] [connections=3000]
import { performance } from 'node:perf_hooks';
import { withNetns, type TestNetns } from '../../helpers/netns';
import { ep, snapshot, sp } from './fixtures';
import { changed, proxierIn } from './kernel-helpers';

const CLIENT = `const net=require('net');const n=+process.argv[1];const srv=net.createServer((s)=>s.destroy());
srv.listen(18080,'127.0.0.1',async()=>{const t=process.hrtime.bigint();for(let i=0;i<n;i++){await new Promise((r)=>{const c=net.connect(18080,'127.0.0.1',()=>{c.destroy();r();});c.on('error',r);});}
console.log(Number(process.hrtime.bigint()-t)/1e3/n);srv.close();});`;

/** The best of five batches: scheduling noise only ever adds time. */
function perConnectionUs(ns: TestNetns, n: number): number {
  ns.exec('ip', ['link', 'set', 'lo', 'up']);
  return Math.min(...[0, 1, 2, 3, 4].map(() => Number(ns.exec('node', ['-e', CLIENT, String(n)]).trim())));
}

async function main(): Promise<void> {
  const distinct = (process.argv[2] ?? '1,10,50').split(',').map(Number);
  const n = Number(process.argv[3] ?? 3000);
  for (const k of distinct) {
    const entries = Array.from({ length: 1000 }, (_, i) => [
      sp(`svc${i}`, { key: `ns1/svc${i}:p80/TCP`, clusterIP: `172.30.${i >> 8}.${i & 255}`, nodePort: i % 10 === 0 ? 30000 + i : 0 }),
      Array.from({ length: 1 + (i % k) }, (_, j) => ep(`10.${180 + j}.${i >> 8}.${i & 255}`)),
    ] as Parameters<typeof snapshot>[0][number]);
    await withNetns(async (ns) => {
      const bare = perConnectionUs(ns, n);
      const { proxier, nft } = proxierIn(ns, { families: ['ip'] });
      try {
        const r = await proxier.sync(snapshot(entries), changed(), true);
        if (!r.ok) throw r.error;
        const withRules = perConnectionUs(ns, n);
        console.log(`D=${k}\tno ruleset ${bare.toFixed(1)} us/conn\twith ruleset ${withRules.toFixed(1)} us/conn\tdelta ${(withRules - bare).toFixed(1)} us`);
      } finally { nft.close(); }
    }, 'kpn-conn');
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
