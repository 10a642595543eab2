// Tamper detection: the kernel announces every committed nftables change on NFNLGRP_NFTABLES.
// The addon reads them on a thread, drops our own commits in the kernel (a BPF filter on the port
// ids of our commit sockets) and changes to tables we do not care about, and reports the rest
// once per commit. What counts as tampering is the caller's decision.
import { loadAddon } from '../addon/addon-loader';
import type { MonitorStats, NftMonitorHandle, RawMonitorChange, RawMonitorEvent } from '../addon/addon-types';
import { Family, FAMILY_CODE } from '../txn/nft-types';

/** nft's family names; a code without one is given as its number in a string. */
const FAMILY_NAME: Record<number, string> = { 1: 'inet', 2: 'ip', 3: 'arp', 5: 'netdev', 7: 'bridge', 10: 'ip6' };

export interface MonitorChange {
  op: 'add' | 'delete' | 'unknown';
  kind: 'table' | 'chain' | 'rule' | 'set' | 'element' | 'obj' | 'flowtable' | 'unknown';
  family: string;          // 'ip' | 'ip6' | 'inet' | 'arp' | 'bridge' | 'netdev' | '<code>'
  table: string;           // '' for an unknown message
  name?: string;           // the chain (chain, rule), set (set, element), object or flowtable
  count: number;           // rules/elements summed per chain/set within the commit
  msgType?: number;        // unknown messages only: the nftables message type
}

/** One commit that changed an interesting table (or sent a message the addon cannot read). */
export interface CommitReport {
  type: 'commit';
  portId: number;          // the committing socket's netlink port id
  genId?: number;          // the ruleset generation the commit made; absent if its NEWGEN was lost
  pid?: number;            // the committing process
  comm?: string;           // its name, e.g. 'nft'
  changes: MonitorChange[];
}
/** The socket buffer overflowed: changes were lost, nothing is known about them. */
export interface MonitorOverflow { type: 'overflow'; overflow: true }
/** A socket error: the monitor has stopped (open a new one). */
export interface MonitorError { type: 'error'; error: { errno: number; code: string; message: string } }
export type MonitorEvent = CommitReport | MonitorOverflow | MonitorError;

export interface MonitorOptions {
  netns?: string;                                   // a namespace file such as /run/netns/X
  interest: { family: Family; table: string }[];    // the tables whose changes are reported
  ownPortIds?: number[];                            // Nft.portId of our commit sockets (at most 64)
  recvBufferBytes?: number;                         // socket receive buffer, default 32 MiB
}

const DEFAULT_RECV_BUFFER = 32 << 20;

function checkOptions(opts: MonitorOptions): void {
  if (typeof opts !== 'object' || opts === null) throw new TypeError('opts: expected an object');
  if (opts.netns !== undefined && (typeof opts.netns !== 'string' || opts.netns.length === 0)) {
    throw new TypeError('opts.netns: expected a path string');
  }
  if (!Array.isArray(opts.interest)) throw new TypeError('opts.interest: expected an array of { family, table }');
  opts.interest.forEach((t, i) => {
    if (typeof t !== 'object' || t === null || FAMILY_CODE[t.family] === undefined) {
      throw new RangeError(`opts.interest[${i}].family: expected 'ip', 'ip6' or 'inet'`);
    }
  });
}

function toChange(c: RawMonitorChange): MonitorChange {
  const out: MonitorChange = { op: c.op, kind: c.kind, family: FAMILY_NAME[c.family] ?? String(c.family), table: c.table, count: c.count };
  if (c.name !== undefined) out.name = c.name;
  if (c.msgType !== undefined) out.msgType = c.msgType;
  return out;
}

function toEvent(e: RawMonitorEvent): MonitorEvent {
  if (e.type === 'overflow') return { type: 'overflow', overflow: true };
  if (e.type === 'error') return { type: 'error', error: { errno: e.errno, code: e.code, message: e.message } };
  const r: CommitReport = { type: 'commit', portId: e.portId, changes: e.changes.map(toChange) };
  if (e.genId !== undefined) r.genId = e.genId;
  if (e.pid !== undefined) r.pid = e.pid;
  if (e.comm !== undefined) r.comm = e.comm;
  return r;
}

export class NftMonitor {
  private handle!: NftMonitorHandle;
  private closed = false;

  private constructor(private readonly onEvent: (e: MonitorEvent) => void) {}

  /**
   * Starts watching. Events arrive on the event loop; none arrives after close() returns. An open
   * monitor does not keep the process alive; close it when done.
   */
  static open(opts: MonitorOptions, onEvent: (e: MonitorEvent) => void): NftMonitor {
    checkOptions(opts);
    if (typeof onEvent !== 'function') throw new TypeError('onEvent: expected a function');
    const m = new NftMonitor(onEvent);
    const { NftMonitor: Native } = loadAddon();
    const interest = opts.interest.map((t) => ({ family: FAMILY_CODE[t.family], table: t.table }));
    m.handle = new Native(opts.netns ?? null, interest, opts.ownPortIds ?? [], opts.recvBufferBytes ?? DEFAULT_RECV_BUFFER,
      (events) => m.deliver(events));
    return m;
  }

  /** The monitor socket's own port id (not one of the commit sockets). */
  get portId(): number {
    return this.handle.portId;
  }

  /** Datagrams and bytes that reached the reader thread (our own commits never do), overflows seen. */
  stats(): MonitorStats {
    return this.handle.stats();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Leaves (false) or rejoins (true) the event group. With nobody listening the kernel builds no
   * notifications, which makes a large commit of ours several times cheaper; what other processes
   * commit meanwhile is not reported (compare Nft.generation() around the gap to know whether any did).
   */
  setSubscribed(on: boolean): void {
    if (this.closed) throw new Error('NftMonitor.setSubscribed: the monitor is closed');
    this.handle.setSubscribed(on);
  }

  /** Replaces the port ids whose commits are ours (dropped in the kernel). */
  setOwnPortIds(ids: number[]): void {
    if (this.closed) throw new Error('NftMonitor: the monitor is closed');
    this.handle.setOwnPortIds(ids);
  }

  /** Stops the reader thread and delivery. Safe to call at any time, more than once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.handle.close();
  }

  private deliver(events: RawMonitorEvent[]): void {
    for (const raw of events) {
      if (this.closed) return;  // closed by an earlier event's handler
      if (raw.type === 'error') this.close();  // the reader has stopped; release it before telling
      this.onEvent(toEvent(raw));
    }
  }
}

/** True if the report's commit came from one of our sockets (by port id). */
export function isOwnReport(report: CommitReport, ownPortIds: Iterable<number>): boolean {
  for (const id of ownPortIds) if (id === report.portId) return true;
  return false;
}
