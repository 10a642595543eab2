// kube-proxy's command-line flags (upstream names, types, defaults and meanings) for the
// mode-independent part of the configuration, composed with the flags each mode declares.
import type { FlagSpec, ModeFlag } from './mode-section';
import { MODES } from './modes';
import { appendPortIfNeeded, ipFamily } from './net';
import type { KubeProxyConfiguration } from './types';

export interface CoreFlag extends FlagSpec {
  /** Sets the flag's value into the configuration (flags with scope 'config' or 'logging'). */
  apply?(c: KubeProxyConfiguration, value: any): void;
}

const opt = (name: string, type: FlagSpec['type'], defaultText: string, help: string, shorthand?: string, noEffect?: string): CoreFlag =>
  ({ name, type, defaultText, help, scope: 'option', shorthand, noEffect });
const cfg = (name: string, type: FlagSpec['type'], defaultText: string, help: string, apply: CoreFlag['apply'], field?: string, noEffect?: string): CoreFlag =>
  ({ name, type, defaultText, help, scope: 'config', apply, field, noEffect });
const IGNORED = ' This parameter is ignored if a config file is specified by --config.';

export const CORE_FLAGS: CoreFlag[] = [
  opt('config', 'string', '""', 'The path to the configuration file (KubeProxyConfiguration v1alpha1 or v1alpha2, YAML or JSON).'),
  opt('write-config-to', 'string', '""', 'If set, write the effective configuration, as v1alpha2, to this file and exit.'),
  opt('cleanup', 'bool', 'false', 'If true, remove every rule any proxy mode may have created (nftables tables kube-proxy in ip and ip6) and exit.'),
  opt('init-only', 'bool', 'false', 'If true, perform any initialization steps that must be done with full root privileges, and then exit.'),
  opt('dry-run', 'bool', 'false', 'If true, list the API server once, print the nftables ruleset the first full sync would write for this node (nft -f text, a summary comment last) and exit, changing nothing in the kernel. nftables mode only; not an upstream flag.'),
  opt('diff', 'bool', 'false', 'With --dry-run: print only what a sync would change in the tables the kernel holds now (add/delete lines, a summary comment last). Not an upstream flag.'),
  opt('master', 'string', '""', 'The address of the Kubernetes API server (overrides any value in kubeconfig).'),
  opt('hostname-override', 'string', '""', 'If non-empty, will be used as the name of the Node that kube-proxy is running on. Overrides hostnameOverride of the config file.'),
  opt('version', 'version', 'false', 'Print version information and quit (--version=raw for more detail).'),
  opt('help', 'bool', 'false', 'help for kube-proxy', 'h'),
  { name: 'v', shorthand: 'v', type: 'level', defaultText: '0', scope: 'logging', field: 'logging.verbosity', help: 'number for the log level verbosity (0-3 info, 4 debug, 5 and more trace).',
    apply: (c, v) => { c.logging.verbosity = v; } },
  { name: 'logging-format', type: 'string', defaultText: 'text', scope: 'logging', field: 'logging.format', help: 'Sets the log format. Permitted formats: "json", "text".',
    apply: (c, v) => { c.logging.format = v; } },
  { name: 'vmodule', type: 'strings', defaultText: '""', scope: 'logging', field: 'logging.vmodule', help: 'comma-separated list of pattern=N settings for file-filtered logging (only works for text log format).',
    noEffect: 'there are no source files to filter by: one verbosity (-v) applies to every message',
    apply: (c, v: string[]) => { c.logging.vmodule = v.map(parseVModule); } },
  { name: 'log-flush-frequency', type: 'duration', defaultText: '5s', scope: 'logging', field: 'logging.flushFrequency', help: 'Maximum number of seconds between log flushes.',
    noEffect: 'each line is written when it is logged; nothing is buffered, so nothing waits for a flush',
    apply: (c, v) => { c.logging.flushFrequency = v; } },
  ...(['text', 'json'] as const).flatMap((fmt) => splitStreamFlags(fmt)),
  opt('boot-id-file', 'string', '"/proc/sys/kernel/random/boot_id"', 'Comma-separated list of files to check for boot-id. Use the first one that exists.',
    undefined, 'upstream registers it only through a library (cadvisor) whose value kube-proxy never reads'),
  opt('machine-id-file', 'string', '"/etc/machine-id,/var/lib/dbus/machine-id"', 'Comma-separated list of files to check for machine-id. Use the first one that exists.',
    undefined, 'upstream registers it only through a library (cadvisor) whose value kube-proxy never reads'),
  cfg('feature-gates', 'boolMap', '""', 'A set of key=value pairs that describe feature gates for alpha/experimental features.' + IGNORED,
    (c, v) => { Object.assign(c.featureGates, v); }, 'featureGates'),
  cfg('kubeconfig', 'string', '""', 'Path to kubeconfig file with authorization information (the master location can be overridden by the master flag).' + IGNORED,
    (c, v) => { c.clientConnection.kubeconfig = v; }),
  cfg('kube-api-content-type', 'string', 'application/vnd.kubernetes.protobuf', 'Content type of requests sent to apiserver.' + IGNORED,
    (c, v) => { c.clientConnection.contentType = v; }, 'clientConnection.contentType',
    'our API client asks for JSON, which every API server serves; there is no protobuf decoder'),
  cfg('kube-api-burst', 'int32', '10', 'Burst to use while talking with kubernetes apiserver.' + IGNORED, (c, v) => { c.clientConnection.burst = v; }, 'clientConnection.burst',
    'requests are not rate-limited on our side: one list and one watch a resource, retried with backoff'),
  cfg('kube-api-qps', 'float', '5', 'QPS to use while talking with kubernetes apiserver.' + IGNORED, (c, v) => { c.clientConnection.qps = v; }, 'clientConnection.qps',
    'requests are not rate-limited on our side: one list and one watch a resource, retried with backoff'),
  cfg('bind-address', 'ip', '0.0.0.0', "Overrides kube-proxy's idea of what its node's primary IP is (0.0.0.0 or :: for no override; v1alpha2: nodeIPOverride)." + IGNORED,
    (c, v: string) => { c.nodeIPOverride = v === '0.0.0.0' || /^[0:]+$/.test(v) ? [] : [v]; }, 'nodeIPOverride'),
  cfg('healthz-bind-address', 'ipPort', '0.0.0.0:10256', 'The IP address and port for the health check server to serve on. Set empty to disable.' + IGNORED,
    (c, v) => { c.healthzBindAddress = v; }, 'healthzBindAddress'),
  cfg('metrics-bind-address', 'ipPort', '127.0.0.1:10249', 'The IP address and port for the metrics server to serve on. Set empty to disable.' + IGNORED,
    (c, v) => { c.metricsBindAddress = v; }, 'metricsBindAddress'),
  cfg('healthz-port', 'int32', '10256', 'DEPRECATED: use --healthz-bind-address. The port to bind the health check server. Use 0 to disable.' + IGNORED, undefined),
  cfg('metrics-port', 'int32', '10249', 'DEPRECATED: use --metrics-bind-address. The port to bind the metrics server. Use 0 to disable.' + IGNORED, undefined),
  cfg('bind-address-hard-fail', 'bool', 'false', 'If true kube-proxy will treat failure to bind to a port as fatal and exit.' + IGNORED,
    (c, v) => { c.bindAddressHardFail = v; }),
  cfg('profiling', 'bool', 'false', 'If true enables profiling via web interface on /debug/pprof handler.' + IGNORED, (c, v) => { c.enableProfiling = v; }, undefined,
    'there is no /debug/pprof (Go profiling); use Node.js inspection (--inspect, --cpu-prof) instead'),
  cfg('show-hidden-metrics-for-version', 'string', '""', 'The previous version for which you want to show hidden metrics (<major>.<minor>).' + IGNORED,
    (c, v) => { c.showHiddenMetricsForVersion = v; }, 'showHiddenMetricsForVersion',
    'we have no hidden (deprecated and hidden) metrics to show'),
  cfg('proxy-mode', 'string', '""', "Which proxy mode to use: 'nftables' (the default, also for blank) or 'ipvs' (DEPRECATED: nftables is its replacement)." + IGNORED,
    (c, v) => { c.mode = v; }, 'mode'),
  cfg('masquerade-all', 'bool', 'false', 'SNAT all traffic sent via Service cluster IPs. This may be required with some CNI plugins.' + IGNORED,
    (c, v) => { c.linux.masqueradeAll = v; }),
  cfg('detect-local-mode', 'string', '""', 'Mode to use to detect local traffic: ClusterCIDR, NodeCIDR, BridgeInterface or InterfaceNamePrefix. Unset means ClusterCIDR.' + IGNORED,
    (c, v) => { c.detectLocalMode = v; }, 'detectLocalMode'),
  cfg('pod-bridge-interface', 'string', '""', 'A bridge interface name. When --detect-local-mode is BridgeInterface, traffic from this bridge is local.' + IGNORED,
    (c, v) => { c.detectLocal.bridgeInterface = v; }, 'detectLocal.bridgeInterface'),
  cfg('pod-interface-name-prefix', 'string', '""', 'An interface name prefix. When --detect-local-mode is InterfaceNamePrefix, traffic from interfaces with this prefix is local.' + IGNORED,
    (c, v) => { c.detectLocal.interfaceNamePrefix = v; }, 'detectLocal.interfaceNamePrefix'),
  cfg('cluster-cidr', 'string', '""', 'The CIDR range of the pods in the cluster (a comma-separated dual-stack pair for dual-stack clusters).' + IGNORED,
    (c, v: string) => { c.detectLocal.clusterCIDRs = v === '' ? [] : v.split(','); }, 'detectLocal.clusterCIDRs'),
  cfg('nodeport-addresses', 'strings', '[]', "A list of CIDR ranges that contain valid node IPs, or the single string 'primary'. If unset: 'primary' in nftables mode, all local IPs in ipvs mode." + IGNORED,
    (c, v) => { c.nodePortAddresses = v; }, 'nodePortAddresses'),
  cfg('oom-score-adj', 'int32', '-999', 'The oom-score-adj value for kube-proxy process. Values must be within the range [-1000, 1000].' + IGNORED,
    (c, v) => { c.linux.oomScoreAdj = v; }, 'linux.oomScoreAdj'),
  cfg('conntrack-max-per-core', 'int32', '32768', 'Maximum number of NAT connections to track per CPU core (0 to leave the limit as-is and ignore conntrack-min).' + IGNORED,
    (c, v) => { c.linux.conntrack.maxPerCore = v; }, 'linux.conntrack.maxPerCore'),
  cfg('conntrack-min', 'int32', '131072', 'Minimum number of conntrack entries to allocate, regardless of conntrack-max-per-core.' + IGNORED,
    (c, v) => { c.linux.conntrack.min = v; }, 'linux.conntrack.min'),
  cfg('conntrack-tcp-timeout-established', 'duration', '24h0m0s', 'Idle timeout for established TCP connections (0 to leave as-is).' + IGNORED,
    (c, v) => { c.linux.conntrack.tcpEstablishedTimeout = v; }, 'linux.conntrack.tcpEstablishedTimeout'),
  cfg('conntrack-tcp-timeout-close-wait', 'duration', '1h0m0s', 'NAT timeout for TCP connections in the CLOSE_WAIT state.' + IGNORED,
    (c, v) => { c.linux.conntrack.tcpCloseWaitTimeout = v; }, 'linux.conntrack.tcpCloseWaitTimeout'),
  cfg('conntrack-tcp-be-liberal', 'bool', 'false', 'Enable liberal mode for tracking TCP packets by setting nf_conntrack_tcp_be_liberal to 1.' + IGNORED,
    (c, v) => { c.linux.conntrack.tcpBeLiberal = v; }),
  cfg('conntrack-udp-timeout', 'duration', '0s', 'Idle timeout for UNREPLIED UDP connections (0 to leave as-is).' + IGNORED,
    (c, v) => { c.linux.conntrack.udpTimeout = v; }, 'linux.conntrack.udpTimeout'),
  cfg('conntrack-udp-timeout-stream', 'duration', '0s', 'Idle timeout for ASSURED UDP connections (0 to leave as-is).' + IGNORED,
    (c, v) => { c.linux.conntrack.udpStreamTimeout = v; }, 'linux.conntrack.udpStreamTimeout'),
  cfg('config-sync-period', 'duration', '15m0s', 'How often configuration from the apiserver is refreshed. Must be greater than 0.' + IGNORED,
    (c, v) => { c.configSyncPeriod = v; }, 'configSyncPeriod',
    'our watches keep no periodic resync: upstream\'s informer resync re-delivers cached objects, which changes nothing'),
];

/** component-base's alpha split-stream options of one format (logs/api/v1 options.go addFlags). */
function splitStreamFlags(fmt: 'text' | 'json'): CoreFlag[] {
  const name = fmt === 'text' ? 'text' : 'JSON';
  return [
    { name: `log-${fmt}-split-stream`, type: 'bool', defaultText: 'false', scope: 'logging', field: `logging.options.${fmt}.splitStream`,
      help: `[Alpha] In ${name} format, write error messages to stderr and info messages to stdout. The default is to write a single stream to stderr. Enable the LoggingAlphaOptions feature gate to use this.`,
      apply: (c, v: boolean) => { c.logging.options[fmt].splitStream = v; } },
    { name: `log-${fmt}-info-buffer-size`, type: 'quantity', defaultText: '0', scope: 'logging', field: `logging.options.${fmt}.infoBufferSize`,
      help: `[Alpha] In ${name} format with split output streams, the info messages can be buffered for a while to increase performance. The default value of zero bytes disables buffering. The size can be specified as number of bytes (512), multiples of 1000 (1K), multiples of 1024 (2Ki), or powers of those (3M, 4G, 5Mi, 6Gi). Enable the LoggingAlphaOptions feature gate to use this.`,
      noEffect: 'info lines are never buffered here (each is written when it is logged)',
      apply: (c, v: string) => { c.logging.options[fmt].infoBufferSize = v; } },
  ];
}

function parseVModule(s: string): { filePattern: string; verbosity: number } {
  const eq = s.lastIndexOf('=');
  return { filePattern: eq < 0 ? s : s.slice(0, eq), verbosity: eq < 0 ? 0 : Number(s.slice(eq + 1)) || 0 };
}

type AnyModeFlag = ModeFlag<any>;

/** Every flag the command accepts: the core's and the ones the modes declare. */
export function allFlagSpecs(): FlagSpec[] {
  const specs: FlagSpec[] = [...CORE_FLAGS];
  for (const m of MODES) for (const f of m.flags as AnyModeFlag[]) if ('spec' in f) specs.push(f.spec);
  return specs;
}

/** The scope of a flag by name (mode flags included). */
export function flagScope(name: string): FlagSpec['scope'] | undefined {
  return allFlagSpecs().find((s) => s.name === name)?.scope;
}

/** Applies the config-scope flags given on the command line: core flags first (so the mode is known),
 *  then each mode's bindings, which see their own section plus the top-level fields they may set. */
export function applyConfigFlags(c: KubeProxyConfiguration, values: Map<string, unknown>): void {
  for (const f of CORE_FLAGS) {
    if (f.scope === 'config' && f.apply && values.has(f.name)) f.apply(c, values.get(f.name));
  }
  applyDeprecatedPorts(c, values);
  const top = { syncPeriod: c.syncPeriod, minSyncPeriod: c.minSyncPeriod, masqueradeAll: c.linux.masqueradeAll };
  for (const m of MODES) {
    for (const f of m.flags as AnyModeFlag[]) {
      const name = 'spec' in f ? f.spec.name : f.listen;
      if (values.has(name)) f.apply({ section: (c as any)[m.name], top, mode: c.mode }, values.get(name));
    }
  }
  c.syncPeriod = top.syncPeriod;
  c.minSyncPeriod = top.minSyncPeriod;
  c.linux.masqueradeAll = top.masqueradeAll;
}

/** Upstream's deprecated --healthz-port/--metrics-port: 0 disables the server; otherwise the port is
 *  appended only to an address given without one. */
function applyDeprecatedPorts(c: KubeProxyConfiguration, values: Map<string, unknown>): void {
  const port = (name: string, fallback: number) => (values.has(name) ? (values.get(name) as number) : fallback);
  const withPort = (addr: string, p: number) => {
    if (p === 0) return '';
    return ipFamily(addr) === 0 ? addr : appendPortIfNeeded(addr, p);
  };
  c.healthzBindAddress = withPort(c.healthzBindAddress, port('healthz-port', 10256));
  c.metricsBindAddress = withPort(c.metricsBindAddress, port('metrics-port', 10249));
}

/** Applies the logging flags given on the command line (they win over the config file, as upstream). */
export function applyLoggingFlags(c: KubeProxyConfiguration, values: Map<string, unknown>): void {
  for (const f of CORE_FLAGS) {
    if (f.scope === 'logging' && f.apply && values.has(f.name)) f.apply(c, values.get(f.name));
  }
}

/** Field -> the flag that set it, for the flags given on the command line in the given scopes. */
export function flagFields(values: Map<string, unknown>, scopes: ReadonlyArray<FlagSpec['scope']>): Map<string, string> {
  const out = new Map<string, string>();
  const note = (name: string, field: string | undefined, scope: FlagSpec['scope'] | undefined) => {
    if (field && scope && scopes.includes(scope) && values.has(name)) out.set(field, `--${name}`);
  };
  for (const s of allFlagSpecs()) note(s.name, s.field, s.scope);
  for (const m of MODES) {
    for (const f of m.flags as AnyModeFlag[]) if ('listen' in f) note(f.listen, f.field, flagScope(f.listen));
  }
  return out;
}
