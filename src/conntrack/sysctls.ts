// Conntrack sysctls from KubeProxyConfiguration.conntrack, as upstream kube-proxy applies them
// (cmd/kube-proxy/app/server_linux.go setupConntrack, conntrack.go realConntracker):
// - nf_conntrack_max = max(min, maxPerCore x CPUs) when maxPerCore > 0, written only when the kernel's
//   value is smaller: upstream's newest rule (kubernetes#142035, merged September 2026, cherry-picks to
//   1.36 and 1.37 proposed), so a node tuned higher by hand, or a read-only /proc/sys already set high
//   enough, does not stop start-up.
//   Then the hash table (/sys/module/nf_conntrack/parameters/hashsize) is raised to max/4 if smaller.
// - TCP established / close-wait timeouts, UDP timeouts (when > 0) and tcp_be_liberal (when true),
//   each written whenever it differs.
// Errors, as upstream: the first sysctl that cannot be written, or a hashsize that cannot be read,
// stops start-up (nothing after it is attempted). The one exception is a /sys mounted read-only when
// the hash table needs raising (a container runtime's doing, docker#24000): upstream reports it with
// a Node Warning event and carries on with the rest; `readOnlySysFS` carries that event's content.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applySysctl, readInt, type SysctlOutcome, type SysctlRoots, type SysctlWrite } from '../base/sysctl';
import type { ConntrackConfig } from '../config/types';

export type { SysctlAction, SysctlOutcome, SysctlWrite } from '../base/sysctl';

export interface SysctlOptions extends SysctlRoots {
  /** Default: os.availableParallelism(). */
  cpus?: number;
  /** The mount table read to tell whether sysfs is writable. Default /proc/mounts (upstream's). */
  mountsFile?: string;
}

/** upstream setupConntrack's Node event for a read-only /sys: Eventf(nodeRef, nil, Warning, reason, action, note). */
export interface ReadOnlySysFSEvent {
  type: 'Warning';
  reason: 'readOnlySysFS';
  action: 'StartKubeProxy';
  note: string;
}

export const READ_ONLY_SYSFS_EVENT: ReadOnlySysFSEvent = {
  type: 'Warning', reason: 'readOnlySysFS', action: 'StartKubeProxy',
  note: 'CRI error: /sys is read-only: cannot modify conntrack limits, problems may arise later (If running Docker, see docker issue #24000)',
};

export interface ConntrackSetup {
  /** Each write attempted, in order. */
  outcomes: SysctlOutcome[];
  /** Set when the hash table needed raising but sysfs is mounted read-only (start-up goes on). */
  readOnlySysFS?: ReadOnlySysFSEvent;
  /** Set when start-up must stop, as upstream's newProxyServer returns this error. */
  fatal?: string;
}

const NF = 'net/netfilter/';
export const HASHSIZE = 'module/nf_conntrack/parameters/hashsize';

/** Config durations are milliseconds; sysctls take whole seconds. */
function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}

/** upstream getConntrackMax: 0 = leave nf_conntrack_max alone. */
export function conntrackMax(config: Pick<ConntrackConfig, 'maxPerCore' | 'min'>, cpus: number): number {
  if (!(config.maxPerCore > 0)) return 0;
  return Math.max(config.min > 0 ? config.min : 0, config.maxPerCore * cpus);
}

/** The sysctl writes the config asks for, hashsize aside (it depends on what the kernel holds). Pure. */
export function planConntrackSysctls(config: ConntrackConfig, cpus: number): SysctlWrite[] {
  const out: SysctlWrite[] = [];
  const max = conntrackMax(config, cpus);
  if (max > 0) out.push({ name: `${NF}nf_conntrack_max`, value: max, raiseOnly: true, root: 'proc' });
  const timeouts: Array<[string, number]> = [
    ['nf_conntrack_tcp_timeout_established', config.tcpEstablishedTimeout],
    ['nf_conntrack_tcp_timeout_close_wait', config.tcpCloseWaitTimeout],
  ];
  for (const [name, ms] of timeouts) {
    if (seconds(ms) > 0) out.push({ name: NF + name, value: seconds(ms), raiseOnly: false, root: 'proc' });
  }
  if (config.tcpBeLiberal) out.push({ name: `${NF}nf_conntrack_tcp_be_liberal`, value: 1, raiseOnly: false, root: 'proc' });
  for (const [name, ms] of [['nf_conntrack_udp_timeout', config.udpTimeout], ['nf_conntrack_udp_timeout_stream', config.udpStreamTimeout]] as const) {
    if (seconds(ms) > 0) out.push({ name: NF + name, value: seconds(ms), raiseOnly: false, root: 'proc' });
  }
  return out;
}

/** upstream isSysFSWritable: the first sysfs mount's first option is "rw". */
export function sysfsWritable(mounts: string): boolean | 'no sysfs mounted' {
  for (const line of mounts.split('\n')) {
    const f = line.split(' ');
    if (f[2] !== 'sysfs') continue;
    return (f[3] ?? '').split(',')[0] === 'rw';
  }
  return 'no sysfs mounted';
}

/** upstream realConntracker.SetMax's second half: raise hashsize to max/4 if smaller. */
function sizeHashTable(max: number, opts: SysctlOptions, r: ConntrackSetup): void {
  const file = path.join(opts.sysRoot ?? '/sys', HASHSIZE);
  const current = readInt(file);
  if (current === undefined) {
    r.fatal = `cannot read ${file}`;
    return;
  }
  const want = Math.floor(max / 4);
  if (current >= want) return;
  let mounts: string;
  try {
    mounts = fs.readFileSync(opts.mountsFile ?? '/proc/mounts', 'utf8');
  } catch (e) {
    r.fatal = `cannot list mount points: ${(e as Error).message}`;
    return;
  }
  const writable = sysfsWritable(mounts);
  if (writable === 'no sysfs mounted') r.fatal = writable;
  else if (!writable) r.readOnlySysFS = READ_ONLY_SYSFS_EVENT;
  else record(r, applySysctl({ name: HASHSIZE, value: want, raiseOnly: true, root: 'sys' }, opts));
}

function record(r: ConntrackSetup, o: SysctlOutcome): void {
  r.outcomes.push(o);
  if (o.action === 'failed') r.fatal = o.error ?? `cannot set ${o.name}`;
}

/** Applies the config's conntrack sysctls as upstream's setupConntrack; never throws. */
export function setupConntrackSysctls(config: ConntrackConfig, opts: SysctlOptions = {}): ConntrackSetup {
  const cpus = opts.cpus ?? os.availableParallelism();
  const r: ConntrackSetup = { outcomes: [] };
  for (const w of planConntrackSysctls(config, cpus)) {
    record(r, applySysctl(w, opts));
    if (!r.fatal && w.name.endsWith('nf_conntrack_max')) sizeHashTable(w.value, opts, r);
    if (r.fatal) break;
  }
  return r;
}
