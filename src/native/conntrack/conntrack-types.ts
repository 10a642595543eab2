// What the addon's conntrack calls take and return (native/napi/conntrack_{delete,list}.cc):
// plain data, shared by ConntrackClient and src/conntrack's pure logic.

export type ConntrackProtocol = 'udp' | 'tcp' | 'sctp';

/**
 * What the native conntrack delete is asked for: flows of one family and protocol whose original
 * destination and/or reply source match. Every field given must match (AND); at least one of the
 * four address/port fields is required, so a filter never means "every UDP flow".
 */
export interface ConntrackFilter {
  family: 4 | 6;
  protocol: ConntrackProtocol;
  /** Original-direction destination: the Service IP the client sent to. */
  origDst?: string;
  /** Original-direction destination port: the Service port, or the NodePort. */
  origDstPort?: number;
  /** Reply-direction source: the endpoint the flow was DNATed to. */
  replySrc?: string;
  replySrcPort?: number;
  /**
   * true: only flows that were DNATed; false: only flows that were not (sent where no rule
   * translated them, e.g. before the Service's rules existed); absent: both.
   */
  dnat?: boolean;
}

export interface ConntrackDeleteResult {
  /** DELETEs the kernel acknowledged. */
  deleted: number;
  /** `deleted` by the entry's protocol (the addon always sets it; scripted deleters in tests may not). */
  deletedByProtocol?: Record<ConntrackProtocol, number>;
  /** DELETEs answered ENOENT: the entry expired or was replaced between the dump and the delete. */
  notFound: number;
  /** DELETEs answered with another error (firstFailErrno says which). */
  failed: number;
  /** Entries the kernel's filtered dumps returned (duplicates across filters included). */
  received: number;
  /** Distinct entries of those that match a filter, i.e. DELETEs sent. */
  matched: number;
  /** Filtered dumps sent (filters sharing Service IP:port share one; see ConntrackDeleteOptions). */
  dumps: number;
  /** The namespace's conntrack entry count if it was asked for (to plan the dumps), else -1. */
  tableEntries: number;
  firstFailErrno?: number;
  /** Indices (into the filters given) whose matched entries got a failed DELETE; present when failed > 0. */
  failedFilters?: number[];
}

/** What conntrackList dumps: one family and protocol; at most `max` (1..1048576) flows. */
export interface ConntrackListQuery {
  family: 4 | 6;
  protocol: 'udp' | 'sctp';
  max: number;
}

/** A flow with IPS_DST_NAT: the client sent to origDst:origDstPort, the DNAT sent it to replySrc:replySrcPort. */
export interface DnatFlow {
  origSrc: string;
  origSrcPort: number;
  origDst: string;
  origDstPort: number;
  replySrc: string;
  replySrcPort: number;
}

export interface DnatFlowList {
  flows: DnatFlow[];
  /** More DNATed flows existed than `max`; the dump was stopped there. */
  truncated: boolean;
  /** Entries the kernel returned (after its own family/protocol/status filter). */
  received: number;
}

export interface ConntrackDeleteOptions {
  /**
   * How many returned entries one extra kernel table walk is worth (default 3000: a walk of a
   * 262144-bucket table took ~18 ms, one returned entry ~5 us). When several dumps would be
   * needed for one family+protocol and the namespace's table holds fewer entries than
   * (dumps - 1) x this, one dump filtered on family+protocol replaces them. 0 = never.
   */
  dumpCostEntries?: number;
}

/** The kernel's per-CPU conntrack counters (ctattr_stats_cpu), named as `conntrack -S` prints them. */
export type ConntrackCounterName =
  | 'found' | 'invalid' | 'insert' | 'insert_failed' | 'drop' | 'early_drop' | 'error'
  | 'search_restart' | 'clash_resolve' | 'chain_toolong';

/** What conntrackStats reads: the table's size and the per-CPU counters summed over the CPUs. */
export interface ConntrackStats {
  /** Entries in the namespace's table now (CTA_STATS_GLOBAL_ENTRIES). */
  entries: number;
  /** The table's limit, nf_conntrack_max (CTA_STATS_GLOBAL_MAX_ENTRIES). */
  maxEntries: number;
  /** Per-CPU messages the kernel sent (one per possible CPU). */
  cpus: number;
  /** Each counter summed over the CPUs; a counter this kernel does not send is absent. */
  counters: Partial<Record<ConntrackCounterName, number>>;
}
