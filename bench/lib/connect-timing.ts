// Per-connection cost of TCP connect + close, timed from inside a namespace by a node client: the
// connect bench's method (the datapath bench has a client of its own, bench/datapath/connect-loop.c).
import type { TestNetns } from './netns';

/**
 * node -e: listen on every address:listenPort, connect n times in a row to host:port, print µs per
 * connection and how many connections failed.
 */
const CLIENT = `const net=require('net');const [n,host,port,addrs,listen]=[+process.argv[1],process.argv[2],+process.argv[3],process.argv[4].split(','),+process.argv[5]];
let up=0;for(const a of addrs)net.createServer((s)=>s.destroy()).listen(listen,a,async()=>{if(++up<addrs.length)return;
let failed=0;const t=process.hrtime.bigint();for(let i=0;i<n;i++){await new Promise((r)=>{const c=net.connect(port,host,()=>{c.destroy();r();});c.on('error',()=>{failed++;r();});});}
console.log(Number(process.hrtime.bigint()-t)/1e3/n,failed);process.exit(0);});`;

/** Where to connect, and where the servers that answer listen (after any DNAT). */
export interface ConnectTarget { host: string; port: number; listen: string[]; listenPort: number }

export const BATCHES = 5;

/** One batch: µs per connection over n sequential connections. A failed connection fails the bench (a refused one would look fast). */
function batchUs(ns: TestNetns, n: number, t: ConnectTarget): number {
  const args = ['-e', CLIENT, String(n), t.host, String(t.port), t.listen.join(','), String(t.listenPort)];
  const out = ns.exec(process.execPath, args);
  const [us, failed] = out.trim().split(' ').map(Number);
  if (failed > 0) throw new Error(`${failed} of ${n} connections to ${t.host}:${t.port} failed`);
  return us;
}

/** The best of `batches` batches of n sequential connections: scheduling noise only ever adds time. */
export function perConnectionUs(ns: TestNetns, n: number, t: ConnectTarget, batches = BATCHES): number {
  return Math.min(...Array.from({ length: batches }, () => batchUs(ns, n, t)));
}

export const signedUs = (us: number): string => `${us >= 0 ? '+' : ''}${us.toFixed(1)}`;
