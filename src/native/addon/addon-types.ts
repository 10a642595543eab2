// The addon's exports as the C++ side defines them (the contract in docs/wire-format.md).
import type { IpvsTimeouts } from '../ipvs/ipvs-types';
import type { ConntrackDeleteOptions, ConntrackDeleteResult, ConntrackFilter, ConntrackListQuery, ConntrackStats, DnatFlowList } from '../conntrack/conntrack-types';

export interface RawChain { name: string; handle: number; hook?: number; priority?: number; type?: string; policy?: number }
export interface RawRule { chain: string; handle: number; exprs: string[]; jumps: string[] }
export interface RawElement {
  key: Buffer; keyEnd?: Buffer; flags: number;
  verdict?: { code: number; chain?: string }; data?: Buffer;
}
export interface RawSet {
  name: string; flags: number; keyType: number; keyLen: number; dataType: number; dataLen: number;
  /** A concatenated interval set's field lengths (NFTA_SET_DESC_CONCAT). */
  concat?: number[];
  elements: RawElement[];
}
export interface RawTableDump { chains: RawChain[]; rules: RawRule[]; sets: RawSet[] }

export interface RawChainRule { chain: string; handle: number; exprs: string[]; jumps: string[]; matches?: boolean }

export interface NftSocketHandle {
  commit(buf: Buffer): Promise<{ messages: number; sends: number; bytes: number }>;
  listTables(): Promise<{ family: number; name: string }[]>;
  /** onlySet: that set alone with its elements, no chains or rules. */
  dumpTable(family: number, name: string, withElements?: boolean, onlySet?: string): Promise<RawTableDump>;
  generation(): Promise<number>;
  /** One GETSETELEM request per key; rejects with ENOENT when the table or set does not exist. */
  getElements(family: number, table: string, set: string, keys: Buffer[]): Promise<{ found: boolean; element?: RawElement }[]>;
  /** A rule dump filtered by chain (ENOENT when the chain does not exist); `expected`: a transaction whose addRule ops for the chain are compared. */
  dumpChain(family: number, table: string, chain: string, expected?: Buffer): Promise<{ rules: RawChainRule[] }>;
  close(): void;
  /** The socket's netlink port id (the nlmsg_pid of the notifications its commits cause). */
  readonly portId: number;
}

export interface RawMonitorChange {
  op: 'add' | 'delete' | 'unknown';
  kind: 'table' | 'chain' | 'rule' | 'set' | 'element' | 'obj' | 'flowtable' | 'unknown';
  family: number; table: string; name?: string; count: number; msgType?: number;
}
export type RawMonitorEvent =
  | { type: 'commit'; portId: number; genId?: number; pid?: number; comm?: string; changes: RawMonitorChange[] }
  | { type: 'overflow' }
  | { type: 'error'; errno: number; code: string; message: string };

/** What reached the monitor's reader thread, past the kernel-side filter of own commits. */
export interface MonitorStats { datagrams: number; bytes: number; overflows: number }

export interface NftMonitorHandle {
  setOwnPortIds(ids: number[]): void;
  setSubscribed(on: boolean): void;
  close(): void;
  stats(): MonitorStats;
  /** The monitor socket's own port id. */
  readonly portId: number;
}

// IPVS (generic netlink): what native/napi/ipvs_*.cc return; src/native/ipvs/ipvs.ts maps them to ipvs-types.
export interface RawIpvsDest {
  family: number; address: string; port: number; weight: number; forward: number;
  activeConns: number; inactiveConns: number; persistConns: number;
}
export interface RawIpvsService {
  family: number; protocol: number; address: string; port: number; scheduler: string; flags: number; timeout: number;
  prefixLength: number; destinations: RawIpvsDest[];
}
export interface RawIpvsApplyResult {
  applied: number; sends: number; bytes: number;
  errors: { index: number; errno: number; code: string; extack?: string }[];
}
export interface IpvsSocketHandle {
  /** Finds the IPVS family's id (ENOENT: the kernel has no IPVS); every other call needs it first. */
  resolveFamily(): Promise<number>;
  /** buf: serializeIpvsOps' buffer (docs/wire-format.md, "The IPVS op buffer"). */
  apply(buf: Buffer): Promise<RawIpvsApplyResult>;
  dump(): Promise<RawIpvsService[]>;
  /** key: serializeIpvsServiceKey's buffer; rejects with the kernel's ESRCH for a missing service. */
  dumpDestinations(key: Buffer): Promise<RawIpvsDest[]>;
  getTimeouts(): Promise<IpvsTimeouts>;
  setTimeouts(tcp: number, tcpFin: number, udp: number): Promise<void>;
  close(): void;
}

export interface AddonModule {
  NftSocket: new (netnsPath?: string | null) => NftSocketHandle;
  NftMonitor: new (netnsPath: string | null, interest: { family: number; table: string }[], ownPortIds: number[],
    recvBufferBytes: number, onEvents: (events: RawMonitorEvent[]) => void) => NftMonitorHandle;
  validateTransaction(buf: Buffer): number;
  /** The monitor's parser and per-commit grouping over given datagrams, without a socket (tests). */
  groupNotifications(datagrams: Buffer[], interest: { family: number; table: string }[], ownPortIds: number[]): RawMonitorEvent[];
  /** The name the addon's errors carry as `code` for this errno ('ENOENT'; 'E<n>' when unknown). */
  errnoName(errno: number): string;
  /** malloc_trim(0): true when memory was returned to the kernel. */
  releaseFreeMemory(): boolean;
  /** A full GC as V8 runs it under critical memory pressure (free space in the heap's pages back to the kernel). */
  memoryPressureGc(): void;
  conntrackDelete(netnsPath: string | null, filters: ConntrackFilter[], options?: ConntrackDeleteOptions): Promise<ConntrackDeleteResult>;
  conntrackList(netnsPath: string | null, query: ConntrackListQuery): Promise<DnatFlowList>;
  /** The namespace's conntrack statistics: the per-CPU dump and the global reply (no table walk). */
  conntrackStats(netnsPath: string | null): Promise<ConntrackStats>;
  /** conntrackStats' decoding over given reply bytes (whole datagrams), synchronously; throws as the read rejects (tests). */
  decodeConntrackStats(cpuReply: Buffer, globalReply: Buffer): ConntrackStats;
  IpvsSocket: new (netnsPath?: string | null) => IpvsSocketHandle;
  /** Decodes an IPVS op buffer as apply() does: the op count, or a TypeError/RangeError naming the op and field. */
  validateIpvsOps(buf: Buffer): number;
}

// --- rtnetlink (RtnlSocket, native/napi/rtnl_socket.cc): the IPVS mode's dummy link and addresses ---
export interface RawLink { index: number; name: string; kind: string; flags: number }
export interface RawLinkAddress { linkIndex: number; family: 4 | 6; address: string; prefixLength: number; scope: number; flags: number }
export interface RawAddressOpError { index: number; errno: number; code: string; extack?: string }
export interface RtnlSocketHandle {
  /** Rejects with errno ENODEV when there is no such link. */
  link(name: string): Promise<RawLink>;
  /** Rejects with the kernel's errno (EEXIST, EOPNOTSUPP without the dummy driver, ...). */
  createDummyLink(name: string): Promise<void>;
  deleteLink(name: string): Promise<void>;
  /** `ops`: 24-byte records (native/rtnl/addr_ops.h; src/native/rtnl/rtnl-encode.ts writes them). */
  applyAddresses(ops: Buffer): Promise<{ applied: number; sends: number; errors: RawAddressOpError[] }>;
  addresses(linkIndex?: number): Promise<RawLinkAddress[]>;
  close(): void;
}
// (merged into the AddonModule above: declaration merging keeps this block in one place)
export interface AddonModule {
  RtnlSocket: new (netnsPath?: string | null) => RtnlSocketHandle;
}

// --- ipset (native/ipset, napi/ipset_destroy.cc): --cleanup destroys upstream's IPVS-mode sets ---
/** errno 0: destroyed; ENOENT: no such set; 4100 (IPSET_ERR_BUSY): a rule still refers to it. */
export interface RawIpsetOutcome { name: string; errno: number; message: string }
export interface AddonModule {
  /** Names: 1..31 bytes each, at most 1024; rejects only when the socket cannot be opened. */
  ipsetDestroy(netnsPath: string | null, names: string[]): Promise<RawIpsetOutcome[]>;
}
