// The real IpvsHandle: one generic netlink socket speaking the IPVS family, optionally inside a
// network namespace. The addon runs one operation per socket at a time, so calls queue here.
import * as os from 'node:os';
import { CallQueue } from '../addon/call-queue';
import { retryInterrupted } from '../addon/dump-retry';
import { loadAddon } from '../addon/addon-loader';
import type { IpvsSocketHandle, RawIpvsDest, RawIpvsService } from '../addon/addon-types';
import { errnoName } from '../addon/errno-names';
import { describeIpvsOp, hostPort } from './ipvs-describe';
import { IPVS_FORWARD_CODE, IPVS_PROTOCOL_CODE, serializeIpvsOps, serializeIpvsServiceKey } from './ipvs-serialize';
import type {
  IpvsApplyResult, IpvsDestinationState, IpvsForward, IpvsHandle, IpvsOp, IpvsProtocol, IpvsServiceKey, IpvsServiceState,
  IpvsTimeouts,
} from './ipvs-types';

const PROTOCOL_BY_CODE = new Map(Object.entries(IPVS_PROTOCOL_CODE).map(([k, v]) => [v, k as IpvsProtocol]));
const FORWARD_BY_CODE = new Map(Object.entries(IPVS_FORWARD_CODE).map(([k, v]) => [v, k as IpvsForward]));
const ESRCH = os.constants.errno.ESRCH;
const ENOENT = os.constants.errno.ENOENT;

function toDest(d: RawIpvsDest): IpvsDestinationState {
  const forward = FORWARD_BY_CODE.get(d.forward);
  if (!forward) throw new RangeError(`the kernel returned an unknown IPVS forwarding method ${d.forward}`);
  return {
    family: d.family as 4 | 6, address: d.address, port: d.port, weight: d.weight, forward,
    activeConns: d.activeConns, inactiveConns: d.inactiveConns, persistConns: d.persistConns,
  };
}

function toService(s: RawIpvsService): IpvsServiceState | undefined {
  const protocol = PROTOCOL_BY_CODE.get(s.protocol);
  if (!protocol) return undefined; // the kernel holds only TCP, UDP and SCTP address services
  return {
    family: s.family as 4 | 6, protocol, address: s.address, port: s.port, scheduler: s.scheduler, flags: s.flags,
    timeout: s.timeout, prefixLength: s.prefixLength, destinations: s.destinations.map(toDest),
  };
}

function errnoError(errno: number, message: string): Error {
  return Object.assign(new Error(message), { errno, code: errnoName(errno) });
}

export class IpvsSocket implements IpvsHandle {
  private readonly calls = new CallQueue('IpvsSocket');

  private constructor(private readonly sock: IpvsSocketHandle) {}

  /**
   * Opens the socket (in `netns`, a namespace file such as /run/netns/X, or the current one) and
   * finds the IPVS family; rejects with errno ENOENT when the kernel has no IPVS.
   */
  static async open(opts?: { netns?: string }): Promise<IpvsSocket> {
    if (opts !== undefined && (typeof opts !== 'object' || opts === null)) throw new TypeError('opts: expected an object');
    const netns = opts?.netns;
    if (netns !== undefined && (typeof netns !== 'string' || netns.length === 0)) throw new TypeError('opts.netns: expected a path string');
    const sock = new (loadAddon().IpvsSocket)(netns ?? null);
    try {
      await sock.resolveFamily();
    } catch (e) {
      sock.close();
      throw e;
    }
    return new IpvsSocket(sock);
  }

  apply(ops: readonly IpvsOp[]): Promise<IpvsApplyResult> {
    let buf: Buffer;
    try {
      buf = serializeIpvsOps(ops);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.calls.run(async () => {
      const raw = await this.sock.apply(buf);
      return {
        applied: raw.applied,
        errors: raw.errors.map((e) => ({
          index: e.index, errno: e.errno, code: e.code,
          message: `${describeIpvsOp(ops[e.index])}: ${e.code}${e.extack ? ` (${e.extack})` : ''}`,
        })),
      };
    });
  }

  dump(): Promise<IpvsServiceState[]> {
    return this.calls.run(async () => (await retryInterrupted(() => this.sock.dump())).map(toService).filter((s): s is IpvsServiceState => !!s));
  }

  dumpDestinations(service: IpvsServiceKey): Promise<IpvsDestinationState[]> {
    let key: Buffer;
    try {
      key = serializeIpvsServiceKey(service);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.calls.run(async () => {
      try {
        return (await retryInterrupted(() => this.sock.dumpDestinations(key))).map(toDest);
      } catch (e) {
        // The kernel answers ESRCH for a missing service; the contract says ENOENT.
        if ((e as { errno?: number }).errno !== ESRCH) throw e;
        throw errnoError(ENOENT, `IPVS service ${service.protocol} ${hostPort(service.address, service.port)} does not exist`);
      }
    });
  }

  getTimeouts(): Promise<IpvsTimeouts> {
    return this.calls.run(() => this.sock.getTimeouts());
  }

  setTimeouts(t: IpvsTimeouts): Promise<void> {
    if (typeof t !== 'object' || t === null) return Promise.reject(new TypeError('timeouts: expected an object'));
    return this.calls.run(() => this.sock.setTimeouts(t.tcp, t.tcpFin, t.udp));
  }

  /** Closes the socket once queued calls have finished. */
  close(): void {
    this.calls.close(() => this.sock.close());
  }
}
