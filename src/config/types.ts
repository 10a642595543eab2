// The effective configuration: the shape of KubeProxyConfiguration v1alpha2, with defaults applied.
// Durations are milliseconds. The per-mode sections are defined by their modes (see modes.ts).
import type { ModeSections } from './modes';

export const GROUP = 'kubeproxy.config.k8s.io';
export const V1ALPHA1 = `${GROUP}/v1alpha1`;
export const V1ALPHA2 = `${GROUP}/v1alpha2`;
export const KIND = 'KubeProxyConfiguration';

export interface ClientConnection {
  kubeconfig: string;
  acceptContentTypes: string;
  contentType: string;
  qps: number;
  burst: number;
}

export interface LogFormatOptions { splitStream: boolean; infoBufferSize: string }

export interface LoggingConfig {
  /** 'text' (the default, klog's lines) or 'json'. */
  format: string;
  flushFrequency: number;
  verbosity: number;
  vmodule: { filePattern: string; verbosity: number }[];
  options: { text: LogFormatOptions; json: LogFormatOptions };
}

export interface ConntrackConfig {
  maxPerCore: number;
  min: number;
  tcpEstablishedTimeout: number;
  tcpCloseWaitTimeout: number;
  tcpBeLiberal: boolean;
  udpTimeout: number;
  udpStreamTimeout: number;
}

export interface WinkernelConfig {
  networkName: string;
  sourceVip: string;
  enableDSR: boolean;
  rootHnsEndpointName: string;
  forwardHealthCheckVip: boolean;
}

export type IPFamilyPolicy = '' | 'SingleStack' | 'PreferDualStack' | 'RequireDualStack';

export interface KubeProxyConfiguration extends ModeSections {
  apiVersion: typeof V1ALPHA2;
  kind: typeof KIND;
  featureGates: Record<string, boolean>;
  clientConnection: ClientConnection;
  logging: LoggingConfig;
  hostnameOverride: string;
  healthzBindAddress: string;
  metricsBindAddress: string;
  bindAddressHardFail: boolean;
  enableProfiling: boolean;
  showHiddenMetricsForVersion: string;
  /** '' | 'nftables' | 'ipvs' (| 'iptables', rejected by validation). Blank means nftables here. */
  mode: string;
  syncPeriod: number;
  minSyncPeriod: number;
  winkernel: WinkernelConfig;
  detectLocalMode: string;
  detectLocal: { bridgeInterface: string; interfaceNamePrefix: string; clusterCIDRs: string[] };
  nodePortAddresses: string[];
  configSyncPeriod: number;
  linux: { conntrack: ConntrackConfig; masqueradeAll: boolean; oomScoreAdj: number };
  windows: { runAsService: boolean };
  configHardFail: boolean;
  nodeIPOverride: string[];
  ipFamilyPolicy: IPFamilyPolicy;
}
