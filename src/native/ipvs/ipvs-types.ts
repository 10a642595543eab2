// The IPVS kernel side as TypeScript sees it: virtual services, real servers, the operations that
// change them and what a dump returns. Plain data: the addon (native/ipvs/) encodes and sends,
// `IpvsSocket` (ipvs.ts) is the real handle, `FakeIpvs` (../testing/fake-ipvs.ts) the in-memory one.
// Generic netlink IPVS has no transactions: a batch's operations are applied one by one, each
// succeeding or failing on its own, and every failure comes back with the index of its operation.

export type IpvsProtocol = 'TCP' | 'UDP' | 'SCTP';
export type IpvsFamily = 4 | 6;

/** What identifies a virtual service (IPVS has fwmark services too; we never make them). */
export interface IpvsServiceKey {
  family: IpvsFamily;
  protocol: IpvsProtocol;
  /** Canonical text form of the virtual IP (as `net` formats it: lower case, shortest IPv6). */
  address: string;
  port: number;
}

/** IP_VS_SVC_F_PERSISTENT: session affinity (kube-proxy's ClientIP). */
export const IPVS_SVC_F_PERSISTENT = 0x0001;
/** IP_VS_SVC_F_HASHED: set by the kernel on every service it holds; ignored when given. */
export const IPVS_SVC_F_HASHED = 0x0002;

export interface IpvsService extends IpvsServiceKey {
  /** Scheduler name ('rr', 'wrr', ...). */
  scheduler: string;
  /** IP_VS_SVC_F_* flags we set (IPVS_SVC_F_PERSISTENT or 0); a dump reports the kernel's, HASHED included. */
  flags: number;
  /** Persistence timeout in seconds; 0 without persistence. */
  timeout: number;
  /** Persistence granularity as a prefix length: 32 for IPv4, 128 for IPv6 (one client address). */
  prefixLength: number;
}

/** A real server's forwarding method; kube-proxy uses masquerading only. */
export type IpvsForward = 'masq' | 'local' | 'tunnel' | 'route' | 'bypass';

export interface IpvsDestKey {
  address: string;
  port: number;
}

export interface IpvsDestination extends IpvsDestKey {
  /** Its own family (IPVS allows a v6 real server behind a v4 service; we never do). */
  family: IpvsFamily;
  weight: number;
  forward: IpvsForward;
}

/** A destination as a dump reports it, with its connection counts. */
export interface IpvsDestinationState extends IpvsDestination {
  activeConns: number;
  inactiveConns: number;
  persistConns: number;
}

export interface IpvsServiceState extends IpvsService {
  destinations: IpvsDestinationState[];
}

export type IpvsOp =
  | { op: 'addService'; service: IpvsService }
  | { op: 'editService'; service: IpvsService }
  | { op: 'deleteService'; service: IpvsServiceKey }
  | { op: 'addDest'; service: IpvsServiceKey; dest: IpvsDestination }
  | { op: 'editDest'; service: IpvsServiceKey; dest: IpvsDestination }
  | { op: 'deleteDest'; service: IpvsServiceKey; dest: IpvsDestKey };

/** One refused operation: its index in the batch and the kernel's errno. */
export interface IpvsOpError {
  index: number;
  errno: number;
  /** 'EEXIST', 'ENOENT', ... ('E<n>' when unknown). */
  code: string;
  /** Names the operation and its object, e.g. `addDest TCP 10.0.0.1:80 -> 10.1.0.5:8080: EEXIST`. */
  message: string;
}

export interface IpvsApplyResult {
  /** Operations the kernel accepted. */
  applied: number;
  errors: IpvsOpError[];
}

/** Idle timeouts in seconds; 0 in a set call leaves that one as it is (as the kernel does). */
export interface IpvsTimeouts {
  tcp: number;
  tcpFin: number;
  udp: number;
}

/** What a proxier needs of IPVS: `IpvsSocket` and `FakeIpvs` both satisfy it. */
export interface IpvsHandle {
  /**
   * Applies the operations in order, as few sends as the socket buffer allows. Resolves with every
   * refused operation (the others are applied: nothing is rolled back); rejects only when nothing
   * could be sent (socket, family lookup), with an Error carrying errno and code.
   */
  apply(ops: readonly IpvsOp[]): Promise<IpvsApplyResult>;
  /** Every virtual service with its destinations and their connection counts (start-up, cleanup, tests). */
  dump(): Promise<IpvsServiceState[]>;
  /** The destinations of one service (graceful termination polls these); rejects with ENOENT if it is gone. */
  dumpDestinations(service: IpvsServiceKey): Promise<IpvsDestinationState[]>;
  getTimeouts(): Promise<IpvsTimeouts>;
  setTimeouts(t: IpvsTimeouts): Promise<void>;
  close(): void;
}
