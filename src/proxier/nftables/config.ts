// The `nftables` section of KubeProxyConfiguration, owned by the nftables mode.
import type { FieldError, Hoisted, ModeConfig } from '../../config/mode-section';

export interface NFTablesConfig {
  /** The bit of the packet mark that asks for masquerading (upstream default 14, i.e. 0x4000). */
  masqueradeBit: number;
}

function bitRange(path: string, bit: number): FieldError[] {
  return bit < 0 || bit > 31 ? [{ path, message: `must be within the range [0, 31], got ${bit}` }] : [];
}

export const nftablesConfig: ModeConfig<NFTablesConfig> = {
  name: 'nftables',
  schema: {
    v1alpha1: {
      masqueradeBit: { t: 'int32' },
      masqueradeAll: { t: 'bool' },
      syncPeriod: { t: 'duration', zeroIsUnset: true },
      minSyncPeriod: { t: 'duration', zeroIsUnset: true },
    },
    v1alpha2: {
      masqueradeBit: { t: 'int32' },
      masqueradeAll: { t: 'gone', hint: 'moved to linux.masqueradeAll in v1alpha2' },
      syncPeriod: { t: 'gone', hint: 'moved to syncPeriod (top level) in v1alpha2' },
      minSyncPeriod: { t: 'gone', hint: 'moved to minSyncPeriod (top level) in v1alpha2' },
    },
  },
  defaultsV1alpha1: () => ({ masqueradeBit: 14, masqueradeAll: false, syncPeriod: 30_000, minSyncPeriod: 1000 }),
  defaultsV1alpha2: () => ({ masqueradeBit: 14 }),
  fromV1alpha1(v1, _doc, mode): { section: NFTablesConfig; hoisted: Hoisted; renames: Record<string, string> } {
    const section = { masqueradeBit: v1.masqueradeBit as number };
    if (mode !== 'nftables') return { section, hoisted: {}, renames: {} };
    return {
      section,
      hoisted: {
        syncPeriod: v1.syncPeriod as number, minSyncPeriod: v1.minSyncPeriod as number,
        masqueradeAll: v1.masqueradeAll as boolean,
      },
      renames: {
        syncPeriod: 'nftables.syncPeriod', minSyncPeriod: 'nftables.minSyncPeriod',
        'linux.masqueradeAll': 'nftables.masqueradeAll',
      },
    };
  },
  toV1alpha1(section, { mode, top }) {
    const active = mode === 'nftables';
    const d = this.defaultsV1alpha1();
    return {
      section: {
        masqueradeBit: section.masqueradeBit,
        masqueradeAll: active ? top.masqueradeAll : false,
        syncPeriod: active ? top.syncPeriod : d.syncPeriod,
        minSyncPeriod: active ? top.minSyncPeriod : d.minSyncPeriod,
      },
      lost: [],
    };
  },
  validate: (s) => bitRange('nftables.masqueradeBit', s.masqueradeBit),
  flags: [],
};
