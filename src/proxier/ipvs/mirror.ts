// What the kernel holds of ours, as we last saw (start-up dump) or made it: virtual services with
// their real servers, and the addresses on kube-ipvs0. Updated per operation from apply results: an
// accepted op changes it as it changed the kernel; a refused one changes it only where the errno
// tells what the kernel holds (EEXIST: it is there; ESRCH/ENOENT/EADDRNOTAVAIL: it is not).
import type { IpvsDestination, IpvsOp, IpvsService } from '../../native/ipvs/ipvs-types';
import type { AddressOp } from '../../native/rtnl/rtnl-types';
import { destKey, vsKey } from './addr';

export interface MirrorVS {
  service: IpvsService;
  dests: Map<string, IpvsDestination>;
  /** The kernel has this service but we do not know its attributes (an add found it there): the next plan edits it. */
  staleAttrs?: boolean;
  /** Its real servers are unknown: the next sync that touches it reads them (dumpDestinations) before planning. */
  staleDests?: boolean;
}

/** A weight no plan gives: a real server the kernel holds with a weight we do not know. */
export const UNKNOWN_WEIGHT = -1;

export class Mirror {
  readonly services = new Map<string, MirrorVS>();
  /** Addresses bound to kube-ipvs0, canonical text. */
  readonly addresses = new Set<string>();

  accepted(op: IpvsOp): void {
    const key = vsKey(op.service);
    const vs = this.services.get(key);
    switch (op.op) {
      case 'addService': case 'editService':
        if (vs) { vs.service = { ...op.service }; vs.staleAttrs = false; } else this.services.set(key, { service: { ...op.service }, dests: new Map() });
        return;
      case 'deleteService':
        this.services.delete(key);
        return;
      case 'addDest': case 'editDest':
        vs?.dests.set(destKey(op.dest), { ...op.dest });
        return;
      case 'deleteDest':
        vs?.dests.delete(destKey(op.dest));
    }
  }

  /** A refused op: what its errno says about the kernel. */
  refused(op: IpvsOp, code: string): void {
    const key = vsKey(op.service);
    const vs = this.services.get(key);
    if (code === 'ESRCH') { this.services.delete(key); return; }
    if (op.op === 'addService' && code === 'EEXIST' && !vs) {
      this.services.set(key, { service: { ...op.service }, dests: new Map(), staleAttrs: true, staleDests: true });
      return;
    }
    if (!vs || !('dest' in op)) return;
    if (op.op === 'addDest' && code === 'EEXIST' && !vs.dests.has(destKey(op.dest))) {
      vs.dests.set(destKey(op.dest), { ...op.dest, weight: UNKNOWN_WEIGHT });
    } else if ((op.op === 'editDest' || op.op === 'deleteDest') && code === 'ENOENT') {
      vs.dests.delete(destKey(op.dest));
    }
  }

  addressAccepted(op: AddressOp): void {
    if (op.op === 'add') this.addresses.add(op.address.address);
    else this.addresses.delete(op.address.address);
  }

  addressRefused(op: AddressOp, code: string): void {
    if (op.op === 'add' && code === 'EEXIST') this.addresses.add(op.address.address);
    if (op.op === 'delete' && code === 'EADDRNOTAVAIL') this.addresses.delete(op.address.address);
  }
}
