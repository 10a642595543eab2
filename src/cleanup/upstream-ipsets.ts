// --cleanup's part for upstream's IPVS-mode ipsets, run after its iptables chains are gone (a set
// a rule still matches cannot be destroyed). The kernel drops a deleted iptables-nft rule's hold
// on a set after the commit returns (the transaction's objects are released by a worker), so a
// set that is busy at first is tried again for a short while; one still busy after that is in use
// by a rule of another owner and stays (a warning, not a failure: it is not ours to break). A
// kernel without ipset answers EINVAL to every set: there is nothing to do.
import * as os from 'node:os';
import type { Log } from '../base/log';
import { IPSET_ERR_BUSY, type IpsetOutcome } from '../native';
import { UPSTREAM_IPSETS } from './upstream-names';

export interface UpstreamIpsetResult {
  destroyed: string[];
  /** Still referenced after the retries: kept. */
  inUse: string[];
  failed: { what: string; error: string }[];
}

export type DestroyFn = (names: readonly string[]) => Promise<IpsetOutcome[]>;

const ENOENT = os.constants.errno.ENOENT;
/** nfnetlink's answer to a subsystem it does not have: a kernel without ipset (CONFIG_IP_SET off). */
const EINVAL = os.constants.errno.EINVAL;
const RETRY_MS = 100;
const BUSY_RETRIES = 20;

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function cleanupUpstreamIpsets(destroy: DestroyFn, log: Pick<Log, 'info' | 'warn' | 'error'>, names: readonly string[] = UPSTREAM_IPSETS): Promise<UpstreamIpsetResult> {
  const r: UpstreamIpsetResult = { destroyed: [], inUse: [], failed: [] };
  let todo = [...names];
  for (let attempt = 0; todo.length > 0; attempt++) {
    const busy: string[] = [];
    const outcomes = await destroy(todo);
    if (attempt === 0 && outcomes.length > 0 && outcomes.every((o) => o.errno === EINVAL)) {
      log.info({}, 'Nothing to clean up in ipset: the kernel has no ipset');
      return r;
    }
    for (const o of outcomes) {
      if (o.errno === 0) r.destroyed.push(o.name);
      else if (o.errno === IPSET_ERR_BUSY) busy.push(o.name);
      else if (o.errno !== ENOENT) r.failed.push({ what: `ipset ${o.name}`, error: `${o.message} (errno ${o.errno})` });
    }
    if (busy.length === 0 || attempt === BUSY_RETRIES) {
      r.inUse = busy;
      break;
    }
    todo = busy;
    await delay(RETRY_MS);
  }
  if (r.destroyed.length > 0) log.info({ ipsets: r.destroyed }, 'Destroyed upstream kube-proxy\'s IPVS-mode ipsets');
  for (const name of r.inUse) log.warn({ ipset: name }, 'Kept an upstream kube-proxy ipset: a rule of another owner still uses it');
  for (const f of r.failed) log.error(f, 'Could not destroy an upstream kube-proxy ipset');
  return r;
}
