// Field schemas of the mode-independent part of KubeProxyConfiguration, per API version, composed with
// each mode's section schema.
import type { ApiVersion } from './mode-section';
import { MODES } from './modes';
import type { Schema } from './schema';

const clientConnection: Schema = {
  kubeconfig: { t: 'string' },
  acceptContentTypes: { t: 'string' },
  contentType: { t: 'string', zeroIsUnset: true },
  qps: { t: 'float', zeroIsUnset: true },
  burst: { t: 'int32', zeroIsUnset: true },
};

const formatOptions: Schema = { splitStream: { t: 'bool' }, infoBufferSize: { t: 'quantity' } };

const logging: Schema = {
  format: { t: 'string', zeroIsUnset: true },
  flushFrequency: { t: 'duration', zeroIsUnset: true, orNanoseconds: true },
  verbosity: { t: 'uint32' },
  vmodule: { t: 'objects', fields: { filePattern: { t: 'string' }, verbosity: { t: 'uint32' } } },
  options: { t: 'object', fields: { text: { t: 'object', fields: formatOptions }, json: { t: 'object', fields: formatOptions } } },
};

const conntrack: Schema = {
  maxPerCore: { t: 'int32' },
  min: { t: 'int32' },
  tcpEstablishedTimeout: { t: 'duration' },
  tcpCloseWaitTimeout: { t: 'duration' },
  tcpBeLiberal: { t: 'bool' },
  udpTimeout: { t: 'duration' },
  udpStreamTimeout: { t: 'duration' },
};

const winkernel: Schema = {
  networkName: { t: 'string' },
  sourceVip: { t: 'string' },
  enableDSR: { t: 'bool' },
  rootHnsEndpointName: { t: 'string' },
  forwardHealthCheckVip: { t: 'bool' },
};

const common: Schema = {
  apiVersion: { t: 'string' },
  kind: { t: 'string' },
  featureGates: { t: 'boolMap' },
  clientConnection: { t: 'object', fields: clientConnection },
  logging: { t: 'object', fields: logging },
  hostnameOverride: { t: 'string' },
  healthzBindAddress: { t: 'string', zeroIsUnset: true },
  metricsBindAddress: { t: 'string', zeroIsUnset: true },
  bindAddressHardFail: { t: 'bool' },
  enableProfiling: { t: 'bool' },
  showHiddenMetricsForVersion: { t: 'string' },
  mode: { t: 'string' },
  winkernel: { t: 'object', fields: winkernel },
  detectLocalMode: { t: 'string' },
  nodePortAddresses: { t: 'strings' },
  configSyncPeriod: { t: 'duration', zeroIsUnset: true },
};

const V2_ONLY = 'a v1alpha2 field; set apiVersion: kubeproxy.config.k8s.io/v1alpha2 to use it';

const v1alpha1Core: Schema = {
  ...common,
  bindAddress: { t: 'string', zeroIsUnset: true },
  clusterCIDR: { t: 'string' },
  detectLocal: {
    t: 'object',
    fields: {
      bridgeInterface: { t: 'string' },
      interfaceNamePrefix: { t: 'string' },
      clusterCIDRs: { t: 'gone', hint: 'a v1alpha2 field; in v1alpha1 use clusterCIDR (comma-separated)' },
    },
  },
  oomScoreAdj: { t: 'int32' },
  conntrack: { t: 'object', fields: conntrack },
  portRange: { t: 'string' },
  windowsRunAsService: { t: 'bool' },
  // Written by older kubeadm releases; upstream removed them from v1alpha1 and reads such files leniently.
  udpIdleTimeout: { t: 'ignored', hint: 'removed from upstream kube-proxy with the userspace proxy (1.26)' },
  resourceContainer: { t: 'ignored', hint: 'removed from upstream kube-proxy (1.16)' },
  syncPeriod: { t: 'gone', hint: `${V2_ONLY} (v1alpha1 has <mode>.syncPeriod)` },
  minSyncPeriod: { t: 'gone', hint: `${V2_ONLY} (v1alpha1 has <mode>.minSyncPeriod)` },
  linux: { t: 'gone', hint: V2_ONLY },
  windows: { t: 'gone', hint: V2_ONLY },
  configHardFail: { t: 'gone', hint: V2_ONLY },
  nodeIPOverride: { t: 'gone', hint: `${V2_ONLY} (v1alpha1 has bindAddress)` },
  ipFamilyPolicy: { t: 'gone', hint: V2_ONLY },
};

const v1alpha2Core: Schema = {
  ...common,
  syncPeriod: { t: 'duration', zeroIsUnset: true },
  // Presence decides here (upstream v1alpha2 turns 0 into 1s): an explicit 0s, e.g. migrated from a
  // v1alpha1 IPVS file whose minSyncPeriod defaulted to 0, must stay 0.
  minSyncPeriod: { t: 'duration' },
  detectLocal: {
    t: 'object',
    fields: { bridgeInterface: { t: 'string' }, interfaceNamePrefix: { t: 'string' }, clusterCIDRs: { t: 'strings' } },
  },
  linux: {
    t: 'object',
    fields: { conntrack: { t: 'object', fields: conntrack }, masqueradeAll: { t: 'bool' }, oomScoreAdj: { t: 'int32' } },
  },
  windows: { t: 'object', fields: { runAsService: { t: 'bool' } } },
  configHardFail: { t: 'bool' },
  nodeIPOverride: { t: 'strings' },
  ipFamilyPolicy: { t: 'string' },
  bindAddress: { t: 'gone', hint: 'dropped in v1alpha2; use nodeIPOverride (a list of the node\'s primary IPs)' },
  clusterCIDR: { t: 'gone', hint: 'changed in v1alpha2 to detectLocal.clusterCIDRs (a list)' },
  oomScoreAdj: { t: 'gone', hint: 'moved to linux.oomScoreAdj in v1alpha2' },
  conntrack: { t: 'gone', hint: 'moved to linux.conntrack in v1alpha2' },
  portRange: { t: 'gone', hint: 'dropped in v1alpha2 (it had no effect)' },
  windowsRunAsService: { t: 'gone', hint: 'moved to windows.runAsService in v1alpha2' },
};

export function schemaFor(version: ApiVersion): Schema {
  const s: Schema = { ...(version === 'v1alpha1' ? v1alpha1Core : v1alpha2Core) };
  for (const m of MODES) s[m.name] = { t: 'object', fields: m.schema[version] };
  return s;
}
