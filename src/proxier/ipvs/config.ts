// The `ipvs` section of KubeProxyConfiguration, owned by the (deprecated) IPVS mode.
import type { FieldError, Hoisted, ModeConfig } from '../../config/mode-section';
import { isCIDR } from '../../config/net';

export interface IPVSConfig {
  scheduler: string;
  excludeCIDRs: string[];
  strictARP: boolean;
  /** Milliseconds; 0 leaves the kernel's value as it is. */
  tcpTimeout: number;
  tcpFinTimeout: number;
  udpTimeout: number;
  /** v1alpha2: IPVS's own masquerade bit (v1alpha1 IPVS mode used iptables.masqueradeBit). */
  masqueradeBit: number;
}

// The schedulers the Linux IPVS code provides; blank means rr.
export const IPVS_SCHEDULERS = ['rr', 'wrr', 'lc', 'wlc', 'lblc', 'lblcr', 'dh', 'sh', 'sed', 'nq', 'fo', 'ovf', 'mh', 'twos'];

export const IPVS_DEPRECATION =
  'IPVS proxy mode is deprecated and will be removed in a future release; nftables mode is its replacement (--proxy-mode=nftables or mode: nftables)';

const v1Common = {
  scheduler: { t: 'string' },
  excludeCIDRs: { t: 'strings' },
  strictARP: { t: 'bool' },
  tcpTimeout: { t: 'duration' },
  tcpFinTimeout: { t: 'duration' },
  udpTimeout: { t: 'duration' },
} as const;

function validateActive(s: IPVSConfig): FieldError[] {
  const errs: FieldError[] = [];
  if (s.scheduler !== '' && !IPVS_SCHEDULERS.includes(s.scheduler)) {
    errs.push({ path: 'ipvs.scheduler', message: `unsupported value "${s.scheduler}": must be one of ${IPVS_SCHEDULERS.join(', ')}, or blank (rr)` });
  }
  s.excludeCIDRs.forEach((c, i) => {
    if (!isCIDR(c)) errs.push({ path: `ipvs.excludeCIDRs[${i}]`, message: `must be a valid CIDR, got "${c}"`, reset: ['ipvs.excludeCIDRs'] });
  });
  for (const k of ['tcpTimeout', 'tcpFinTimeout', 'udpTimeout'] as const) {
    if (s[k] < 0) errs.push({ path: `ipvs.${k}`, message: 'must be greater than or equal to 0' });
  }
  return errs;
}

export const ipvsConfig: ModeConfig<IPVSConfig> = {
  name: 'ipvs',
  schema: {
    v1alpha1: {
      ...v1Common,
      syncPeriod: { t: 'duration', zeroIsUnset: true },
      minSyncPeriod: { t: 'duration' },
      masqueradeBit: { t: 'gone', hint: 'ipvs.masqueradeBit is a v1alpha2 field; v1alpha1 IPVS mode uses iptables.masqueradeBit' },
    },
    v1alpha2: {
      ...v1Common,
      masqueradeBit: { t: 'int32' },
      syncPeriod: { t: 'gone', hint: 'moved to syncPeriod (top level) in v1alpha2' },
      minSyncPeriod: { t: 'gone', hint: 'moved to minSyncPeriod (top level) in v1alpha2' },
    },
  },
  defaultsV1alpha1: () => ({
    syncPeriod: 30_000, minSyncPeriod: 0, scheduler: '', excludeCIDRs: [], strictARP: false,
    tcpTimeout: 0, tcpFinTimeout: 0, udpTimeout: 0,
  }),
  defaultsV1alpha2: () => ({
    scheduler: '', excludeCIDRs: [], strictARP: false, tcpTimeout: 0, tcpFinTimeout: 0, udpTimeout: 0, masqueradeBit: 14,
  }),
  fromV1alpha1(v1, doc, mode): { section: IPVSConfig; hoisted: Hoisted; renames: Record<string, string> } {
    const legacyBit = (doc.iptables as Record<string, unknown> | undefined)?.masqueradeBit;
    const section: IPVSConfig = {
      scheduler: v1.scheduler as string,
      excludeCIDRs: [...(v1.excludeCIDRs as string[])],
      strictARP: v1.strictARP as boolean,
      tcpTimeout: v1.tcpTimeout as number,
      tcpFinTimeout: v1.tcpFinTimeout as number,
      udpTimeout: v1.udpTimeout as number,
      masqueradeBit: typeof legacyBit === 'number' ? legacyBit : 14,
    };
    if (mode !== 'ipvs') return { section, hoisted: {}, renames: { 'ipvs.masqueradeBit': 'iptables.masqueradeBit' } };
    return {
      section,
      hoisted: { syncPeriod: v1.syncPeriod as number, minSyncPeriod: v1.minSyncPeriod as number },
      renames: { syncPeriod: 'ipvs.syncPeriod', minSyncPeriod: 'ipvs.minSyncPeriod', 'ipvs.masqueradeBit': 'iptables.masqueradeBit' },
    };
  },
  toV1alpha1(section, { mode, top, doc }) {
    const active = mode === 'ipvs';
    const d = this.defaultsV1alpha1();
    const { masqueradeBit, ...rest } = section;
    const legacyBit = (doc.iptables as Record<string, unknown> | undefined)?.masqueradeBit;
    return {
      section: {
        ...rest,
        excludeCIDRs: [...section.excludeCIDRs],
        syncPeriod: active ? top.syncPeriod : d.syncPeriod,
        minSyncPeriod: active ? top.minSyncPeriod : d.minSyncPeriod,
      },
      lost: masqueradeBit !== legacyBit ? ['ipvs.masqueradeBit'] : [],
    };
  },
  validate(s, { mode }) {
    const bit = s.masqueradeBit < 0 || s.masqueradeBit > 31
      ? [{ path: 'ipvs.masqueradeBit', message: `must be within the range [0, 31], got ${s.masqueradeBit}` }] : [];
    // Like upstream, the rest of the section is checked only when IPVS is the mode in use.
    return mode === 'ipvs' ? [...bit, ...validateActive(s)] : bit;
  },
  flags: [
    { listen: 'iptables-masquerade-bit', field: 'ipvs.masqueradeBit', apply: (t, v) => { t.section.masqueradeBit = v as number; } },
    {
      spec: { name: 'ipvs-scheduler', type: 'string', defaultText: '""', scope: 'config', field: 'ipvs.scheduler', help: 'The ipvs scheduler type when proxy mode is ipvs (blank means rr).' },
      apply: (t, v) => { t.section.scheduler = v as string; },
    },
    {
      spec: { name: 'ipvs-sync-period', type: 'duration', defaultText: '30s', scope: 'config', field: 'syncPeriod',
        help: "An interval (e.g. '5s', '1m', '2h22m') indicating how frequently various re-synchronizing and cleanup operations are performed in ipvs mode. Must be greater than 0." },
      apply: (t, v) => { if (t.mode === 'ipvs') t.top.syncPeriod = v as number; },
    },
    {
      spec: { name: 'ipvs-min-sync-period', type: 'duration', defaultText: '0s', scope: 'config', field: 'minSyncPeriod',
        help: "The minimum period between IPVS rule resyncs (e.g. '5s', '1m', '2h22m'). A value of 0 means every Service or EndpointSlice change will result in an immediate IPVS resync." },
      apply: (t, v) => { if (t.mode === 'ipvs') t.top.minSyncPeriod = v as number; },
    },
    {
      spec: { name: 'ipvs-strict-arp', type: 'bool', defaultText: 'false', scope: 'config', field: 'ipvs.strictARP', help: 'Enable strict ARP by setting arp_ignore to 1 and arp_announce to 2.' },
      apply: (t, v) => { t.section.strictARP = v as boolean; },
    },
    {
      spec: { name: 'ipvs-tcp-timeout', type: 'duration', defaultText: '0s', scope: 'config', field: 'ipvs.tcpTimeout', help: "The timeout for idle IPVS TCP connections, 0 to leave as-is. (e.g. '5s', '1m', '2h22m')." },
      apply: (t, v) => { t.section.tcpTimeout = v as number; },
    },
    {
      spec: { name: 'ipvs-tcpfin-timeout', type: 'duration', defaultText: '0s', scope: 'config', field: 'ipvs.tcpFinTimeout', help: "The timeout for IPVS TCP connections after receiving a FIN packet, 0 to leave as-is. (e.g. '5s', '1m', '2h22m')." },
      apply: (t, v) => { t.section.tcpFinTimeout = v as number; },
    },
    {
      spec: { name: 'ipvs-udp-timeout', type: 'duration', defaultText: '0s', scope: 'config', field: 'ipvs.udpTimeout', help: "The timeout for IPVS UDP packets, 0 to leave as-is. (e.g. '5s', '1m', '2h22m')." },
      apply: (t, v) => { t.section.udpTimeout = v as number; },
    },
    {
      spec: { name: 'ipvs-exclude-cidrs', type: 'strings', defaultText: '[]', scope: 'config', field: 'ipvs.excludeCIDRs', help: 'A comma-separated list of CIDRs which the ipvs proxier should not touch when cleaning up IPVS rules.' },
      apply: (t, v) => { t.section.excludeCIDRs = v as string[]; },
    },
  ],
  startupWarnings: ({ mode }) => (mode === 'ipvs' ? [IPVS_DEPRECATION] : []),
};
