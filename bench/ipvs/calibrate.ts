// A fixed pure-JS workload run on the host and in the guest: the ratio is the guest's slowdown,
// stated beside the guest's figures. The 10k-Service cluster built as a snapshot, and its virtual
// services and real servers serialized as IPVS ops (what a cold full sync's TypeScript side does most).
import type { IpvsOp } from '../../src/native/ipvs/ipvs-types';
import { serializeIpvsOps } from '../../src/native';
import { benchCluster } from './snapshot';

function workload(): void {
  const c = benchCluster(10_000);
  const ops: IpvsOp[] = [];
  for (const s of c.synth) {
    const service = { family: 4 as const, protocol: 'TCP' as const, address: s.clusterIP, port: s.port };
    ops.push({ op: 'addService', service: { ...service, scheduler: 'rr', flags: 0, timeout: 0, prefixLength: 32 } });
    for (const e of s.endpoints) ops.push({ op: 'addDest', service, dest: { family: 4, address: e.ip, port: e.port, weight: 1, forward: 'masq' } });
  }
  serializeIpvsOps(ops);
}

/** Best of three runs, in ms. */
export function calibrationMs(): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    workload();
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}
