// Lists and deletes conntrack flows through the addon (ctnetlink, kernel-side filters). One call =
// one netlink socket: a delete is a filtered dump per filter group, then all matching entries
// deleted in batches; a list is one dump of the DNATed flows of one family and protocol; stats are
// the per-CPU statistics dump and the global statistics (neither walks the table).
import { loadAddon } from '../addon/addon-loader';
import type { AddonModule } from '../addon/addon-types';
import type { ConntrackDeleteOptions, ConntrackDeleteResult, ConntrackFilter, ConntrackListQuery, ConntrackStats, DnatFlowList } from './conntrack-types';

/** The addon's conntrack functions (a test of the wiring may pass its own). */
export type ConntrackAddon = Pick<AddonModule, 'conntrackDelete' | 'conntrackList' | 'conntrackStats'>;

export interface ConntrackClientOptions {
  /** A network namespace path such as /run/netns/X; default: the process's own. */
  netns?: string | null;
  /** For tests of the wiring; default: the real addon. */
  addon?: ConntrackAddon;
  /** Dump planning, see ConntrackDeleteOptions. */
  dumpCostEntries?: number;
}

export class ConntrackClient {
  private readonly netns: string | null;
  private readonly addon: ConntrackAddon;
  private readonly options: ConntrackDeleteOptions;

  constructor(opts: ConntrackClientOptions = {}) {
    this.netns = opts.netns ?? null;
    this.addon = opts.addon ?? loadAddon();
    this.options = opts.dumpCostEntries === undefined ? {} : { dumpCostEntries: opts.dumpCostEntries };
  }

  /**
   * Deletes every flow matching any filter. Resolves with counts; entries that vanished between
   * the dump and the delete count as notFound, not as failures. Rejects (Error with errno and
   * code) only when the socket cannot be opened or the kernel refuses a dump.
   */
  async deleteFlows(filters: readonly ConntrackFilter[]): Promise<ConntrackDeleteResult> {
    if (filters.length === 0) return { deleted: 0, notFound: 0, failed: 0, received: 0, matched: 0, dumps: 0, tableEntries: -1 };
    return this.addon.conntrackDelete(this.netns, [...filters], this.options);
  }

  /**
   * The flows of one family and protocol that were DNATed (IPS_DST_NAT), at most `query.max`
   * (`truncated` then says more existed). Rejects (Error with errno and code) when the socket
   * cannot be opened, the kernel refuses the dump or sends an entry that cannot be decoded.
   */
  async listDnatFlows(query: ConntrackListQuery): Promise<DnatFlowList> {
    return this.addon.conntrackList(this.netns, { ...query });
  }

  /**
   * The namespace's conntrack statistics: entries, nf_conntrack_max and the per-CPU counters
   * summed. Cheap whatever the table holds (the kernel reads counters, not entries). Rejects
   * (Error with errno and code) when the socket cannot be opened or the kernel refuses or garbles
   * a reply.
   */
  async readStats(): Promise<ConntrackStats> {
    return this.addon.conntrackStats(this.netns);
  }
}
