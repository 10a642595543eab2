// The `iptables` section of KubeProxyConfiguration. kube-proxy-native has no iptables proxier; the section
// stays because upstream's files and flags carry it (its masqueradeBit and sync periods are what v1alpha1
// used for a blank mode), and conversion must keep its values.
import type { FieldError, ModeConfig } from '../../config/mode-section';

export interface IPTablesConfig {
  masqueradeBit: number;
  localhostNodePorts: boolean;
}

const SEC = 30_000;

export function masqueradeBitError(path: string, bit: number): FieldError[] {
  return bit < 0 || bit > 31 ? [{ path, message: `must be within the range [0, 31], got ${bit}` }] : [];
}

const activeFor = (mode: string) => mode !== 'ipvs' && mode !== 'nftables';

export const iptablesConfig: ModeConfig<IPTablesConfig> = {
  name: 'iptables',
  blankModeUsesThis: true,
  schema: {
    v1alpha1: {
      masqueradeBit: { t: 'int32' },
      masqueradeAll: { t: 'bool' },
      localhostNodePorts: { t: 'bool' },
      syncPeriod: { t: 'duration', zeroIsUnset: true },
      minSyncPeriod: { t: 'duration', zeroIsUnset: true },
    },
    v1alpha2: {
      masqueradeBit: { t: 'int32' },
      localhostNodePorts: { t: 'bool' },
      masqueradeAll: { t: 'gone', hint: 'moved to linux.masqueradeAll in v1alpha2' },
      syncPeriod: { t: 'gone', hint: 'moved to syncPeriod (top level) in v1alpha2' },
      minSyncPeriod: { t: 'gone', hint: 'moved to minSyncPeriod (top level) in v1alpha2' },
    },
  },
  defaultsV1alpha1: () => ({
    masqueradeBit: 14, masqueradeAll: false, localhostNodePorts: true, syncPeriod: SEC, minSyncPeriod: 1000,
  }),
  defaultsV1alpha2: () => ({ masqueradeBit: 14, localhostNodePorts: false }),
  fromV1alpha1(v1, _doc, mode) {
    const section = { masqueradeBit: v1.masqueradeBit as number, localhostNodePorts: v1.localhostNodePorts as boolean };
    const hoisted: Record<string, unknown> = {};
    const renames: Record<string, string> = {};
    if (activeFor(mode)) {
      Object.assign(hoisted, { syncPeriod: v1.syncPeriod, minSyncPeriod: v1.minSyncPeriod });
      Object.assign(renames, { syncPeriod: 'iptables.syncPeriod', minSyncPeriod: 'iptables.minSyncPeriod' });
    }
    if (mode !== 'nftables') {
      hoisted.masqueradeAll = v1.masqueradeAll;
      renames['linux.masqueradeAll'] = 'iptables.masqueradeAll';
    }
    return { section, hoisted, renames };
  },
  toV1alpha1(section, { mode, top }) {
    const active = activeFor(mode);
    const d = this.defaultsV1alpha1();
    return {
      section: {
        masqueradeBit: section.masqueradeBit,
        masqueradeAll: mode !== 'nftables' ? top.masqueradeAll : false,
        localhostNodePorts: section.localhostNodePorts,
        syncPeriod: active ? top.syncPeriod : d.syncPeriod,
        minSyncPeriod: active ? top.minSyncPeriod : d.minSyncPeriod,
      },
      lost: [],
    };
  },
  // Upstream validates this section in every mode: its bit is shared with other iptables users.
  validate: (s) => masqueradeBitError('iptables.masqueradeBit', s.masqueradeBit),
  flags: [
    {
      spec: { name: 'iptables-masquerade-bit', type: 'int32', defaultText: '14', scope: 'config', field: 'iptables.masqueradeBit',
        help: 'If using the iptables or ipvs proxy mode, the bit of the fwmark space to mark packets requiring SNAT with. Must be within the range [0, 31].' },
      apply: (t, v) => { t.section.masqueradeBit = v as number; },
    },
    {
      spec: { name: 'iptables-localhost-nodeports', type: 'bool', defaultText: 'true', scope: 'config', field: 'iptables.localhostNodePorts',
        help: 'If false, kube-proxy will disable the legacy behavior of allowing NodePort services to be accessed via localhost. (Applies only to iptables mode and IPv4.)',
        noEffect: 'it applies only to the iptables mode, which kube-proxy-native does not provide (as upstream, the nftables and ipvs modes never allow localhost NodePorts)' },
      apply: (t, v) => { t.section.localhostNodePorts = v as boolean; },
    },
    {
      spec: { name: 'iptables-sync-period', type: 'duration', defaultText: '30s', scope: 'config', field: 'syncPeriod',
        help: "An interval (e.g. '5s', '1m', '2h22m') indicating how frequently various re-synchronizing and cleanup operations are performed. Must be greater than 0. Used in every mode except ipvs." },
      apply: (t, v) => { if (t.mode !== 'ipvs') t.top.syncPeriod = v as number; },
    },
    {
      spec: { name: 'iptables-min-sync-period', type: 'duration', defaultText: '1s', scope: 'config', field: 'minSyncPeriod',
        help: "The minimum period between rule resyncs (e.g. '5s', '1m', '2h22m'). A value of 0 means every Service or EndpointSlice change will result in an immediate resync. Used in every mode except ipvs." },
      apply: (t, v) => { if (t.mode !== 'ipvs') t.top.minSyncPeriod = v as number; },
    },
  ],
};
