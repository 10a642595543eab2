// The rtnetlink side an IPVS mode needs, as TypeScript sees it: the dummy link that holds the
// virtual IPs (upstream's `kube-ipvs0`, created down) and its addresses. `RtnlSocket` (rtnl.ts) is
// the real handle, `FakeRtnl` (../testing/fake-rtnl.ts) the in-memory one.
import type { IpvsFamily } from '../ipvs/ipvs-types';

/** The dummy link the IPVS mode binds its virtual IPs to (upstream's name: an upstream node's is adopted). */
export const DUMMY_LINK = 'kube-ipvs0';

export interface LinkInfo {
  index: number;
  name: string;
  /** IFLA_INFO_KIND ('dummy', 'veth', ...); '' when the kernel reports none. */
  kind: string;
  up: boolean;
}

export interface LinkAddress {
  linkIndex: number;
  family: IpvsFamily;
  /** Canonical text form. */
  address: string;
  prefixLength: number;
}

export type AddressOp =
  | { op: 'add'; address: LinkAddress }
  | { op: 'delete'; address: LinkAddress };

export interface AddressOpError {
  index: number;
  errno: number;
  code: string;
  /** Names the operation, e.g. `add 10.96.0.10/32 on link 7: EEXIST`. */
  message: string;
}

export interface RtnlHandle {
  /** The link named so, or undefined when there is none. */
  link(name: string): Promise<LinkInfo | undefined>;
  /**
   * Creates a dummy link of this name, left down (as upstream's kube-ipvs0), unless one exists; an
   * existing link of another kind is an error (code EEXIST, naming its kind).
   */
  ensureDummyLink(name: string): Promise<LinkInfo & { created: boolean }>;
  /** Deletes the link; false when there was none. */
  deleteLink(name: string): Promise<boolean>;
  /**
   * Adds and deletes addresses in order, batched (IPv6 ones with IFA_F_NODAD). Resolves with the
   * refused operations; rejects only when nothing could be sent.
   */
  applyAddresses(ops: readonly AddressOp[]): Promise<{ applied: number; errors: AddressOpError[] }>;
  /** The addresses on one link, or on every link when none is given (the node's own IPs), both families. */
  addresses(linkIndex?: number): Promise<LinkAddress[]>;
  close(): void;
}
