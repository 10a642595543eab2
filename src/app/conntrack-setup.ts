// Start-up's conntrack sysctls (proxy start and --init-only): applied and logged as upstream's
// setupConntrack logs them; a fatal failure throws, which stops start-up as upstream's error does.
import type { Log } from '../base/log';
import type { ConntrackConfig } from '../config/types';
import { conntrackMax, setupConntrackSysctls, type ConntrackSetup, type SysctlOptions } from '../conntrack';
import * as os from 'node:os';

export function runConntrackSetup(config: ConntrackConfig, log: Log, opts: SysctlOptions = {}): ConntrackSetup {
  const max = conntrackMax(config, opts.cpus ?? os.availableParallelism());
  if (max > 0) log.info({ nfConntrackMax: max }, 'Setting nf_conntrack_max');
  const r = setupConntrackSysctls(config, opts);
  for (const o of r.outcomes) {
    if (o.action !== 'set') continue;
    if (o.name.endsWith('hashsize')) log.info({ conntrackHashsize: o.value, previous: o.previous }, 'Setting conntrack hashsize');
    else log.info({ entry: o.name, value: o.value, previous: o.previous }, 'Set sysctl');
  }
  // Upstream also sends this as a Node Warning event (reason readOnlySysFS, action StartKubeProxy).
  if (r.readOnlySysFS) log.warn({ reason: r.readOnlySysFS.reason }, r.readOnlySysFS.note);
  if (r.fatal) throw new Error(`cannot set up conntrack: ${r.fatal}`);
  return r;
}
