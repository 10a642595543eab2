// What /configz serves, as upstream kube-proxy serves it (component-base/configz, registered under the
// API group by cmd/kube-proxy/app/server.go newProxyServer): {"kubeproxy.config.k8s.io": <config>} where
// <config> is Go's encoding/json of the internal KubeProxyConfiguration (pkg/proxy/apis/config/types.go,
// v1.35). That type has no JSON tags, so its keys are the Go field names in declaration order; durations
// are metav1.Duration strings ("15m0s"); empty lists are Go's nil slices (null); the logging section is
// component-base's v1 LoggingConfiguration, which does have tags. The fields only our v1alpha2 shape has
// (configHardFail, ipFamilyPolicy, a second nodeIPOverride) have no place in it and are left out.
import { effectiveMode } from './effective';
import { formatDuration } from './duration';
import { GROUP, type KubeProxyConfiguration, type LogFormatOptions } from './types';

const list = (xs: readonly string[]): string[] | null => (xs.length === 0 ? null : [...xs]);

function routing(o: LogFormatOptions): Record<string, unknown> {
  // splitStream is omitempty; infoBufferSize is a resource.Quantity (a struct: always present).
  return { ...(o.splitStream ? { splitStream: true } : {}), infoBufferSize: o.infoBufferSize || '0' };
}

function logging(c: KubeProxyConfiguration): Record<string, unknown> {
  const l = c.logging;
  return {
    ...(l.format ? { format: l.format } : {}),
    flushFrequency: formatDuration(l.flushFrequency),
    verbosity: l.verbosity,
    ...(l.vmodule.length > 0 ? { vmodule: l.vmodule.map((v) => ({ filePattern: v.filePattern, verbosity: v.verbosity })) } : {}),
    options: { text: routing(l.options.text), json: routing(l.options.json) },
  };
}

function linux(c: KubeProxyConfiguration): Record<string, unknown> {
  const ct = c.linux.conntrack;
  return {
    Conntrack: {
      MaxPerCore: ct.maxPerCore, Min: ct.min,
      TCPEstablishedTimeout: formatDuration(ct.tcpEstablishedTimeout), TCPCloseWaitTimeout: formatDuration(ct.tcpCloseWaitTimeout),
      TCPBeLiberal: ct.tcpBeLiberal, UDPTimeout: formatDuration(ct.udpTimeout), UDPStreamTimeout: formatDuration(ct.udpStreamTimeout),
    },
    MasqueradeAll: c.linux.masqueradeAll,
    OOMScoreAdj: c.linux.oomScoreAdj,
  };
}

function modes(c: KubeProxyConfiguration): Record<string, unknown> {
  const mode = effectiveMode(c);
  return {
    // Upstream's mode is never blank once defaulted; ours runs nftables for a blank one.
    Mode: mode,
    // Upstream's IPVS mode reads iptables.masqueradeBit; ours keeps it in ipvs.masqueradeBit.
    IPTables: { MasqueradeBit: mode === 'ipvs' ? c.ipvs.masqueradeBit : c.iptables.masqueradeBit, LocalhostNodePorts: c.iptables.localhostNodePorts },
    IPVS: {
      Scheduler: c.ipvs.scheduler, ExcludeCIDRs: list(c.ipvs.excludeCIDRs), StrictARP: c.ipvs.strictARP,
      TCPTimeout: formatDuration(c.ipvs.tcpTimeout), TCPFinTimeout: formatDuration(c.ipvs.tcpFinTimeout), UDPTimeout: formatDuration(c.ipvs.udpTimeout),
    },
    Winkernel: {
      NetworkName: c.winkernel.networkName, SourceVip: c.winkernel.sourceVip, EnableDSR: c.winkernel.enableDSR,
      RootHnsEndpointName: c.winkernel.rootHnsEndpointName, ForwardHealthCheckVip: c.winkernel.forwardHealthCheckVip,
    },
    NFTables: { MasqueradeBit: c.nftables.masqueradeBit },
  };
}

/** The internal KubeProxyConfiguration as Go marshals it (key order is the struct's). */
export function internalConfigJSON(c: KubeProxyConfiguration): Record<string, unknown> {
  const cc = c.clientConnection;
  return {
    Linux: linux(c),
    Windows: { RunAsService: c.windows.runAsService },
    FeatureGates: { ...c.featureGates },
    ClientConnection: { Kubeconfig: cc.kubeconfig, AcceptContentTypes: cc.acceptContentTypes, ContentType: cc.contentType, QPS: cc.qps, Burst: cc.burst },
    Logging: logging(c),
    HostnameOverride: c.hostnameOverride,
    // v1alpha1's bindAddress is our nodeIPOverride; upstream defaults it to 0.0.0.0.
    BindAddress: c.nodeIPOverride[0] ?? '0.0.0.0',
    HealthzBindAddress: c.healthzBindAddress,
    MetricsBindAddress: c.metricsBindAddress,
    BindAddressHardFail: c.bindAddressHardFail,
    EnableProfiling: c.enableProfiling,
    ShowHiddenMetricsForVersion: c.showHiddenMetricsForVersion,
    ...modes(c),
    DetectLocalMode: c.detectLocalMode,
    DetectLocal: { BridgeInterface: c.detectLocal.bridgeInterface, ClusterCIDRs: list(c.detectLocal.clusterCIDRs), InterfaceNamePrefix: c.detectLocal.interfaceNamePrefix },
    NodePortAddresses: list(c.nodePortAddresses),
    SyncPeriod: formatDuration(c.syncPeriod),
    MinSyncPeriod: formatDuration(c.minSyncPeriod),
    ConfigSyncPeriod: formatDuration(c.configSyncPeriod),
  };
}

/** Go's json.Marshal escapes <, >, & and the JS line separators; JSON.stringify does not. */
export function goJSON(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The /configz body: every registered component config by name; kube-proxy registers one. */
export function configzBody(c: KubeProxyConfiguration): string {
  return goJSON({ [GROUP]: internalConfigJSON(c) });
}
