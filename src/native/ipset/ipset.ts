// ipset sets destroyed by name over netlink (NFNL_SUBSYS_IPSET), one request and ack each, with
// the kernel's answer per set; the caller decides what each answer means.
import { loadAddon } from '../addon/addon-loader';
import type { AddonModule, RawIpsetOutcome } from '../addon/addon-types';

export type IpsetOutcome = RawIpsetOutcome;

/** The kernel's ipset error for a set a rule (iptables `-m set`, another set) still refers to. */
export const IPSET_ERR_BUSY = 4100;

export interface IpsetDestroyOptions {
  /** A network namespace path such as /run/netns/X; default: the process's own. */
  netns?: string;
  /** For tests of the wiring; default: the real addon. */
  addon?: Pick<AddonModule, 'ipsetDestroy'>;
}

export function destroyIpsets(names: readonly string[], opts: IpsetDestroyOptions = {}): Promise<IpsetOutcome[]> {
  if (names.length === 0) return Promise.resolve([]);
  return (opts.addon ?? loadAddon()).ipsetDestroy(opts.netns ?? null, [...names]);
}
