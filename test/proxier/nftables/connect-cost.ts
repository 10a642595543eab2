// Not a test: what the shard count costs each new connection. Programs N Services with K shards
// in a fresh netns, then times sequential TCP connections to a loopback port that is no Service
// (every shard's nat chains look it up and miss), against the same with no ruleset.
//   node dist/test/proxier/nftables/connect-cost.js [shards=1,16,64,256] [connections=3000]
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
  const shardCounts = (process.argv[2] ?? '1,16,64,256').split(',').map(Number);
  const n = Number(process.argv[3] ?? 3000);
  const entries = Array.from({ length: 1000 }, (_, i) => [
    sp(`svc${i}`, { key: `ns1/svc${i}:p80/TCP`, clusterIP: `172.30.${i >> 8}.${i & 255}`, nodePort: i % 10 === 0 ? 30000 + i : 0 }),
    [ep(`10.180.${i >> 8}.${i & 255}`)],
  ] as Parameters<typeof snapshot>[0][number]);
  for (const k of shardCounts) {
    await withNetns(async (ns) => {
      const bare = perConnectionUs(ns, n);
      const { proxier, nft } = proxierIn(ns, { families: ['ip'], serviceShards: k });
      try {
        const r = await proxier.sync(snapshot(entries), changed(), true);
        if (!r.ok) throw r.error;
        const withRules = perConnectionUs(ns, n);
        console.log(`K=${k}\tno ruleset ${bare.toFixed(1)} us/conn\twith ruleset ${withRules.toFixed(1)} us/conn\tdelta ${(withRules - bare).toFixed(1)} us`);
      } finally { nft.close(); }
    }, 'kpn-conn');
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
