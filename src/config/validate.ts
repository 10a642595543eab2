// Validation of the effective (v1alpha2-shaped) configuration, after upstream's
// pkg/proxy/apis/config/validation rules, with every message naming its field.
import type { FieldError } from './mode-section';
import { MODES, BLANK_MODE_MEANS, RUNNABLE_MODES } from './modes';
import { cidrFamily, hostPortProblem, ipFamily, isCIDR } from './net';
import type { KubeProxyConfiguration } from './types';
import { validateLoggingOptions } from './logging-rules';

const DETECT_LOCAL_MODES = ['ClusterCIDR', 'NodeCIDR', 'BridgeInterface', 'InterfaceNamePrefix'];
const IP_FAMILY_POLICIES = ['SingleStack', 'PreferDualStack', 'RequireDualStack'];
const LOG_FORMATS = ['json', 'text'];

type Errs = FieldError[];

function nonNegative(errs: Errs, path: string, v: number): void {
  if (v < 0) errs.push({ path, message: 'must be greater than or equal to 0' });
}

function validateMode(c: KubeProxyConfiguration, errs: Errs): void {
  if (c.mode === '' || (RUNNABLE_MODES as readonly string[]).includes(c.mode)) return;
  const allowed = `must be ${RUNNABLE_MODES.map((m) => `"${m}"`).join(' or ')} or blank (blank means ${BLANK_MODE_MEANS})`;
  const message = c.mode === 'iptables'
    ? '"iptables" mode is not provided by kube-proxy-native: use mode "nftables" (its successor; blank means it too). '
      + 'To move a node from upstream\'s iptables mode: stop the old proxy, remove its rules with '
      + '`kube-proxy-native --cleanup` (it prints the command to run for iptables-legacy rules), then start '
      + 'kube-proxy-native (docs/migrating.md)'
    : `unsupported value "${c.mode}": ${allowed}`;
  errs.push({ path: 'mode', message });
}

function validatePeriods(c: KubeProxyConfiguration, errs: Errs): void {
  if (c.syncPeriod <= 0) errs.push({ path: 'syncPeriod', message: 'must be greater than 0' });
  if (c.minSyncPeriod < 0) errs.push({ path: 'minSyncPeriod', message: 'must be greater than or equal to 0' });
  else if (c.syncPeriod > 0 && c.minSyncPeriod > c.syncPeriod) {
    errs.push({ path: 'syncPeriod', message: 'must be greater than or equal to minSyncPeriod', reset: ['syncPeriod', 'minSyncPeriod'] });
  }
  if (c.configSyncPeriod <= 0) errs.push({ path: 'configSyncPeriod', message: 'must be greater than 0' });
}

function validateAddresses(c: KubeProxyConfiguration, errs: Errs): void {
  for (const k of ['healthzBindAddress', 'metricsBindAddress'] as const) {
    // Empty disables the server.
    const p = c[k] === '' ? null : hostPortProblem(c[k]);
    if (p) errs.push({ path: k, message: p });
  }
  const npa = c.nodePortAddresses;
  npa.forEach((a, i) => {
    if (a === 'primary') {
      if (npa.length > 1) errs.push({ path: `nodePortAddresses[${i}]`, message: '"primary" cannot be combined with CIDRs', reset: ['nodePortAddresses'] });
    } else if (!isCIDR(a)) {
      errs.push({ path: `nodePortAddresses[${i}]`, message: `must be a valid CIDR or "primary", got "${a}"`, reset: ['nodePortAddresses'] });
    }
  });
  const ips = c.nodeIPOverride;
  ips.forEach((ip, i) => {
    if (ipFamily(ip) === 0) errs.push({ path: `nodeIPOverride[${i}]`, message: `must be a valid IP address, got "${ip}"`, reset: ['nodeIPOverride'] });
  });
  if (ips.length > 2) errs.push({ path: 'nodeIPOverride', message: `must hold at most 2 IPs (one per family), got ${ips.length}` });
  else if (ips.length === 2 && ipFamily(ips[0]) !== 0 && ipFamily(ips[1]) !== 0 && ipFamily(ips[0]) === ipFamily(ips[1])) {
    errs.push({ path: 'nodeIPOverride', message: 'two IPs must be of different families (one IPv4, one IPv6)' });
  }
}

function validateDetectLocal(c: KubeProxyConfiguration, errs: Errs): void {
  const m = c.detectLocalMode;
  if (m !== '' && !DETECT_LOCAL_MODES.includes(m)) {
    errs.push({ path: 'detectLocalMode', message: `unsupported value "${m}": must be one of ${DETECT_LOCAL_MODES.join(', ')}, or blank` });
  }
  if (m === 'BridgeInterface' && c.detectLocal.bridgeInterface === '') {
    errs.push({ path: 'detectLocal.bridgeInterface', message: 'must not be empty when detectLocalMode is BridgeInterface', reset: ['detectLocalMode'] });
  }
  if (m === 'InterfaceNamePrefix' && c.detectLocal.interfaceNamePrefix === '') {
    errs.push({ path: 'detectLocal.interfaceNamePrefix', message: 'must not be empty when detectLocalMode is InterfaceNamePrefix', reset: ['detectLocalMode'] });
  }
  const cidrs = c.detectLocal.clusterCIDRs;
  cidrs.forEach((x, i) => {
    if (!isCIDR(x)) errs.push({ path: `detectLocal.clusterCIDRs[${i}]`, message: `must be a valid CIDR block (e.g. 10.100.0.0/16 or fde4:8dba:82e1::/48), got "${x}"`, reset: ['detectLocal.clusterCIDRs'] });
  });
  if (cidrs.length > 2) {
    errs.push({ path: 'detectLocal.clusterCIDRs', message: `only one CIDR allowed or a valid dual-stack pair, got ${cidrs.length}` });
  } else if (cidrs.length === 2 && cidrs.every(isCIDR) && cidrFamily(cidrs[0]) === cidrFamily(cidrs[1])) {
    errs.push({ path: 'detectLocal.clusterCIDRs', message: 'must be a valid dual-stack pair (one IPv4 and one IPv6 CIDR)' });
  }
}

function validateLinux(c: KubeProxyConfiguration, errs: Errs): void {
  const oom = c.linux.oomScoreAdj;
  if (oom < -1000 || oom > 1000) errs.push({ path: 'linux.oomScoreAdj', message: `must be within the range [-1000, 1000], got ${oom}` });
  const ct = c.linux.conntrack;
  for (const k of ['maxPerCore', 'min', 'tcpEstablishedTimeout', 'tcpCloseWaitTimeout', 'udpTimeout', 'udpStreamTimeout'] as const) {
    nonNegative(errs, `linux.conntrack.${k}`, ct[k]);
  }
}

function validateMisc(c: KubeProxyConfiguration, errs: Errs): void {
  if (c.clientConnection.burst < 0) errs.push({ path: 'clientConnection.burst', message: 'must be greater than or equal to 0' });
  if (c.clientConnection.qps < 0) errs.push({ path: 'clientConnection.qps', message: 'must be greater than or equal to 0' });
  for (const name of Object.keys(c.featureGates)) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(name)) {
      errs.push({ path: `featureGates.${name}`, message: 'is not a valid feature gate name', reset: ['featureGates'] });
    }
  }
  if (!LOG_FORMATS.includes(c.logging.format)) {
    errs.push({ path: 'logging.format', message: `unsupported log format "${c.logging.format}": must be json or text` });
  }
  if (c.logging.flushFrequency <= 0) errs.push({ path: 'logging.flushFrequency', message: 'must be greater than 0' });
  if (c.ipFamilyPolicy !== '' && !IP_FAMILY_POLICIES.includes(c.ipFamilyPolicy)) {
    errs.push({ path: 'ipFamilyPolicy', message: `unsupported value "${c.ipFamilyPolicy}": must be one of ${IP_FAMILY_POLICIES.join(', ')}, or blank` });
  }
  const v = c.showHiddenMetricsForVersion;
  if (v !== '' && !/^\d+\.\d+$/.test(v)) {
    errs.push({ path: 'showHiddenMetricsForVersion', message: `must be <major>.<minor> (e.g. "1.33"), got "${v}"` });
  }
}

export function validate(c: KubeProxyConfiguration): FieldError[] {
  const errs: FieldError[] = [];
  validateMode(c, errs);
  validatePeriods(c, errs);
  validateAddresses(c, errs);
  validateDetectLocal(c, errs);
  validateLinux(c, errs);
  validateMisc(c, errs);
  errs.push(...validateLoggingOptions(c));
  for (const m of MODES) errs.push(...m.validate((c as any)[m.name], { mode: c.mode }));
  return errs;
}
