// The conntrack side of a UDP flow in a traffic test: which source port the kernel sends to a given
// pod, the flow's entry as `conntrack -L` shows it, when the running proxy first synced, and when
// a Service is in the node's rules.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { TestNetns } from '../helpers/netns';
import { eventually, type Cluster } from './harness';

const run = promisify(execFile);

/**
 * Resolves once the node's IPv4 ruleset names `ip`. Polled without blocking this process, where
 * the proxy runs: the harness's probes block it for up to their timeout each, which on a busy
 * machine can starve the proxy's first syncs past waitForAnswer's 10 s.
 */
export async function programmed(c: Cluster, ip: string, timeoutMs = 30_000): Promise<void> {
  await eventually(async () => {
    const { stdout } = await run('ip', ['netns', 'exec', c.topo.node.name, 'nft', 'list', 'ruleset', 'ip'], { maxBuffer: 1 << 26 });
    return stdout.includes(ip);
  }, `${ip} in the node's ruleset`, timeoutMs);
}

/**
 * A client source port whose flow to ip:53 the kernel DNATed to `pod`, found by probing from
 * `from`, `from + 1`... (at most 100 ports). The probe leaves the flow's conntrack entry behind, so
 * a socket bound to that port right after reuses it and reaches `pod`.
 */
export function pinnedPort(c: Cluster, ip: string, pod: string, from: number): number {
  for (let port = from; port < from + 100; port++) {
    if (c.topo.probe('udp', ip, 53, 1, { sourcePort: port })[0].startsWith(`${pod} `)) return port;
  }
  throw new Error(`no source port in ${from}..${from + 99} reached ${pod} through ${ip}:53`);
}

export interface FlowEntry {
  /** conntrack's id: an entry deleted and made again gets a new one. */
  id: string;
  /** Packets counted in the original direction (needs net.netfilter.nf_conntrack_acct=1). */
  packets: number;
}

/** The UDP conntrack entry from `sourcePort` in `ns`; throws if there is none. */
export function conntrackFlow(ns: TestNetns, sourcePort: number): FlowEntry {
  const text = ns.exec('conntrack', ['-L', '-p', 'udp', '--sport', String(sourcePort), '-o', 'id']);
  const id = /\bid=(\d+)/.exec(text)?.[1];
  const packets = /\bpackets=(\d+)/.exec(text)?.[1];
  if (!id || !packets) throw new Error(`no UDP flow (with id and packets) from port ${sourcePort}: ${JSON.stringify(text)}`);
  return { id, packets: Number(packets) };
}

/**
 * When the running proxy's last successful sync ended (ms since the epoch), from its
 * sync_proxy_rules_last_timestamp_seconds; right after `nextSync()` on a new proxy, its first.
 */
export async function lastSyncTime(c: Cluster): Promise<number> {
  const { values } = await c.proxy.metrics.syncProxyRulesLastTimestamp.get();
  const seconds = values.find((v) => v.labels.ip_family === 'IPv4')?.value;
  if (!seconds) throw new Error(`the proxy has not synced IPv4 yet: ${JSON.stringify(values)}`);
  return Math.round(seconds * 1000);
}
