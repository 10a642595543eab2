// Every malformed configuration gets exactly one precise error naming the field (and its line), and
// nothing starts with a silently wrong value: configHardFail defaults to true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { V1, V2, withFile } from './helpers';

interface Case { name: string; data: string | Uint8Array; error: string }

const F = 'c.yaml: ';
const tenMB = 'apiVersion: kubeproxy.config.k8s.io/v1alpha2\nkind: KubeProxyConfiguration\n#' + 'x'.repeat(10 * 1024 * 1024) + '\n';

const cases: Case[] = [
  // The file as a whole
  { name: 'empty file', data: '', error: `${F}config file is empty` },
  { name: 'only comments and blank lines', data: '# nothing here\n\n   \n', error: `${F}config file is empty` },
  { name: 'binary garbage (invalid UTF-8)', data: Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0xff, 0xfe, 0x00, 0x80]), error: `${F}config file is not UTF-8 text (binary data?)` },
  { name: 'NUL byte in text', data: V2 + 'mode: ipvs\0\n', error: `${F}config file is not text: it contains a NUL byte at offset 84` },
  { name: 'control character', data: V2 + 'mode: \u0007\n', error: `${F}config file is not text: it contains control character 0x07 at offset 80` },
  { name: '10 MB file', data: tenMB, error: `${F}config file is too large: ${tenMB.length} bytes (the limit is 1048576)` },
  { name: 'YAML syntax error', data: V2 + 'nodePortAddresses: [10.0.0.0/8\n', error: `${F}config file is not valid YAML or JSON: Flow sequence in block collection must be sufficiently indented and end with a ] (line 4)` },
  { name: 'truncated JSON', data: '{"apiVersion": "kubeproxy.config.k8s.io/v1alpha2", "kind": ', error: `${F}config file is not valid YAML or JSON: Flow map must end with a } (line 1)` },
  { name: 'root is a list', data: '- apiVersion: kubeproxy.config.k8s.io/v1alpha2\n', error: `${F}config file must hold a YAML or JSON object (a KubeProxyConfiguration)` },
  { name: 'root is a scalar', data: 'hello\n', error: `${F}config file must hold a YAML or JSON object (a KubeProxyConfiguration)` },
  { name: 'two documents', data: V2 + '---\n' + V2, error: `${F}config file holds 2 YAML documents; expected exactly one KubeProxyConfiguration` },
  { name: 'missing apiVersion', data: 'kind: KubeProxyConfiguration\n', error: `${F}apiVersion: required field is missing (use kubeproxy.config.k8s.io/v1alpha2)` },
  { name: 'unknown apiVersion', data: 'apiVersion: kubeproxy.config.k8s.io/v1beta1\nkind: KubeProxyConfiguration\n', error: `${F}apiVersion: must be "kubeproxy.config.k8s.io/v1alpha1" or "kubeproxy.config.k8s.io/v1alpha2", got "kubeproxy.config.k8s.io/v1beta1" (line 1)` },
  { name: 'missing kind', data: 'apiVersion: kubeproxy.config.k8s.io/v1alpha2\n', error: `${F}kind: required field is missing (must be "KubeProxyConfiguration")` },
  { name: 'wrong kind', data: 'apiVersion: kubeproxy.config.k8s.io/v1alpha2\nkind: KubeletConfiguration\n', error: `${F}kind: must be "KubeProxyConfiguration", got "KubeletConfiguration" (line 2)` },
  // Unknown and duplicate fields: errors in v1alpha2 (a v1alpha1 file falls back to lenient decoding, lenient-v1alpha1.test.ts)
  { name: 'unknown top-level field', data: V2 + 'proxyMode: ipvs\n', error: 'proxyMode: unknown field (line 3)' },
  { name: 'unknown nested field', data: V2 + 'linux:\n  conntrack:\n    maxPerCPU: 1\n', error: 'linux.conntrack.maxPerCPU: unknown field (line 5)' },
  { name: 'duplicate top-level field', data: V2 + 'mode: ipvs\nmode: nftables\n', error: 'mode: duplicate field (first set on line 3) (line 4)' },
  { name: 'duplicate nested field', data: V2 + 'ipvs:\n  scheduler: rr\n  strictARP: true\n  scheduler: lc\n', error: 'ipvs.scheduler: duplicate field (first set on line 4) (line 6)' },
  { name: 'duplicate feature gate', data: V2 + 'featureGates:\n  A: true\n  A: false\n', error: 'featureGates.A: duplicate field (first set on line 4) (line 5)' },
  { name: 'non-string field name', data: V2 + '? [a]\n: 1\n', error: '(root): field names must be strings, got a list (line 3)' },
  // Wrong types
  { name: 'string for an integer', data: V2 + 'linux:\n  oomScoreAdj: high\n', error: 'linux.oomScoreAdj: must be an integer (int32), got string "high" (line 4)' },
  { name: 'fraction for an integer', data: V2 + 'iptables:\n  masqueradeBit: 1.5\n', error: 'iptables.masqueradeBit: must be an integer (int32), got number 1.5 (line 4)' },
  { name: 'integer beyond int32', data: V2 + 'linux:\n  conntrack:\n    min: 3000000000\n', error: 'linux.conntrack.min: must be an integer (int32) in [-2147483648, 2147483647], got number 3000000000 (line 5)' },
  { name: 'string for a boolean', data: V2 + 'bindAddressHardFail: "yes"\n', error: 'bindAddressHardFail: must be a boolean (true or false), got string "yes" (line 3)' },
  { name: 'number for a string', data: V2 + 'mode: 5\n', error: 'mode: must be a string, got number 5 (line 3)' },
  { name: 'string for a list', data: V2 + 'nodePortAddresses: 10.0.0.0/8\n', error: 'nodePortAddresses: must be a list of strings, got string "10.0.0.0/8" (line 3)' },
  { name: 'number in a list of strings', data: V2 + 'nodeIPOverride: [10.0.0.1, 7]\n', error: 'nodeIPOverride[1]: must be a string, got number 7 (line 3)' },
  { name: 'scalar for an object', data: V2 + 'linux: 5\n', error: 'linux: must be an object, got number 5 (line 3)' },
  { name: 'negative verbosity', data: V2 + 'logging:\n  verbosity: -1\n', error: 'logging.verbosity: must be a non-negative integer in [0, 4294967295], got number -1 (line 4)' },
  { name: 'feature gate not a boolean', data: V2 + 'featureGates:\n  Foo: "on"\n', error: 'featureGates.Foo: must be a boolean (true or false), got string "on" (line 4)' },
  // Durations
  { name: 'duration with unknown unit', data: V2 + 'syncPeriod: 10x\n', error: 'syncPeriod: invalid duration "10x": unknown unit "x" (line 3)' },
  { name: 'duration without unit', data: V2 + 'minSyncPeriod: "5"\n', error: 'minSyncPeriod: invalid duration "5": missing unit (line 3)' },
  { name: 'number for a duration', data: V2 + 'configSyncPeriod: 30\n', error: 'configSyncPeriod: must be a duration string such as "30s" or "1m30s", got number 30 (line 3)' },
  { name: 'negative sync period', data: V2 + 'syncPeriod: -1s\n', error: 'syncPeriod: must be greater than 0 (line 3)' },
  { name: 'minSyncPeriod above syncPeriod', data: V2 + 'syncPeriod: 10s\nminSyncPeriod: 1m\n', error: 'syncPeriod: must be greater than or equal to minSyncPeriod (line 3)' },
  { name: 'negative conntrack timeout', data: V2 + 'linux:\n  conntrack:\n    tcpCloseWaitTimeout: -1h\n', error: 'linux.conntrack.tcpCloseWaitTimeout: must be greater than or equal to 0 (line 5)' },
  { name: 'negative IPVS timeout', data: V2 + 'mode: ipvs\nipvs:\n  tcpTimeout: -5s\n', error: 'ipvs.tcpTimeout: must be greater than or equal to 0 (line 5)' },
  // Fields from the other version
  { name: 'v1alpha1 clusterCIDR in v1alpha2', data: V2 + 'clusterCIDR: 10.0.0.0/8\n', error: 'clusterCIDR: unknown field: changed in v1alpha2 to detectLocal.clusterCIDRs (a list) (line 3)' },
  { name: 'v1alpha1 conntrack in v1alpha2', data: V2 + 'conntrack:\n  min: 1\n', error: 'conntrack: unknown field: moved to linux.conntrack in v1alpha2 (line 3)' },
  { name: 'v1alpha1 iptables.syncPeriod in v1alpha2', data: V2 + 'iptables:\n  syncPeriod: 1m\n', error: 'iptables.syncPeriod: unknown field: moved to syncPeriod (top level) in v1alpha2 (line 4)' },
  { name: 'v1alpha1 nftables.masqueradeAll in v1alpha2', data: V2 + 'nftables:\n  masqueradeAll: true\n', error: 'nftables.masqueradeAll: unknown field: moved to linux.masqueradeAll in v1alpha2 (line 4)' },
  { name: 'v1alpha1 bindAddress in v1alpha2', data: V2 + 'bindAddress: 10.0.0.1\n', error: "bindAddress: unknown field: dropped in v1alpha2; use nodeIPOverride (a list of the node's primary IPs) (line 3)" },
  { name: 'v1alpha1 portRange in v1alpha2', data: V2 + 'portRange: 100-200\n', error: 'portRange: unknown field: dropped in v1alpha2 (it had no effect) (line 3)' },
  // CIDRs and addresses
  { name: 'prefix too long', data: V2 + 'detectLocal:\n  clusterCIDRs: [10.0.0.0/33]\n', error: 'detectLocal.clusterCIDRs[0]: must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48), got "10.0.0.0/33" (line 4)' },
  { name: 'v1alpha1 clusterCIDR without prefix', data: V1 + 'clusterCIDR: 10.0.0.0\n', error: 'clusterCIDR: must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48), got "10.0.0.0" (line 3)' },
  { name: 'two IPv4 cluster CIDRs', data: V2 + 'detectLocal:\n  clusterCIDRs: [10.0.0.0/8, 11.0.0.0/8]\n', error: 'detectLocal.clusterCIDRs: must be a valid dual-stack pair (one IPv4 and one IPv6 CIDR) (line 4)' },
  { name: 'bad nodePortAddresses entry', data: V2 + 'nodePortAddresses:\n  - 10.0.0.0/8\n  - 300.0.0.0/8\n', error: 'nodePortAddresses[1]: must be a valid CIDR or "primary", got "300.0.0.0/8" (line 5)' },
  { name: 'primary mixed with CIDRs', data: V2 + 'nodePortAddresses: [primary, 10.0.0.0/8]\n', error: 'nodePortAddresses[0]: "primary" cannot be combined with CIDRs (line 3)' },
  { name: 'bad IPVS excludeCIDRs', data: V2 + 'mode: ipvs\nipvs:\n  excludeCIDRs: [fd00::/129]\n', error: 'ipvs.excludeCIDRs[0]: must be a valid CIDR, got "fd00::/129" (line 5)' },
  { name: 'bad nodeIPOverride', data: V2 + 'nodeIPOverride: [10.0.0.256]\n', error: 'nodeIPOverride[0]: must be a valid IP address, got "10.0.0.256" (line 3)' },
  { name: 'nodeIPOverride of one family twice', data: V2 + 'nodeIPOverride: [10.0.0.1, 10.0.0.2]\n', error: 'nodeIPOverride: two IPs must be of different families (one IPv4, one IPv6) (line 3)' },
  { name: 'healthz port out of range', data: V2 + 'healthzBindAddress: 0.0.0.0:99999\n', error: 'healthzBindAddress: must be a valid port (1-65535), got "99999" (line 3)' },
  { name: 'metrics address with a hostname', data: V2 + 'metricsBindAddress: localhost:10249\n', error: 'metricsBindAddress: must be a valid IP, got "localhost" (line 3)' },
  // Ranges and enums
  { name: 'iptables masquerade bit 32', data: V2 + 'iptables:\n  masqueradeBit: 32\n', error: 'iptables.masqueradeBit: must be within the range [0, 31], got 32 (line 4)' },
  { name: 'nftables masquerade bit -1', data: V2 + 'nftables:\n  masqueradeBit: -1\n', error: 'nftables.masqueradeBit: must be within the range [0, 31], got -1 (line 4)' },
  { name: 'ipvs masquerade bit 40', data: V2 + 'ipvs:\n  masqueradeBit: 40\n', error: 'ipvs.masqueradeBit: must be within the range [0, 31], got 40 (line 4)' },
  { name: 'v1alpha1 masquerade bit 99 (used by IPVS too)', data: V1 + 'iptables:\n  masqueradeBit: 99\n', error: 'iptables.masqueradeBit: must be within the range [0, 31], got 99 (line 4)' },
  { name: 'oomScoreAdj out of range', data: V2 + 'linux:\n  oomScoreAdj: 1001\n', error: 'linux.oomScoreAdj: must be within the range [-1000, 1000], got 1001 (line 4)' },
  { name: 'v1alpha1 oomScoreAdj out of range', data: V1 + 'oomScoreAdj: -1001\n', error: 'oomScoreAdj: must be within the range [-1000, 1000], got -1001 (line 3)' },
  { name: 'negative conntrack maxPerCore (v1alpha1)', data: V1 + 'conntrack:\n  maxPerCore: -1\n', error: 'conntrack.maxPerCore: must be greater than or equal to 0 (line 4)' },
  { name: 'negative API burst', data: V2 + 'clientConnection:\n  burst: -1\n', error: 'clientConnection.burst: must be greater than or equal to 0 (line 4)' },
  { name: 'unknown proxy mode', data: V2 + 'mode: userspace\n', error: 'mode: unsupported value "userspace": must be "nftables" or "ipvs" or blank (blank means nftables) (line 3)' },
  {
    name: 'iptables proxy mode', data: V2 + 'mode: iptables\n',
    error: 'mode: "iptables" mode is not provided by kube-proxy-native: use mode "nftables" (its successor; blank means it too). '
      + 'To move a node from upstream\'s iptables mode: stop the old proxy, remove its rules with `kube-proxy-native --cleanup` '
      + '(it prints the command to run for iptables-legacy rules), then start kube-proxy-native (docs/migrating.md) (line 3)',
  },
  { name: 'bad detectLocalMode', data: V2 + 'detectLocalMode: PodCIDR\n', error: 'detectLocalMode: unsupported value "PodCIDR": must be one of ClusterCIDR, NodeCIDR, BridgeInterface, InterfaceNamePrefix, or blank (line 3)' },
  { name: 'BridgeInterface without a bridge', data: V2 + 'detectLocalMode: BridgeInterface\n', error: 'detectLocal.bridgeInterface: must not be empty when detectLocalMode is BridgeInterface' },
  { name: 'bad ipFamilyPolicy', data: V2 + 'ipFamilyPolicy: DualStack\n', error: 'ipFamilyPolicy: unsupported value "DualStack": must be one of SingleStack, PreferDualStack, RequireDualStack, or blank (line 3)' },
  { name: 'bad log format', data: V2 + 'logging:\n  format: xml\n', error: 'logging.format: unsupported log format "xml": must be json or text (line 4)' },
  { name: 'bad IPVS scheduler', data: V2 + 'mode: ipvs\nipvs:\n  scheduler: fastest\n', error: 'ipvs.scheduler: unsupported value "fastest": must be one of rr, wrr, lc, wlc, lblc, lblcr, dh, sh, sed, nq, fo, ovf, mh, twos, or blank (rr) (line 5)' },
  { name: 'bad showHiddenMetricsForVersion', data: V2 + 'showHiddenMetricsForVersion: v1.30\n', error: 'showHiddenMetricsForVersion: must be <major>.<minor> (e.g. "1.33"), got "v1.30" (line 3)' },
  { name: 'v1alpha1 ipvs.syncPeriod negative in ipvs mode', data: V1 + 'mode: ipvs\nipvs:\n  syncPeriod: -30s\n', error: 'ipvs.syncPeriod: must be greater than 0 (line 5)' },
];

test(`at least 40 bad inputs (${cases.length})`, () => {
  assert.ok(cases.length >= 40);
});

for (const c of cases) {
  test(`bad input: ${c.name}`, () => {
    const r = withFile(c.data);
    assert.deepEqual(r.errors, [c.error]);
    assert.equal(r.config.configHardFail, true);
  });
}
