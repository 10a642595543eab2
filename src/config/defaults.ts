// Defaults per API version, as upstream applies them (with the changes issue 3 lists for v1alpha2), and
// the merge of a decoded document over them.
import { MODES } from './modes';
import { appendPortIfNeeded, ipFamily } from './net';
import type { ConntrackConfig, LoggingConfig } from './types';

export const HEALTHZ_PORT = 10256;
export const METRICS_PORT = 10249;

const conntrack = (): ConntrackConfig => ({
  maxPerCore: 32 * 1024, min: 128 * 1024, tcpEstablishedTimeout: 24 * 3600_000, tcpCloseWaitTimeout: 3600_000,
  tcpBeLiberal: false, udpTimeout: 0, udpStreamTimeout: 0,
});

// Upstream's logging default format, "text" (klog's lines; src/log/text-format.ts), is ours too.
const logging = (): LoggingConfig => ({
  format: 'text', flushFrequency: 5000, verbosity: 0, vmodule: [],
  options: { text: { splitStream: false, infoBufferSize: '0' }, json: { splitStream: false, infoBufferSize: '0' } },
});

function common() {
  return {
    featureGates: {} as Record<string, boolean>,
    clientConnection: {
      kubeconfig: '', acceptContentTypes: '', contentType: 'application/vnd.kubernetes.protobuf', qps: 5, burst: 10,
    },
    logging: logging(),
    hostnameOverride: '',
    enableProfiling: false,
    showHiddenMetricsForVersion: '',
    mode: '',
    winkernel: { networkName: '', sourceVip: '', enableDSR: false, rootHnsEndpointName: '', forwardHealthCheckVip: false },
    detectLocalMode: '',
    nodePortAddresses: [] as string[],
    configSyncPeriod: 15 * 60_000,
  };
}

export function defaultsV1alpha1(): Record<string, unknown> {
  const d: Record<string, unknown> = {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha1', kind: 'KubeProxyConfiguration',
    ...common(),
    bindAddress: '0.0.0.0',
    bindAddressHardFail: false,
    clusterCIDR: '',
    detectLocal: { bridgeInterface: '', interfaceNamePrefix: '' },
    oomScoreAdj: -999,
    conntrack: conntrack(),
    portRange: '',
    windowsRunAsService: false,
  };
  for (const m of MODES) d[m.name] = m.defaultsV1alpha1();
  return d;
}

export function defaultsV1alpha2(): Record<string, unknown> {
  const d: Record<string, unknown> = {
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha2', kind: 'KubeProxyConfiguration',
    ...common(),
    bindAddressHardFail: true,
    syncPeriod: 30_000,
    minSyncPeriod: 1000,
    detectLocal: { bridgeInterface: '', interfaceNamePrefix: '', clusterCIDRs: [] },
    linux: { conntrack: conntrack(), masqueradeAll: false, oomScoreAdj: -999 },
    windows: { runAsService: false },
    configHardFail: true,
    nodeIPOverride: [],
    ipFamilyPolicy: '',
  };
  for (const m of MODES) d[m.name] = m.defaultsV1alpha2();
  return d;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge: objects merge field by field, anything else in `over` replaces. featureGates replace. */
export function mergeOver(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    out[k] = isPlainObject(v) && isPlainObject(base[k]) && k !== 'featureGates'
      ? mergeOver(base[k] as Record<string, unknown>, v) : v;
  }
  return out;
}

/** Upstream fills in the health and metrics addresses from the primary IP's family and appends the
 *  default port to a bare IP. A blank address in a file is defaulted too (SetDefaults_KubeProxyConfiguration
 *  tests `== ""`); only the flags can disable a server, by setting it blank after defaulting. */
export function defaultBindAddresses(doc: Record<string, unknown>, decoded: Record<string, unknown>, primaryIP: string): void {
  const v6 = ipFamily(primaryIP) === 6;
  doc.healthzBindAddress = !decoded.healthzBindAddress
    ? `${v6 ? '[::]' : '0.0.0.0'}:${HEALTHZ_PORT}` : appendPortIfNeeded(decoded.healthzBindAddress as string, HEALTHZ_PORT);
  doc.metricsBindAddress = !decoded.metricsBindAddress
    ? `${v6 ? '[::1]' : '127.0.0.1'}:${METRICS_PORT}` : appendPortIfNeeded(decoded.metricsBindAddress as string, METRICS_PORT);
}
