// Graceful termination of real servers, as upstream's graceful_termination.go: a TCP real server to
// remove is first given weight 0 (no new connections), and deleted once it has no active and no
// inactive connections, checked on later syncs by reading the destinations of only the services
// that have such servers; past a bound it is deleted anyway. UDP and SCTP ones are deleted at once
// (upstream: their flows are dropped on the next packet, expire_nodest_conn=1).
import type { IpvsDestinationState, IpvsDestKey, IpvsHandle, IpvsOp, IpvsProtocol, IpvsServiceKey } from '../../native/ipvs/ipvs-types';
import { destKey } from './addr';
import type { Mirror } from './mirror';

export interface Draining { dest: IpvsDestKey; since: number }

export const drainsGracefully = (protocol: IpvsProtocol): boolean => protocol === 'TCP';

export class GracefulRemovals {
  private readonly byService = new Map<string, Map<string, Draining>>();

  has(vs: string, dest: string): boolean {
    return this.byService.get(vs)?.has(dest) ?? false;
  }

  add(vs: string, dest: IpvsDestKey, since: number): void {
    let m = this.byService.get(vs);
    if (!m) this.byService.set(vs, m = new Map());
    if (!m.has(destKey(dest))) m.set(destKey(dest), { dest: { address: dest.address, port: dest.port }, since });
  }

  delete(vs: string, dest: string): void {
    const m = this.byService.get(vs);
    if (m?.delete(dest) && m.size === 0) this.byService.delete(vs);
  }

  deleteService(vs: string): void {
    this.byService.delete(vs);
  }

  services(): string[] {
    return [...this.byService.keys()];
  }

  of(vs: string): ReadonlyMap<string, Draining> {
    return this.byService.get(vs) ?? new Map();
  }

  get size(): number {
    let n = 0;
    for (const m of this.byService.values()) n += m.size;
    return n;
  }
}

export interface PollInput {
  ipvs: Pick<IpvsHandle, 'dumpDestinations'>;
  mirror: Mirror;
  draining: GracefulRemovals;
  now: number;
  boundMs: number;
  /** Services this sync deletes, and `vs dest` pairs it revives: the plan decides those, not the poll. */
  skip: ReadonlySet<string>;
  onError(vs: string, err: unknown): void;
}

/** deleteDest ops for draining servers that are done (no connections, or past the bound); forgets ones the kernel lost. */
export async function pollDraining(p: PollInput): Promise<IpvsOp[]> {
  const ops: IpvsOp[] = [];
  for (const vs of p.draining.services()) {
    if (p.skip.has(vs)) continue;
    const m = p.mirror.services.get(vs);
    if (!m) { p.draining.deleteService(vs); continue; }
    let found: IpvsDestinationState[];
    try {
      found = await p.ipvs.dumpDestinations(m.service);
    } catch (e) {
      if ((e as { code?: string }).code === 'ENOENT') { p.mirror.services.delete(vs); p.draining.deleteService(vs); } else p.onError(vs, e);
      continue;
    }
    const byKey = new Map(found.map((d) => [destKey(d), d]));
    for (const [key, d] of p.draining.of(vs)) {
      if (p.skip.has(`${vs} ${key}`)) continue;
      const state = byKey.get(key);
      if (!state) { p.draining.delete(vs, key); m.dests.delete(key); continue; }
      if (state.activeConns + state.inactiveConns === 0 || p.now - d.since >= p.boundMs) {
        ops.push({ op: 'deleteDest', service: serviceKey(m.service), dest: d.dest });
      }
    }
  }
  return ops;
}

export const serviceKey = (s: IpvsServiceKey): IpvsServiceKey => ({ family: s.family, protocol: s.protocol, address: s.address, port: s.port });
