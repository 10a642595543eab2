// FakeRtnl: an in-memory rtnetlink for one network namespace (links and their addresses) with the
// kernel's answers: adding an address a link holds is EEXIST, deleting one it does not hold
// EADDRNOTAVAIL, any address op on a missing link ENODEV. It starts as a new namespace does: `lo`
// (index 1) with 127.0.0.1/8 and ::1/128. Tests add the node's own links with addLink/addAddress.
import { errnoError, errnoOf } from './fake-errno';
import { FakeFaults, type FakeOpFault } from './fake-faults';
import type { IpvsFamily } from '../ipvs/ipvs-types';
import { describeAddressOp } from '../rtnl/rtnl-encode';
import type { AddressOp, AddressOpError, LinkAddress, LinkInfo, RtnlHandle } from '../rtnl/rtnl-types';

export type FakeRtnlFault = FakeOpFault;

export interface FakeRtnlCalls { link: number; ensureDummyLink: number; deleteLink: number; applyAddresses: number; addressOps: number; addresses: number }

const familyOf = (address: string): IpvsFamily => (address.includes(':') ? 6 : 4);

export class FakeRtnl implements RtnlHandle {
  private readonly links = new Map<string, LinkInfo>();
  private addrs: LinkAddress[] = [];
  private nextIndex = 1;
  private readonly faults = new FakeFaults<AddressOp>(describeAddressOp);
  private closed = false;
  readonly calls: FakeRtnlCalls = { link: 0, ensureDummyLink: 0, deleteLink: 0, applyAddresses: 0, addressOps: 0, addresses: 0 };
  /** Every batch given to applyAddresses(), in order. */
  readonly batches: AddressOp[][] = [];

  constructor() {
    const lo = this.addLink('lo', '', true);
    this.addAddress(lo.name, '127.0.0.1', 8);
    this.addAddress(lo.name, '::1', 128);
  }

  /** Test setup: a link of this kind (a node's eth0 is `addLink('eth0', 'veth', true)`). */
  addLink(name: string, kind: string, up = false): LinkInfo {
    if (this.links.has(name)) throw new RangeError(`link ${name} exists`);
    const link = { index: this.nextIndex++, name, kind, up };
    this.links.set(name, link);
    return { ...link };
  }

  /** Test setup: an address on a link, as `ip addr add` would put it. */
  addAddress(linkName: string, address: string, prefixLength: number): void {
    const link = this.links.get(linkName);
    if (!link) throw new RangeError(`no link ${linkName}`);
    this.addrs.push({ linkIndex: link.index, family: familyOf(address), address, prefixLength });
  }

  inject(fault: FakeRtnlFault): this {
    this.faults.inject(fault);
    return this;
  }

  rejectNextApply(errno: number | string): this {
    this.faults.rejectNextBatch(errno);
    return this;
  }

  async link(name: string): Promise<LinkInfo | undefined> {
    this.checkOpen();
    this.calls.link++;
    const l = this.links.get(name);
    return l && { ...l };
  }

  async ensureDummyLink(name: string): Promise<LinkInfo & { created: boolean }> {
    this.checkOpen();
    this.calls.ensureDummyLink++;
    const l = this.links.get(name);
    if (l && l.kind !== 'dummy') throw errnoError('EEXIST', `link ${name} exists and is of kind ${JSON.stringify(l.kind)}, not dummy`);
    if (l) return { ...l, created: false };
    return { ...this.addLink(name, 'dummy', false), created: true };
  }

  async deleteLink(name: string): Promise<boolean> {
    this.checkOpen();
    this.calls.deleteLink++;
    const l = this.links.get(name);
    if (!l) return false;
    this.links.delete(name);
    this.addrs = this.addrs.filter((a) => a.linkIndex !== l.index);
    return true;
  }

  async applyAddresses(ops: readonly AddressOp[]): Promise<{ applied: number; errors: AddressOpError[] }> {
    this.checkOpen();
    this.calls.applyAddresses++;
    this.batches.push([...ops]);
    this.faults.throwIfRejected('rtnetlink address batch');
    this.calls.addressOps += ops.length;
    return this.faults.applyEach(ops, (op) => this.applyOne(op));
  }

  async addresses(linkIndex?: number): Promise<LinkAddress[]> {
    this.checkOpen();
    this.calls.addresses++;
    if (linkIndex !== undefined && ![...this.links.values()].some((l) => l.index === linkIndex)) throw errnoError('ENODEV', `addresses of link ${linkIndex}`);
    return this.addrs.filter((a) => linkIndex === undefined || a.linkIndex === linkIndex).map((a) => ({ ...a }));
  }

  close(): void {
    this.closed = true;
  }

  private checkOpen(): void {
    if (this.closed) throw errnoError('EBADF', 'rtnetlink handle is closed');
  }

  private applyOne(op: AddressOp): number {
    const a = op.address;
    if (![...this.links.values()].some((l) => l.index === a.linkIndex)) return errnoOf('ENODEV');
    const at = this.addrs.findIndex((x) => x.linkIndex === a.linkIndex && x.address === a.address);
    if (op.op === 'add') {
      if (at >= 0) return errnoOf('EEXIST');
      this.addrs.push({ linkIndex: a.linkIndex, family: familyOf(a.address), address: a.address, prefixLength: a.prefixLength });
      return 0;
    }
    if (at < 0) return errnoOf('EADDRNOTAVAIL');
    this.addrs.splice(at, 1);
    return 0;
  }
}
