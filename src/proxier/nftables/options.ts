// The proxier's constructor options, checked up front so that bad configuration fails with the
// field's name instead of as a kernel error later.
import type { Log } from '../../base/log';
import type { NftFamily } from './desired';
import type { LocalDetectorOptions } from '../../policy/local-detector';
import { ipFamilyOf, parseCidr } from './ip-util';

/** The part of the native Nft handle the proxier uses (src/native Nft satisfies it). */
export interface NftHandle {
  commit(tx: import('../../native/txn/transaction').Transaction): Promise<unknown>;
  /** Used once at start-up, to adopt what an earlier run left in our table. */
  dumpTable(family: NftFamily, name: string, opts?: { elements?: boolean }): Promise<{
    chains: { name: string }[];
    sets: { name: string; flags: number; keyLen: number; keyType?: number; dataType?: number; dataLen?: number }[];
  }>;
  /** The session-affinity records, to delete those naming an endpoint their destination no longer has (affinity-records.ts). */
  dumpSet(family: NftFamily, table: string, set: string): Promise<{ elements: { key: Buffer; data?: Buffer }[] }>;
}

export type ProxierLog = Pick<Log, 'debug' | 'info' | 'warn' | 'error'>;

export interface CounterLike { inc(value?: number): void }

export interface NftablesMetrics {
  /** sync_proxy_rules_nftables_sync_failures_total */
  syncFailures?: CounterLike;
  /** ServicePorts the kernel (or validation) refused and that were left out of a sync. */
  refusedServicePorts?: CounterLike;
  /** kubeproxy_native_ruleset_repairs_total{reason}: full syncs run because the kernel may differ from the mirror. */
  repairs?: { inc(labels: { reason: string }): void };
}

export interface NftablesProxierOptions {
  nft: NftHandle;
  /** Tables to manage: `ip` for IPv4 Services, `ip6` for IPv6. */
  families: NftFamily[];
  /** Bit of the packet mark that asks for masquerade (upstream default 14 = 0x4000). */
  masqueradeBit: number;
  masqueradeAll: boolean;
  localDetector: LocalDetectorOptions;
  /** CIDRs and/or `primary`; empty = NodePorts on every local address (but loopback). */
  nodePortAddresses: string[];
  /** This node's IPs; empty = the snapshot's node.ips. */
  nodeIPs: string[];
  /** Service CIDRs: traffic to an unallocated ClusterIP inside them is dropped. Optional. */
  serviceCIDRs?: string[];
  /** Entries the shared session-affinity set may hold; default DEFAULT_AFFINITY_SET_SIZE. */
  affinitySetSize?: number;
  /**
   * The kernel's nf_conntrack_tcp_be_liberal was non-zero at start-up (upstream reads the sysctl in
   * NewProxier): then no `ct state invalid drop` rule. Default false: the rule is installed.
   */
  conntrackTCPLiberal?: boolean;
  log: ProxierLog;
  metrics?: NftablesMetrics;
  /**
   * Called in a full sync, per family, once its rules are in the transaction and before its encoded
   * elements are copied in, with their size in bytes: the compile's garbage is behind it, and the
   * transaction is about to grow by that much. The app may collect garbage then
   * (src/app/release-memory.ts).
   */
  beforeElementsCopied?: (bytes: number) => void;
  /**
   * A full sync into a family whose table does not exist (a cold start) stages its sets, elements,
   * regular chains and their rules in commits of about this many bytes of elements while it compiles
   * (plan-full.ts Staging); 0 writes it as one transaction. Default DEFAULT_STAGE_BYTES.
   */
  stageBytes?: number;
  /**
   * Called in a staged cold start each time a staging commit is queued: no other moment of the
   * compile is one where the app may collect garbage (src/app/release-memory.ts).
   */
  whileStaging?: () => void;
}

/** 4 MiB of elements: ~9 staging commits for a 44k-Service cold start, each below the 16 MiB at which the app collects garbage before a commit. */
export const DEFAULT_STAGE_BYTES = 4 * 1024 * 1024;

const fail = (field: string, msg: string): never => { throw new RangeError(`nftables proxier options.${field}: ${msg}`); };

function checkCidrList(list: unknown, field: string, allowPrimary: boolean): string[] {
  if (!Array.isArray(list)) return fail(field, 'expected an array of strings');
  list.forEach((c, i) => {
    if (typeof c !== 'string' || (!(allowPrimary && c === 'primary') && !parseCidr(c))) {
      fail(`${field}[${i}]`, `${JSON.stringify(c)} is not a CIDR${allowPrimary ? " or 'primary'" : ''}`);
    }
  });
  return list as string[];
}

function checkDetector(d: unknown): void {
  const det = d as LocalDetectorOptions;
  if (typeof d !== 'object' || d === null) fail('localDetector', 'expected an object with a mode');
  switch (det.mode) {
    case 'None': return;
    case 'ClusterCIDR': case 'NodeCIDR': checkCidrList(det.cidrs, 'localDetector.cidrs', false); return;
    case 'BridgeInterface':
      if (typeof det.interface !== 'string' || !/^[^\s"*/]{1,15}$/.test(det.interface)) fail('localDetector.interface', 'expected an interface name');
      return;
    case 'InterfaceNamePrefix':
      if (typeof det.prefix !== 'string' || !/^[^\s"*/]{1,14}$/.test(det.prefix)) fail('localDetector.prefix', 'expected an interface name prefix');
      return;
    default: fail('localDetector.mode', `unknown mode ${JSON.stringify((det as { mode: unknown }).mode)}`);
  }
}

export function checkOptions(o: NftablesProxierOptions): void {
  if (typeof o !== 'object' || o === null) throw new TypeError('nftables proxier options: expected an object');
  if (!o.nft || typeof o.nft.commit !== 'function' || typeof o.nft.dumpTable !== 'function' || typeof o.nft.dumpSet !== 'function') fail('nft', 'expected an Nft handle');
  if (!Array.isArray(o.families) || o.families.length === 0 || o.families.some((f) => f !== 'ip' && f !== 'ip6')
    || new Set(o.families).size !== o.families.length) fail('families', "expected 'ip' and/or 'ip6', each once");
  if (!Number.isInteger(o.masqueradeBit) || o.masqueradeBit < 0 || o.masqueradeBit > 31) fail('masqueradeBit', `${o.masqueradeBit} is not in 0..31`);
  if (typeof o.masqueradeAll !== 'boolean') fail('masqueradeAll', 'expected a boolean');
  checkDetector(o.localDetector);
  checkCidrList(o.nodePortAddresses, 'nodePortAddresses', true);
  if (!Array.isArray(o.nodeIPs)) fail('nodeIPs', 'expected an array of IPs');
  o.nodeIPs.forEach((ip, i) => { if (!ipFamilyOf(ip)) fail(`nodeIPs[${i}]`, `${JSON.stringify(ip)} is not an IP`); });
  if (o.conntrackTCPLiberal !== undefined && typeof o.conntrackTCPLiberal !== 'boolean') fail('conntrackTCPLiberal', 'expected a boolean');
  if (o.serviceCIDRs !== undefined) checkCidrList(o.serviceCIDRs, 'serviceCIDRs', false);
  if (o.affinitySetSize !== undefined && (!Number.isInteger(o.affinitySetSize) || o.affinitySetSize < 1 || o.affinitySetSize > 0xffffffff)) {
    fail('affinitySetSize', `${o.affinitySetSize} is not an element count in 1..${0xffffffff}`);
  }
  if (o.stageBytes !== undefined && (!Number.isSafeInteger(o.stageBytes) || o.stageBytes < 0)) fail('stageBytes', `${o.stageBytes} is not a byte count (0: no staging)`);
  if (!o.log || typeof o.log.warn !== 'function' || typeof o.log.error !== 'function' || typeof o.log.info !== 'function') {
    fail('log', 'expected a logger with info, warn and error');
  }
}
