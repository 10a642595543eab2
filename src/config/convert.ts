// Conversion between v1alpha1 and v1alpha2 (the internal shape). Both directions take fully defaulted
// documents; the mode sections convert themselves (see mode-section.ts).
import type { Hoisted } from './mode-section';
import { MODES } from './modes';
import { ipFamily } from './net';
import { KIND, KubeProxyConfiguration, V1ALPHA1, V1ALPHA2 } from './types';

type Doc = Record<string, any>;

export interface FromV1alpha1 {
  config: KubeProxyConfiguration;
  /** v1alpha2 path (or path prefix) -> the v1alpha1 path it came from. */
  renames: Record<string, string>;
  warnings: string[];
}

const CORE_RENAMES: Record<string, string> = {
  'linux.conntrack': 'conntrack',
  'linux.oomScoreAdj': 'oomScoreAdj',
  'detectLocal.clusterCIDRs': 'clusterCIDR',
  nodeIPOverride: 'bindAddress',
  'windows.runAsService': 'windowsRunAsService',
};

/** A v1alpha1 bindAddress of 0.0.0.0 or :: meant "no override". */
function isUnspecified(ip: string): boolean {
  return ip === '' || ip === '0.0.0.0' || (ipFamily(ip) === 6 && /^[0:]+$/.test(ip));
}

export function v1alpha1ToV1alpha2(v1: Doc): FromV1alpha1 {
  const mode = String(v1.mode ?? '');
  const top: Hoisted = {};
  const renames: Record<string, string> = { ...CORE_RENAMES };
  const sections: Doc = {};
  for (const m of MODES) {
    const r = m.fromV1alpha1(v1[m.name], v1, mode);
    sections[m.name] = r.section;
    Object.assign(top, r.hoisted);
    Object.assign(renames, r.renames);
  }
  const warnings: string[] = [];
  if (v1.portRange) warnings.push(`portRange: ignored; it is dropped in v1alpha2 and had no effect (value "${v1.portRange}")`);
  const config: KubeProxyConfiguration = {
    apiVersion: V1ALPHA2,
    kind: KIND,
    featureGates: { ...v1.featureGates },
    clientConnection: { ...v1.clientConnection },
    logging: structuredClone(v1.logging),
    hostnameOverride: v1.hostnameOverride,
    healthzBindAddress: v1.healthzBindAddress,
    metricsBindAddress: v1.metricsBindAddress,
    bindAddressHardFail: v1.bindAddressHardFail,
    enableProfiling: v1.enableProfiling,
    showHiddenMetricsForVersion: v1.showHiddenMetricsForVersion,
    mode,
    syncPeriod: top.syncPeriod ?? 30_000,
    minSyncPeriod: top.minSyncPeriod ?? 1000,
    ...(sections as Pick<KubeProxyConfiguration, 'iptables' | 'ipvs' | 'nftables'>),
    winkernel: { ...v1.winkernel },
    detectLocalMode: v1.detectLocalMode,
    detectLocal: {
      bridgeInterface: v1.detectLocal.bridgeInterface,
      interfaceNamePrefix: v1.detectLocal.interfaceNamePrefix,
      clusterCIDRs: v1.clusterCIDR ? String(v1.clusterCIDR).split(',') : [],
    },
    nodePortAddresses: [...v1.nodePortAddresses],
    configSyncPeriod: v1.configSyncPeriod,
    linux: { conntrack: { ...v1.conntrack }, masqueradeAll: top.masqueradeAll ?? false, oomScoreAdj: v1.oomScoreAdj },
    windows: { runAsService: v1.windowsRunAsService },
    configHardFail: true,
    nodeIPOverride: isUnspecified(v1.bindAddress) ? [] : [v1.bindAddress],
    ipFamilyPolicy: '',
  };
  return { config, renames, warnings };
}

export interface ToV1alpha1 { doc: Doc; lost: string[] }

/** Converts back to v1alpha1; `lost` names the v1alpha2 fields whose values v1alpha1 cannot carry. */
export function v1alpha2ToV1alpha1(c: KubeProxyConfiguration): ToV1alpha1 {
  const top = { syncPeriod: c.syncPeriod, minSyncPeriod: c.minSyncPeriod, masqueradeAll: c.linux.masqueradeAll };
  const lost: string[] = [];
  const sections: Doc = {};
  for (const m of MODES) {
    const r = m.toV1alpha1((c as unknown as Doc)[m.name], { mode: c.mode, top, doc: c as unknown as Doc });
    sections[m.name] = r.section;
    lost.push(...r.lost);
  }
  if (c.nodeIPOverride.length > 1) lost.push('nodeIPOverride');
  if (!c.configHardFail) lost.push('configHardFail');
  if (c.ipFamilyPolicy !== '') lost.push('ipFamilyPolicy');
  const doc: Doc = {
    apiVersion: V1ALPHA1,
    kind: KIND,
    featureGates: { ...c.featureGates },
    clientConnection: { ...c.clientConnection },
    logging: structuredClone(c.logging),
    hostnameOverride: c.hostnameOverride,
    bindAddress: c.nodeIPOverride[0] ?? '0.0.0.0',
    healthzBindAddress: c.healthzBindAddress,
    metricsBindAddress: c.metricsBindAddress,
    bindAddressHardFail: c.bindAddressHardFail,
    enableProfiling: c.enableProfiling,
    showHiddenMetricsForVersion: c.showHiddenMetricsForVersion,
    mode: c.mode,
    ...sections,
    winkernel: { ...c.winkernel },
    detectLocalMode: c.detectLocalMode,
    detectLocal: { bridgeInterface: c.detectLocal.bridgeInterface, interfaceNamePrefix: c.detectLocal.interfaceNamePrefix },
    clusterCIDR: c.detectLocal.clusterCIDRs.join(','),
    nodePortAddresses: [...c.nodePortAddresses],
    oomScoreAdj: c.linux.oomScoreAdj,
    conntrack: { ...c.linux.conntrack },
    configSyncPeriod: c.configSyncPeriod,
    portRange: '',
    windowsRunAsService: c.windows.runAsService,
  };
  return { doc, lost };
}

/** Where a v1alpha2 path came from in a v1alpha1 file: exact renames first, then the longest renamed prefix. */
export function sourcePath(path: string, renames: Record<string, string>): string {
  if (renames[path]) return renames[path];
  const parts = path.split('.');
  for (let n = parts.length - 1; n > 0; n--) {
    const prefix = parts.slice(0, n).join('.');
    if (renames[prefix]) return `${renames[prefix]}.${parts.slice(n).join('.')}`;
  }
  // A list index stays on the renamed list ("detectLocal.clusterCIDRs[1]" -> "clusterCIDR").
  const bare = path.replace(/\[\d+\]$/, '');
  return bare !== path && renames[bare] ? renames[bare] : path;
}
