// The real RtnlHandle: one NETLINK_ROUTE socket (optionally inside a network namespace) for the
// IPVS mode's dummy link and its addresses. The addon carries one request at a time per socket,
// so calls are queued here; the addon encodes, sends and parses, and this side decides (a missing
// link is undefined, an existing dummy is fine, another kind is an error).
import { CallQueue } from '../addon/call-queue';
import { retryInterrupted } from '../addon/dump-retry';
import { constants } from 'node:os';
import { loadAddon } from '../addon/addon-loader';
import type { AddonModule, RawLink, RtnlSocketHandle } from '../addon/addon-types';
import { NetlinkError } from '../addon/netlink-error';
import { checkLinkIndex, checkLinkName, describeAddressOp, encodeAddressOps } from './rtnl-encode';
import type { AddressOp, AddressOpError, LinkAddress, LinkInfo, RtnlHandle } from './rtnl-types';

const { EEXIST, ENODEV, EOPNOTSUPP } = constants.errno;
const IFF_UP = 0x1;

export interface RtnlSocketOptions {
  /** A network namespace file such as /run/netns/X; the process's own namespace when absent. */
  netns?: string | null;
  /** For tests of the wiring; default: the real addon. */
  addon?: Pick<AddonModule, 'RtnlSocket'>;
}

interface AddonError { errno?: number; extack?: string; message?: string }

function errnoOf(e: unknown): number | undefined {
  const n = (e as AddonError | null)?.errno;
  return typeof n === 'number' ? Math.abs(n) : undefined;
}

/** The addon's rejection as a NetlinkError naming what was asked; anything without an errno unchanged. */
function kernelError(e: unknown, what: string): unknown {
  const errno = errnoOf(e);
  return errno === undefined ? e : new NetlinkError(errno, -1, what);
}

function toLink(raw: RawLink): LinkInfo {
  return { index: raw.index, name: raw.name, kind: raw.kind, up: (raw.flags & IFF_UP) !== 0 };
}

export class RtnlSocket implements RtnlHandle {
  private readonly sock: RtnlSocketHandle;
  private readonly calls = new CallQueue('RtnlSocket');

  constructor(opts: RtnlSocketOptions = {}) {
    const netns = opts.netns ?? null;
    if (netns !== null && (typeof netns !== 'string' || netns.length === 0)) throw new TypeError('netns: expected a path string');
    const addon = opts.addon ?? loadAddon();
    this.sock = new addon.RtnlSocket(netns);
  }

  async link(name: string): Promise<LinkInfo | undefined> {
    checkLinkName(name);
    return this.calls.run(() => this.rawLink(name));
  }

  private async rawLink(name: string): Promise<LinkInfo | undefined> {
    try {
      return toLink(await this.sock.link(name));
    } catch (e) {
      if (errnoOf(e) === ENODEV) return undefined;
      throw kernelError(e, `get link ${name}`);
    }
  }

  async ensureDummyLink(name: string): Promise<LinkInfo & { created: boolean }> {
    checkLinkName(name);
    return this.calls.run(async () => {
      let created = true;
      try {
        await this.sock.createDummyLink(name);
      } catch (e) {
        const errno = errnoOf(e);
        if (errno === EOPNOTSUPP) {
          throw new NetlinkError(errno, -1, `create dummy link ${name}: the kernel has no dummy link support (CONFIG_DUMMY, module 'dummy')`);
        }
        if (errno !== EEXIST) throw kernelError(e, `create dummy link ${name}`);
        created = false;
      }
      const link = await this.rawLink(name);
      if (!link) throw new NetlinkError(ENODEV, -1, `link ${name} vanished right after it was ${created ? 'created' : 'found'}`);
      if (link.kind !== 'dummy') {
        throw new NetlinkError(EEXIST, -1, `link ${name} exists and is ${link.kind ? `a '${link.kind}' link` : 'a link of no kind (physical or loopback)'}, not a dummy`);
      }
      return { ...link, created };
    });
  }

  async deleteLink(name: string): Promise<boolean> {
    checkLinkName(name);
    return this.calls.run(async () => {
      try {
        await this.sock.deleteLink(name);
        return true;
      } catch (e) {
        if (errnoOf(e) === ENODEV) return false;
        throw kernelError(e, `delete link ${name}`);
      }
    });
  }

  async applyAddresses(ops: readonly AddressOp[]): Promise<{ applied: number; errors: AddressOpError[] }> {
    const buf = encodeAddressOps(ops);
    if (ops.length === 0) return { applied: 0, errors: [] };
    return this.calls.run(async () => {
      let raw;
      try {
        raw = await this.sock.applyAddresses(buf);
      } catch (e) {
        throw kernelError(e, `apply ${ops.length} address operations (nothing was sent)`);
      }
      const errors = raw.errors.map((r): AddressOpError => ({
        index: r.index, errno: r.errno, code: r.code,
        message: `${ops[r.index] ? describeAddressOp(ops[r.index]) : `op ${r.index}`}: ${r.code}${r.extack ? ` (${r.extack})` : ''}`,
      }));
      return { applied: raw.applied, errors };
    });
  }

  async addresses(linkIndex?: number): Promise<LinkAddress[]> {
    if (linkIndex !== undefined) checkLinkIndex(linkIndex, 'linkIndex');
    return this.calls.run(async () => {
      try {
        const raw = await retryInterrupted(() => this.sock.addresses(linkIndex));
        return raw.map((a) => ({ linkIndex: a.linkIndex, family: a.family, address: a.address, prefixLength: a.prefixLength }));
      } catch (e) {
        throw kernelError(e, 'dump addresses');
      }
    });
  }

  /** Closes the socket once queued calls have finished. */
  close(): void {
    this.calls.close(() => this.sock.close());
  }
}
