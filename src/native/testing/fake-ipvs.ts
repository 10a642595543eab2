// FakeIpvs: an in-memory IPVS for one network namespace with the kernel's rules (ip_vs_ctl.c,
// ip_vs_genl_set_cmd and the functions it calls), so the IPVS proxier's planning, refusal and
// graceful-termination logic is tested without root. Operations are applied one by one, each
// succeeding or failing on its own, as generic netlink IPVS does (no transactions).
import { errnoError, errnoOf } from './fake-errno';
import { FakeFaults, type FakeOpFault } from './fake-faults';
import { describeIpvsOp, destId, serviceId } from '../ipvs/ipvs-describe';
import {
  IPVS_SVC_F_HASHED, type IpvsApplyResult, type IpvsDestination, type IpvsDestinationState, type IpvsDestKey, type IpvsHandle,
  type IpvsOp, type IpvsService, type IpvsServiceKey, type IpvsServiceState, type IpvsTimeouts,
} from '../ipvs/ipvs-types';

/** Schedulers a stock kernel's ip_vs_<name> modules provide; any other name is ENOENT (no module). */
export const FAKE_IPVS_SCHEDULERS: readonly string[] = ['rr', 'wrr', 'lc', 'wlc', 'lblc', 'lblcr', 'dh', 'sh', 'sed', 'nq', 'fo', 'ovf', 'mh', 'twos'];

/** Refuse an operation of a later apply(): `at` is its index in that batch, or a pattern its description matches. */
export type FakeIpvsFault = FakeOpFault;

export interface FakeIpvsCalls { apply: number; ops: number; dump: number; dumpDestinations: number; getTimeouts: number; setTimeouts: number }

interface Svc { service: IpvsService; dests: Map<string, IpvsDestinationState> }


/** How an operation is named in errors (and matched by a fault's pattern). */
export class FakeIpvs implements IpvsHandle {
  private readonly services = new Map<string, Svc>();
  private readonly faults = new FakeFaults<IpvsOp>(describeIpvsOp);
  private timeouts: IpvsTimeouts = { tcp: 900, tcpFin: 120, udp: 300 };
  private closed = false;
  readonly calls: FakeIpvsCalls = { apply: 0, ops: 0, dump: 0, dumpDestinations: 0, getTimeouts: 0, setTimeouts: 0 };
  /** Every batch given to apply(), in order (rejected ones too). */
  readonly batches: IpvsOp[][] = [];

  inject(fault: FakeIpvsFault): this {
    this.faults.inject(fault);
    return this;
  }

  /** The next apply() sends nothing and rejects with this errno (a socket error). */
  rejectNextApply(errno: number | string): this {
    this.faults.rejectNextBatch(errno);
    return this;
  }

  /** Sets a destination's connection counts, as traffic would (graceful termination reads them). */
  setConnections(service: IpvsServiceKey, dest: IpvsDestKey, counts: { active?: number; inactive?: number; persist?: number }): void {
    const d = this.services.get(serviceId(service))?.dests.get(destId(dest));
    if (!d) throw new RangeError(`no destination ${destId(dest)} in ${serviceId(service)}`);
    d.activeConns = counts.active ?? d.activeConns;
    d.inactiveConns = counts.inactive ?? d.inactiveConns;
    d.persistConns = counts.persist ?? d.persistConns;
  }

  async apply(ops: readonly IpvsOp[]): Promise<IpvsApplyResult> {
    this.checkOpen();
    this.calls.apply++;
    this.batches.push([...ops]);
    this.faults.throwIfRejected('IPVS apply');
    this.calls.ops += ops.length;
    return this.faults.applyEach(ops, (op) => this.applyOne(op));
  }

  async dump(): Promise<IpvsServiceState[]> {
    this.checkOpen();
    this.calls.dump++;
    return [...this.services.values()].map((s) => ({
      ...s.service, flags: s.service.flags | IPVS_SVC_F_HASHED, destinations: [...s.dests.values()].map((d) => ({ ...d })),
    }));
  }

  async dumpDestinations(service: IpvsServiceKey): Promise<IpvsDestinationState[]> {
    this.checkOpen();
    this.calls.dumpDestinations++;
    const s = this.services.get(serviceId(service));
    // ip_vs_genl_dump_dests: a service that is not there ends the dump with an error.
    if (!s) throw errnoError('ENOENT', `dump destinations of ${serviceId(service)}`);
    return [...s.dests.values()].map((d) => ({ ...d }));
  }

  async getTimeouts(): Promise<IpvsTimeouts> {
    this.checkOpen();
    this.calls.getTimeouts++;
    return { ...this.timeouts };
  }

  async setTimeouts(t: IpvsTimeouts): Promise<void> {
    this.checkOpen();
    this.calls.setTimeouts++;
    // A 0 leaves that timeout as it is (ip_vs_set_timeout).
    this.timeouts = { tcp: t.tcp || this.timeouts.tcp, tcpFin: t.tcpFin || this.timeouts.tcpFin, udp: t.udp || this.timeouts.udp };
  }

  close(): void {
    this.closed = true;
  }

  /** Number of virtual services held (tests). */
  get size(): number {
    return this.services.size;
  }

  private checkOpen(): void {
    if (this.closed) throw errnoError('EBADF', 'IPVS handle is closed');
  }

  /** One operation with the kernel's checks, in ip_vs_genl_set_cmd's order; 0 or an errno. */
  private applyOne(op: IpvsOp): number {
    const id = serviceId(op.service);
    const svc = this.services.get(id);
    if (op.op === 'addService') {
      if (svc) return errnoOf('EEXIST');
      const bad = badService(op.service);
      if (bad) return bad;
      this.services.set(id, { service: plainService(op.service), dests: new Map() });
      return 0;
    }
    // "Unless we're adding a new service, the service must already exist."
    if (!svc) return errnoOf('ESRCH');
    switch (op.op) {
      case 'editService': {
        const bad = badService(op.service);
        if (bad) return bad;
        svc.service = plainService(op.service);
        return 0;
      }
      case 'deleteService':
        this.services.delete(id);
        return 0;
      case 'addDest': case 'editDest': {
        const bad = badDest(op.dest, svc.service);
        if (bad) return bad;
        const existing = svc.dests.get(destId(op.dest));
        if (op.op === 'addDest' && existing) return errnoOf('EEXIST');
        if (op.op === 'editDest' && !existing) return errnoOf('ENOENT');
        svc.dests.set(destId(op.dest), { ...plainDest(op.dest), activeConns: existing?.activeConns ?? 0,
          inactiveConns: existing?.inactiveConns ?? 0, persistConns: existing?.persistConns ?? 0 });
        return 0;
      }
      case 'deleteDest':
        return svc.dests.delete(destId(op.dest)) ? 0 : errnoOf('ENOENT');
    }
  }
}

function badService(s: IpvsService): number {
  // ip_vs_add_service/ip_vs_edit_service: an unknown scheduler has no module (ENOENT); a v6 netmask outside 1..128 is EINVAL.
  if (!FAKE_IPVS_SCHEDULERS.includes(s.scheduler)) return errnoOf('ENOENT');
  if (s.family === 6 && (s.prefixLength < 1 || s.prefixLength > 128)) return errnoOf('EINVAL');
  if (s.family !== (s.address.includes(':') ? 6 : 4)) return errnoOf('EINVAL');
  return 0;
}

function badDest(d: IpvsDestination, svc: IpvsService): number {
  // ip_vs_add_dest/ip_vs_edit_dest: a negative weight is ERANGE; a mixed family only with tunnelling.
  if (d.weight < 0) return errnoOf('ERANGE');
  if (d.family !== svc.family && d.forward !== 'tunnel') return errnoOf('EINVAL');
  return 0;
}

const plainService = (s: IpvsService): IpvsService => ({
  family: s.family, protocol: s.protocol, address: s.address, port: s.port, scheduler: s.scheduler,
  flags: s.flags & ~IPVS_SVC_F_HASHED, timeout: s.timeout, prefixLength: s.prefixLength,
});
const plainDest = (d: IpvsDestination): IpvsDestination => ({ address: d.address, port: d.port, family: d.family, weight: d.weight, forward: d.forward });
