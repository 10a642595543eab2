// The IPVS mode's parts: its kernel sockets (IPVS over generic netlink, rtnetlink for kube-ipvs0,
// nftables for the mode's own table), the start-up settings upstream makes (sysctls, IPVS timeouts),
// and the proxier. No ruleset guard: the periodic full sync rewrites the helper table, and IPVS and
// addresses are not watched for changes by others (docs/ipvs-mode.md).
import * as os from 'node:os';
import type { Log } from '../base/log';
import { systemClock } from '../base/clock';
import type { KubeProxyConfiguration } from '../config';
import type { IPFamily } from '../core/types';
import type { ProxyMetrics } from '../metrics/proxy-metrics';
import { IpvsSocket, Nft, RtnlSocket } from '../native';
import { IpvsHelperTable, IpvsProxier, type IpvsMetrics } from '../proxier/ipvs';
import { nftFamily } from './families';
import { applyIpvsSysctls } from './ipvs-sysctls';
import { localDetectorFrom } from './local-detector-options';
import type { ModeParts } from './sync-parts';

export interface IpvsKernel {
  ipvs: IpvsSocket;
  rtnl: RtnlSocket;
  nft: Nft;
  close(): void;
}

export interface IpvsPartsInputs {
  config: KubeProxyConfiguration;
  log: Log;
  netns?: string;
  families: IPFamily[];
  metrics: ProxyMetrics;
  /** nf_conntrack_tcp_be_liberal is set (src/app/tcp-be-liberal.ts): no INVALID drop rule. */
  conntrackTCPLiberal?: boolean;
}

/**
 * Opens the sockets (the IPVS one first: its family lookup loads ip_vs, which makes net/ipv4/vs/
 * appear), then sets the sysctls and timeouts as upstream does. Rejects with a plain reason when
 * the kernel has no IPVS or a required sysctl cannot be set; closes what it opened then.
 */
export async function openIpvsKernel(i: Pick<IpvsPartsInputs, 'config' | 'log' | 'netns'>): Promise<IpvsKernel> {
  const opts = i.netns ? { netns: i.netns } : undefined;
  const ipvs = await IpvsSocket.open(opts).catch((e: Error & { errno?: number }) => {
    // Only a missing generic-netlink family means the kernel has no IPVS; other failures (EPERM
    // without NET_ADMIN, a netns that cannot be entered, also ENOENT) say what they are.
    if (e.errno === os.constants.errno.ENOENT && /no IPVS/.test(e.message)) throw new Error(`proxy mode "ipvs" needs IPVS in the kernel: ${e.message}; use mode nftables instead`);
    throw new Error(`proxy mode "ipvs": cannot open IPVS: ${e.message}`);
  });
  const opened: { close(): void }[] = [ipvs];
  const close = (): void => { for (const s of opened.reverse()) s.close(); };
  try {
    const rtnl = new RtnlSocket(opts);
    opened.push(rtnl);
    const nft = Nft.open(opts);
    opened.push(nft);
    applySysctls(i);
    await applyTimeouts(ipvs, i.config, i.log);
    return { ipvs, rtnl, nft, close };
  } catch (e) {
    close();
    throw e;
  }
}

function applySysctls(i: Pick<IpvsPartsInputs, 'config' | 'log' | 'netns'>): void {
  if (i.netns) {
    i.log.info({ netns: i.netns }, 'Not applying IPVS sysctls: running against another network namespace');
    return;
  }
  const r = applyIpvsSysctls(i.config.ipvs.strictARP, os.release());
  for (const o of r.outcomes) {
    if (o.action === 'set') i.log.info({ sysctl: o.name, value: o.value, previous: o.previous }, 'Set IPVS sysctl');
    else if (o.action === 'unchanged') i.log.debug({ sysctl: o.name, value: o.value }, 'IPVS sysctl already set');
  }
  if (r.connReuseNote) i.log.info({ sysctl: 'net/ipv4/vs/conn_reuse_mode' }, r.connReuseNote);
  if (r.failure) throw new Error(r.failure);
}

/** ipvs.tcpTimeout and friends, as `ipvsadm --set`: 0 leaves the kernel's value. */
async function applyTimeouts(ipvs: IpvsSocket, config: KubeProxyConfiguration, log: Log): Promise<void> {
  const s = (ms: number): number => Math.floor(ms / 1000);
  const t = { tcp: s(config.ipvs.tcpTimeout), tcpFin: s(config.ipvs.tcpFinTimeout), udp: s(config.ipvs.udpTimeout) };
  if (t.tcp === 0 && t.tcpFin === 0 && t.udp === 0) return;
  await ipvs.setTimeouts(t);
  log.info({ timeoutsSeconds: t }, 'Set IPVS timeouts');
}

/** One proxier, one batch for every family: a failed sync counts for each family it carried. */
export function ipvsProxierMetrics(m: ProxyMetrics, families: readonly IPFamily[]): IpvsMetrics {
  return { syncFailures: { inc: (v) => { for (const f of families) m.ipvsSyncFailuresTotal.inc({ ip_family: f }, v ?? 1); } } };
}

export function ipvsParts(i: IpvsPartsInputs, kernel: IpvsKernel): () => ModeParts {
  return () => {
    const helperTable = new IpvsHelperTable({
      nft: kernel.nft,
      masqueradeBit: i.config.ipvs.masqueradeBit,
      masqueradeAll: i.config.linux.masqueradeAll,
      localDetector: localDetectorFrom(i.config),
      families: i.families.map(nftFamily),
      conntrackTCPLiberal: i.conntrackTCPLiberal ?? false,
    });
    const proxier = new IpvsProxier({
      ipvs: kernel.ipvs, rtnl: kernel.rtnl, helperTable, families: i.families,
      scheduler: i.config.ipvs.scheduler, excludeCIDRs: i.config.ipvs.excludeCIDRs,
      nodePortAddresses: i.config.nodePortAddresses, nodeIPs: i.config.nodeIPOverride,
      log: i.log, clock: systemClock,
      metrics: ipvsProxierMetrics(i.metrics, i.families),
    });
    return { proxier };
  };
}
