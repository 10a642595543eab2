// v1alpha1 and v1alpha2: each moved, changed, added and dropped field, each default change, and the
// round trips between the versions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { toV1alpha1Yaml, toV1alpha2Yaml } from '../../src/config';
import { V1, V2, withFile } from './helpers';

function get(o: unknown, path: string): unknown {
  return path.split('.').reduce((x: any, k) => x?.[k], o);
}

function load(text: string) {
  const r = withFile(text);
  assert.deepEqual(r.errors, [], `unexpected errors for:\n${text}`);
  return r;
}

test('moved and changed fields: a v1alpha1 value lands in its v1alpha2 place', () => {
  const cases: { v1: string; path: string; value: unknown }[] = [
    { v1: 'conntrack:\n  min: 5\n  tcpBeLiberal: true\n', path: 'linux.conntrack.min', value: 5 },
    { v1: 'conntrack:\n  tcpBeLiberal: true\n', path: 'linux.conntrack.tcpBeLiberal', value: true },
    { v1: 'conntrack:\n  udpStreamTimeout: 2m\n', path: 'linux.conntrack.udpStreamTimeout', value: 120_000 },
    { v1: 'oomScoreAdj: -500\n', path: 'linux.oomScoreAdj', value: -500 },
    { v1: 'iptables:\n  masqueradeAll: true\n', path: 'linux.masqueradeAll', value: true },
    { v1: 'mode: ipvs\niptables:\n  masqueradeAll: true\n', path: 'linux.masqueradeAll', value: true },
    { v1: 'mode: nftables\nnftables:\n  masqueradeAll: true\n', path: 'linux.masqueradeAll', value: true },
    { v1: 'mode: nftables\niptables:\n  masqueradeAll: true\n', path: 'linux.masqueradeAll', value: false },
    { v1: 'iptables:\n  syncPeriod: 10s\n', path: 'syncPeriod', value: 10_000 },
    { v1: 'iptables:\n  minSyncPeriod: 2s\n', path: 'minSyncPeriod', value: 2000 },
    { v1: 'mode: nftables\nnftables:\n  syncPeriod: 45s\n  minSyncPeriod: 3s\n', path: 'syncPeriod', value: 45_000 },
    { v1: 'mode: nftables\nnftables:\n  syncPeriod: 45s\n  minSyncPeriod: 3s\n', path: 'minSyncPeriod', value: 3000 },
    { v1: 'mode: ipvs\nipvs:\n  syncPeriod: 1m\n', path: 'syncPeriod', value: 60_000 },
    { v1: 'mode: ipvs\nipvs:\n  minSyncPeriod: 5s\n', path: 'minSyncPeriod', value: 5000 },
    // a section of another mode does not leak into the effective periods
    { v1: 'mode: ipvs\niptables:\n  syncPeriod: 10s\n', path: 'syncPeriod', value: 30_000 },
    { v1: 'clusterCIDR: 10.0.0.0/8\n', path: 'detectLocal.clusterCIDRs', value: ['10.0.0.0/8'] },
    { v1: 'clusterCIDR: 10.0.0.0/8,fd00::/48\n', path: 'detectLocal.clusterCIDRs', value: ['10.0.0.0/8', 'fd00::/48'] },
    { v1: 'windowsRunAsService: true\n', path: 'windows.runAsService', value: true },
    { v1: 'bindAddress: 10.1.2.3\n', path: 'nodeIPOverride', value: ['10.1.2.3'] },
    { v1: 'bindAddress: 0.0.0.0\n', path: 'nodeIPOverride', value: [] },
    { v1: 'bindAddress: "::"\n', path: 'nodeIPOverride', value: [] },
    { v1: 'iptables:\n  masqueradeBit: 9\n', path: 'ipvs.masqueradeBit', value: 9 },
  ];
  for (const c of cases) assert.deepEqual(get(load(V1 + c.v1).config, c.path), c.value, `${c.v1} -> ${c.path}`);
});

test('added v1alpha2 fields: defaults, and values read from the file', () => {
  const defaults = load(V2).config;
  assert.equal(defaults.ipvs.masqueradeBit, 14);
  assert.equal(defaults.windows.runAsService, false);
  assert.equal(defaults.configHardFail, true);
  assert.deepEqual(defaults.nodeIPOverride, []);
  assert.equal(defaults.ipFamilyPolicy, '');
  const set = load(V2 + 'ipvs:\n  masqueradeBit: 7\nwindows:\n  runAsService: true\nconfigHardFail: false\n'
    + 'nodeIPOverride: [10.0.0.5, "fd00::5"]\nipFamilyPolicy: RequireDualStack\n').config;
  assert.equal(set.ipvs.masqueradeBit, 7);
  assert.equal(set.iptables.masqueradeBit, 14, 'ipvs.masqueradeBit is independent of iptables.masqueradeBit');
  assert.equal(set.windows.runAsService, true);
  assert.equal(set.configHardFail, false);
  assert.deepEqual(set.nodeIPOverride, ['10.0.0.5', 'fd00::5']);
  assert.equal(set.ipFamilyPolicy, 'RequireDualStack');
});

test('default changes between the versions', () => {
  const v1 = load(V1).config;
  const v2 = load(V2).config;
  assert.equal(v1.iptables.localhostNodePorts, true);
  assert.equal(v2.iptables.localhostNodePorts, false);
  assert.equal(v1.bindAddressHardFail, false);
  assert.equal(v2.bindAddressHardFail, true);
  // What both versions share
  for (const c of [v1, v2]) {
    assert.equal(c.syncPeriod, 30_000);
    assert.equal(c.minSyncPeriod, 1000);
    assert.equal(c.configSyncPeriod, 900_000);
    assert.equal(c.healthzBindAddress, '0.0.0.0:10256');
    assert.equal(c.metricsBindAddress, '127.0.0.1:10249');
    assert.equal(c.linux.oomScoreAdj, -999);
    assert.equal(c.linux.conntrack.maxPerCore, 32768);
    assert.equal(c.linux.conntrack.min, 131072);
    assert.equal(c.linux.conntrack.tcpEstablishedTimeout, 86_400_000);
    assert.equal(c.linux.conntrack.tcpCloseWaitTimeout, 3_600_000);
    assert.equal(c.clientConnection.contentType, 'application/vnd.kubernetes.protobuf');
    assert.equal(c.clientConnection.qps, 5);
    assert.equal(c.clientConnection.burst, 10);
    assert.equal(c.nftables.masqueradeBit, 14);
    assert.equal(c.logging.format, 'text', 'upstream SetRecommendedLoggingConfiguration: format defaults to text');
  }
});

test('upstream defaulting quirks: zero means default, a bare IP gets the default port', () => {
  const c = load(V2 + 'syncPeriod: 0s\nconfigSyncPeriod: 0s\nhealthzBindAddress: 10.0.0.1\nmetricsBindAddress: "::1"\n').config;
  assert.equal(c.syncPeriod, 30_000);
  assert.equal(c.configSyncPeriod, 900_000);
  assert.equal(c.healthzBindAddress, '10.0.0.1:10256');
  assert.equal(c.metricsBindAddress, '[::1]:10249');
  const v6 = load(V1 + 'bindAddress: "fd00::1"\n').config;
  assert.equal(v6.healthzBindAddress, '[::]:10256');
  assert.equal(v6.metricsBindAddress, '[::1]:10249');
  // SetDefaults_KubeProxyConfiguration: `if obj.HealthzBindAddress == ""` -> the default; only a flag disables.
  for (const head of [V1, V2]) {
    const blank = load(head + 'healthzBindAddress: ""\nmetricsBindAddress: ""\n').config;
    assert.equal(blank.healthzBindAddress, '0.0.0.0:10256');
    assert.equal(blank.metricsBindAddress, '127.0.0.1:10249');
  }
});

test('dropped fields: portRange is ignored with a warning, bindAddress becomes nodeIPOverride', () => {
  const r = load(V1 + 'portRange: 30000-32767\nbindAddress: 10.9.9.9\n');
  assert.deepEqual(r.warnings, ['portRange: ignored; it is dropped in v1alpha2 and had no effect (value "30000-32767")']);
  const out = parse(toV1alpha2Yaml(r.config));
  assert.equal('portRange' in out, false);
  assert.equal('bindAddress' in out, false);
  assert.deepEqual(out.nodeIPOverride, ['10.9.9.9']);
});

const V1_SAMPLES = [
  '',
  'mode: ipvs\n',
  'mode: ipvs\nipvs:\n  syncPeriod: 1m\n  minSyncPeriod: 2s\n  scheduler: lc\n  excludeCIDRs: [10.0.0.0/8]\n  strictARP: true\n  tcpTimeout: 10s\niptables:\n  masqueradeBit: 12\n  masqueradeAll: true\n',
  'mode: nftables\nnftables:\n  masqueradeAll: true\n  masqueradeBit: 3\n  syncPeriod: 20s\nclusterCIDR: 10.0.0.0/8,fd00::/48\nbindAddress: 10.0.0.9\nconntrack:\n  min: 0\n  tcpBeLiberal: true\noomScoreAdj: 10\nwindowsRunAsService: true\n',
  'iptables:\n  localhostNodePorts: false\n  syncPeriod: 11s\nfeatureGates:\n  Foo: true\nnodePortAddresses: [primary]\ndetectLocalMode: BridgeInterface\ndetectLocal:\n  bridgeInterface: cbr0\nlogging:\n  format: text\n  verbosity: 4\n',
];

test('round trip v1alpha1 -> v1alpha2 -> v1alpha1 keeps every value (explicit documents)', () => {
  for (const sample of V1_SAMPLES) {
    // The explicit form of the sample: every field written out by the converter itself.
    const first = toV1alpha1Yaml(load(V1 + sample).config);
    assert.deepEqual(first.lost, [], sample);
    const second = toV1alpha1Yaml(load(first.yaml).config);
    assert.deepEqual(parse(second.yaml), parse(first.yaml), sample);
    // And the values the operator wrote survive.
    const written = parse(V1 + sample);
    const back = parse(first.yaml);
    for (const [k, v] of Object.entries(written)) {
      if (typeof v !== 'object') assert.deepEqual(back[k], v, `${k} in ${sample}`);
    }
  }
});

test('round trip v1alpha1 -> v1alpha2 -> v1alpha2 file gives the same effective configuration', () => {
  for (const sample of V1_SAMPLES) {
    const viaV1 = load(V1 + sample).config;
    const viaV2 = load(toV1alpha2Yaml(viaV1)).config;
    assert.deepEqual(viaV2, viaV1, sample);
  }
});

test('v1alpha2 -> v1alpha1 names what v1alpha1 cannot carry', () => {
  const c = load(V2 + 'nodeIPOverride: [10.0.0.1, "fd00::1"]\nipFamilyPolicy: PreferDualStack\nconfigHardFail: false\nipvs:\n  masqueradeBit: 3\n').config;
  assert.deepEqual(toV1alpha1Yaml(c).lost.sort(), ['configHardFail', 'ipFamilyPolicy', 'ipvs.masqueradeBit', 'nodeIPOverride']);
  const lossless = load(V2 + 'nodeIPOverride: [10.0.0.1]\nmode: ipvs\nsyncPeriod: 40s\nlinux:\n  masqueradeAll: true\n').config;
  const { yaml, lost } = toV1alpha1Yaml(lossless);
  assert.deepEqual(lost, []);
  const v1 = parse(yaml);
  assert.equal(v1.bindAddress, '10.0.0.1');
  assert.equal(v1.ipvs.syncPeriod, '40s');
  assert.equal(v1.iptables.masqueradeAll, true);
  // Back to v1alpha2, v1alpha1's defaults for the fields that changed default are explicit, so nothing moves.
  assert.deepEqual(load(yaml).config, { ...lossless });
});

test('JSON files decode like YAML', () => {
  const json = JSON.stringify({
    apiVersion: 'kubeproxy.config.k8s.io/v1alpha2', kind: 'KubeProxyConfiguration', mode: 'ipvs', syncPeriod: '15s',
    linux: { conntrack: { maxPerCore: 0 } },
  });
  const c = load(json).config;
  assert.equal(c.mode, 'ipvs');
  assert.equal(c.syncPeriod, 15_000);
  assert.equal(c.linux.conntrack.maxPerCore, 0);
});

test('YAML 1.1 scalars as upstream reads them: yes/on are booleans, dates and 1:30 stay strings', () => {
  const c = load(V2 + 'mode: ipvs\nipvs:\n  strictARP: yes\nlinux:\n  masqueradeAll: on\n  oomScoreAdj: 0x10\nhostnameOverride: 2001-12-14\nshowHiddenMetricsForVersion: "1.30"\n').config;
  assert.equal(c.ipvs.strictARP, true);
  assert.equal(c.linux.masqueradeAll, true);
  assert.equal(c.linux.oomScoreAdj, 16);
  assert.equal(c.hostnameOverride, '2001-12-14');
  assert.deepEqual(withFile(V2 + 'hostnameOverride: 1:30\n').config.hostnameOverride, '1:30');
});

test('anchors and aliases read as their targets', () => {
  const c = load(V2 + 'nodePortAddresses: &nets [10.0.0.0/8]\ndetectLocal:\n  clusterCIDRs: *nets\nsyncPeriod: &p 45s\nconfigSyncPeriod: *p\n').config;
  assert.deepEqual(c.detectLocal.clusterCIDRs, ['10.0.0.0/8']);
  assert.equal(c.configSyncPeriod, 45_000);
});

// What kubeadm writes into the kube-proxy ConfigMap (v1alpha1, every field, nulls and all).
const KUBEADM_V1ALPHA1 = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
bindAddress: 0.0.0.0
bindAddressHardFail: false
clientConnection:
  acceptContentTypes: ""
  burst: 0
  contentType: ""
  kubeconfig: /var/lib/kube-proxy/kubeconfig.conf
  qps: 0
clusterCIDR: 10.244.0.0/16
configSyncPeriod: 0s
conntrack:
  maxPerCore: null
  min: null
  tcpBeLiberal: false
  tcpCloseWaitTimeout: null
  tcpEstablishedTimeout: null
  udpStreamTimeout: 0s
  udpTimeout: 0s
detectLocal:
  bridgeInterface: ""
  interfaceNamePrefix: ""
detectLocalMode: ""
enableProfiling: false
healthzBindAddress: ""
hostnameOverride: ""
iptables:
  localhostNodePorts: null
  masqueradeAll: false
  masqueradeBit: null
  minSyncPeriod: 0s
  syncPeriod: 0s
ipvs:
  excludeCIDRs: null
  minSyncPeriod: 0s
  scheduler: ""
  strictARP: false
  syncPeriod: 0s
  tcpFinTimeout: 0s
  tcpTimeout: 0s
  udpTimeout: 0s
kind: KubeProxyConfiguration
logging:
  flushFrequency: 0
  options:
    json:
      infoBufferSize: "0"
    text:
      infoBufferSize: "0"
  verbosity: 0
metricsBindAddress: ""
mode: ""
nftables:
  masqueradeAll: false
  masqueradeBit: null
  minSyncPeriod: 0s
  syncPeriod: 0s
nodePortAddresses: null
oomScoreAdj: null
portRange: ""
showHiddenMetricsForVersion: ""
winkernel:
  enableDSR: false
  forwardHealthCheckVip: false
  networkName: ""
  rootHnsEndpointName: ""
  sourceVip: ""
`;

test("kubeadm's v1alpha1 ConfigMap loads cleanly and gets upstream's defaults", () => {
  const r = load(KUBEADM_V1ALPHA1);
  assert.deepEqual(r.warnings, []);
  const c = r.config;
  assert.equal(c.clientConnection.kubeconfig, '/var/lib/kube-proxy/kubeconfig.conf');
  assert.equal(c.clientConnection.qps, 5);
  assert.equal(c.clientConnection.burst, 10, 'Go cannot tell 0 from unset: upstream defaults it');
  assert.deepEqual(c.detectLocal.clusterCIDRs, ['10.244.0.0/16']);
  assert.equal(c.syncPeriod, 30_000);
  assert.equal(c.minSyncPeriod, 1000);
  assert.equal(c.configSyncPeriod, 900_000);
  assert.equal(c.linux.conntrack.maxPerCore, 32768);
  assert.equal(c.linux.conntrack.tcpEstablishedTimeout, 86_400_000);
  assert.equal(c.linux.oomScoreAdj, -999);
  assert.equal(c.iptables.masqueradeBit, 14);
  assert.equal(c.iptables.localhostNodePorts, true);
  assert.equal(c.healthzBindAddress, '0.0.0.0:10256');
  assert.equal(c.metricsBindAddress, '127.0.0.1:10249');
  assert.equal(c.logging.flushFrequency, 5000);
});

test('fields older releases wrote are ignored with a warning, and flushFrequency may be nanoseconds', () => {
  const r = load(V1 + 'udpIdleTimeout: 250ms\nlogging:\n  flushFrequency: 2000000000\n');
  assert.deepEqual(r.warnings, ['udpIdleTimeout: ignored: removed from upstream kube-proxy with the userspace proxy (1.26) (line 3)']);
  assert.equal(r.config.logging.flushFrequency, 2000);
});
