// V1Service -> ServicePorts: one per (port x IP family served by this node), following upstream's
// newBaseServiceInfo / serviceToServiceMap (pkg/proxy/service.go). Broken input is logged and skipped.
import type { V1Service, V1ServicePort } from '@kubernetes/client-node';
import { EMPTY, keptList } from './compact';
import { servicePortKey } from './keys';
import { cidrFamilyOf, ipFamilyOf } from './ip';
import { isObject, listOf, notAList } from './shape';
import type { IPFamily, ModelLog, ObjectRef, Protocol, ServicePort } from './types';

export const DEFAULT_AFFINITY_TIMEOUT_SECONDS = 10800;
const MAX_AFFINITY_TIMEOUT_SECONDS = 86400;
/** Above this many ports a Service is treated as hostile input and skipped (upstream has no cap). */
export const DEFAULT_MAX_PORTS_PER_SERVICE = 4096;
export const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

export interface ServiceConversionOptions {
  maxPortsPerService?: number;
}

/** What every port of one Service shares within one family. */
type FamilyFields = Pick<
  ServicePort,
  'externalIPs' | 'loadBalancerIPs' | 'loadBalancerSourceRanges'
>;

type SharedFields = Pick<
  ServicePort,
  | 'created'
  | 'uid'
  | 'affinityTimeoutSeconds'
  | 'externalPolicyLocal'
  | 'internalPolicyLocal'
  | 'healthCheckNodePort'
  | 'trafficDistribution'
>;

interface ValidPort {
  portName: string;
  protocol: Protocol;
  port: number;
  nodePort: number;
}

export function serviceRef(svc: V1Service): ObjectRef {
  return { kind: 'Service', namespace: svc.metadata?.namespace, name: svc.metadata?.name };
}

/**
 * The ServicePorts of `svc` for the families this node serves. Empty for ExternalName and headless
 * Services, Services without a cluster IP, and broken ones (logged).
 */
export function servicePortsFromService(
  svc: V1Service,
  families: readonly IPFamily[],
  log: ModelLog,
  opts: ServiceConversionOptions = {},
): ServicePort[] {
  const namespace = svc.metadata?.namespace;
  const name = svc.metadata?.name;
  const ref = serviceRef(svc);
  if (!namespace || !name) {
    log.warn(ref, 'Service without metadata.namespace/metadata.name; skipped');
    return [];
  }
  if (!isObject(svc.spec)) {
    log.warn({ ...ref, field: 'spec' }, 'Service without a spec; skipped');
    return [];
  }
  if (shouldSkip(svc)) return [];
  const unknownFamilies = listOf<unknown>(svc.spec.ipFamilies).filter((f) => f !== 'IPv4' && f !== 'IPv6');
  if (unknownFamilies.length > 0) log.warn({ ...ref, field: 'spec.ipFamilies', value: unknownFamilies }, 'unknown IP family; ignored');
  reportClusterIPs(svc, ref, log);
  reportUnknownType(svc, ref, log);
  const ports = validPorts(svc, ref, log, opts.maxPortsPerService ?? DEFAULT_MAX_PORTS_PER_SERVICE);
  if (ports.length === 0) return [];
  const shared = sharedFields(svc, ref, log);
  const byFamily = familyFields(svc, ref, log);
  const out: ServicePort[] = [];
  for (const family of families) {
    const clusterIP = clusterIPByFamily(svc, family);
    if (clusterIP === undefined) continue;
    if (ipFamilyOf(clusterIP) !== family) continue; // named by reportClusterIPs
    for (const p of ports) out.push(servicePort(namespace, name, family, clusterIP, p, byFamily[family], shared));
  }
  return out;
}

/**
 * Written field by field in one literal, not spread from the shared parts: a spread into a literal
 * puts the spread fields in a property store of their own (64 bytes a ServicePort, docs/memory.md).
 */
function servicePort(namespace: string, name: string, family: IPFamily, clusterIP: string, p: ValidPort, f: FamilyFields, s: SharedFields): ServicePort {
  const sp: ServicePort = {
    key: servicePortKey(namespace, name, p.portName, p.protocol, family),
    namespace,
    name,
    portName: p.portName,
    protocol: p.protocol,
    family,
    clusterIP,
    port: p.port,
    nodePort: p.nodePort,
    externalIPs: f.externalIPs,
    loadBalancerIPs: f.loadBalancerIPs,
    loadBalancerSourceRanges: f.loadBalancerSourceRanges,
    affinityTimeoutSeconds: s.affinityTimeoutSeconds,
    externalPolicyLocal: s.externalPolicyLocal,
    internalPolicyLocal: s.internalPolicyLocal,
    healthCheckNodePort: s.healthCheckNodePort,
    // In the literal even when unknown (undefined): a field added later would cost a property store per ServicePort.
    created: s.created,
    uid: s.uid,
  };
  // Rare: left absent, not undefined, as before (the objects compare equal to what they were).
  if (s.trafficDistribution !== undefined) sp.trafficDistribution = s.trafficDistribution;
  return sp;
}

function shouldSkip(svc: V1Service): boolean {
  const spec = svc.spec;
  if (!spec || spec.type === 'ExternalName') return true;
  return spec.clusterIP === 'None' || (!spec.clusterIP && listOf(spec.clusterIPs).length === 0);
}

/** Upstream's GetClusterIPByFamily: clusterIPs[i] for ipFamilies[i]; clusterIP alone for old objects. */
export function clusterIPByFamily(svc: V1Service, family: IPFamily): string | undefined {
  const spec = svc.spec ?? {};
  const families = listOf<string>(spec.ipFamilies);
  if (families.length === 0) {
    const ip = spec.clusterIP;
    if (typeof ip !== 'string' || !ip || ip === 'None') return undefined;
    return (family === 'IPv6') === ip.includes(':') ? ip : undefined;
  }
  const i = families.indexOf(family);
  if (i < 0) return undefined;
  const ip = listOf<string>(spec.clusterIPs)[i] ?? (i === 0 ? spec.clusterIP : undefined);
  return typeof ip === 'string' && ip && ip !== 'None' ? ip : undefined;
}

/**
 * Names what clusterIPByFamily cannot use, for every family in the object (served by this node or
 * not), once: an address not of its family (that family is not served), a family listed twice in
 * spec.ipFamilies (the first one's cluster IP is used, as upstream's GetClusterIPByFamily), a
 * spec.clusterIPs entry without a spec.ipFamilies entry, and a spec.clusterIP other than
 * spec.clusterIPs[0] (clusterIPs[0] is used, as upstream). The API server refuses all of them.
 */
function reportClusterIPs(svc: V1Service, ref: ObjectRef, log: ModelLog): void {
  const families = listOf<unknown>(svc.spec?.ipFamilies);
  const ips = listOf<unknown>(svc.spec?.clusterIPs);
  const clusterIP = svc.spec?.clusterIP;
  if (families.length === 0) {
    // An old object: spec.clusterIP alone, of its own family.
    if (typeof clusterIP === 'string' && clusterIP !== '' && clusterIP !== 'None' && ipFamilyOf(clusterIP) === undefined) {
      log.warn({ ...ref, field: 'spec.clusterIP', value: clusterIP }, 'cluster IP is not an IP address; the Service is not served');
    }
    return;
  }
  families.forEach((f, i) => {
    if (f !== 'IPv4' && f !== 'IPv6') return; // named with the unknown families
    const first = families.indexOf(f);
    if (first !== i) {
      log.warn({ ...ref, field: `spec.ipFamilies[${i}]`, value: f, ignored: ips[i] },
        `${f} listed twice in spec.ipFamilies: a Service has one cluster IP per family; spec.clusterIPs[${i}] is ignored, spec.clusterIPs[${first}] used`);
      return;
    }
    const field = i < ips.length ? `spec.clusterIPs[${i}]` : 'spec.clusterIP';
    const ip = i < ips.length ? ips[i] : i === 0 ? clusterIP : undefined;
    if (typeof ip !== 'string' || ip === '' || ip === 'None' || ipFamilyOf(ip) === f) return;
    log.warn({ ...ref, field, value: ip, family: f }, `not an ${f} address, yet spec.ipFamilies[${i}] is ${f}; the Service is not served over ${f}`);
  });
  for (let i = families.length; i < ips.length; i++) {
    log.warn({ ...ref, field: `spec.clusterIPs[${i}]`, value: ips[i] }, 'cluster IP without a spec.ipFamilies entry of its index; ignored');
  }
  if (ips.length > 0 && typeof clusterIP === 'string' && clusterIP !== '' && clusterIP !== ips[0]) {
    log.warn({ ...ref, field: 'spec.clusterIP', value: clusterIP, used: ips[0] }, 'spec.clusterIP differs from spec.clusterIPs[0]; spec.clusterIPs[0] is used, as upstream');
  }
}

const SERVICE_TYPES: readonly unknown[] = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

/**
 * An unknown spec.type changes nothing but is named: as upstream (ExternallyAccessible,
 * NeedsHealthCheck), a type other than NodePort and LoadBalancer is not externally accessible unless
 * it is ClusterIP with external IPs, so its externalTrafficPolicy is not applied and it has no
 * health-check node port; its nodePorts, external IPs and load-balancer IPs are served as given.
 */
function reportUnknownType(svc: V1Service, ref: ObjectRef, log: ModelLog): void {
  const type = svc.spec?.type;
  if (type === undefined || SERVICE_TYPES.includes(type)) return;
  log.warn({ ...ref, field: 'spec.type', value: type },
    'unknown Service type; served as upstream serves it: not externally accessible (externalTrafficPolicy not applied, no health-check node port), its nodePorts, external IPs and load-balancer IPs as given');
}

/**
 * Whether a traffic policy is Local. Upstream compares with "Local" only, so any other value is
 * Cluster; a value the API server would refuse (not Cluster or Local) is named.
 */
function policyLocal(svc: V1Service, field: 'externalTrafficPolicy' | 'internalTrafficPolicy', ref: ObjectRef, log: ModelLog): boolean {
  const value: unknown = svc.spec?.[field];
  if (value === 'Local') return true;
  if (value !== undefined && value !== '' && value !== 'Cluster') {
    log.warn({ ...ref, field: `spec.${field}`, value }, 'unknown traffic policy; Cluster assumed, as upstream (which tests for Local only)');
  }
  return false;
}

function validPorts(svc: V1Service, ref: ObjectRef, log: ModelLog, max: number): ValidPort[] {
  if (notAList(svc.spec?.ports)) {
    log.warn({ ...ref, field: 'spec.ports' }, 'spec.ports is not a list; Service skipped');
    return [];
  }
  const ports = listOf<V1ServicePort>(svc.spec?.ports);
  if (ports.length === 0) {
    log.warn(ref, 'Service has no ports; skipped');
    return [];
  }
  if (ports.length > max) {
    log.warn({ ...ref, ports: ports.length, max }, 'Service has too many ports; skipped');
    return [];
  }
  const seen = new Set<string>();
  const out: ValidPort[] = [];
  for (const [i, p] of ports.entries()) {
    const valid = validPort(p, { ...ref, field: `spec.ports[${i}]` }, log);
    if (!valid) continue;
    const id = `${valid.portName}/${valid.protocol}`;
    if (seen.has(id)) {
      log.warn({ ...ref, field: `spec.ports[${i}]`, port: id }, 'duplicate port name and protocol; port skipped');
      continue;
    }
    seen.add(id);
    out.push(valid);
  }
  return out;
}

function validPort(p: V1ServicePort, ref: ObjectRef, log: ModelLog): ValidPort | undefined {
  if (!isObject(p)) {
    log.warn(ref, 'port is not an object; port skipped');
    return undefined;
  }
  const protocol = p.protocol ?? 'TCP';
  if (!isProtocol(protocol)) {
    log.warn({ ...ref, protocol }, 'unknown protocol; port skipped');
    return undefined;
  }
  if (!isPortNumber(p.port)) {
    log.warn({ ...ref, port: p.port }, 'port must be an integer in 1..65535; port skipped');
    return undefined;
  }
  const nodePort = p.nodePort ?? 0;
  if (nodePort !== 0 && !isPortNumber(nodePort)) {
    log.warn({ ...ref, nodePort }, 'nodePort must be an integer in 1..65535; port skipped');
    return undefined;
  }
  return { portName: typeof p.name === 'string' ? p.name : '', protocol, port: p.port, nodePort };
}

export function isProtocol(value: unknown): value is Protocol {
  return value === 'TCP' || value === 'UDP' || value === 'SCTP';
}

export function isPortNumber(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 65535;
}

/** Upstream's apiservice.ExternallyAccessible. */
function externallyAccessible(svc: V1Service): boolean {
  const type = svc.spec?.type ?? 'ClusterIP';
  if (type === 'LoadBalancer' || type === 'NodePort') return true;
  return type === 'ClusterIP' && (svc.spec?.externalIPs?.length ?? 0) > 0;
}

function sharedFields(svc: V1Service, ref: ObjectRef, log: ModelLog): SharedFields {
  const spec = svc.spec ?? {};
  const externalPolicyLocal = policyLocal(svc, 'externalTrafficPolicy', ref, log) && externallyAccessible(svc);
  const uid = svc.metadata?.uid;
  return {
    created: createdSeconds(svc.metadata?.creationTimestamp),
    uid: typeof uid === 'string' && uid !== '' ? uid : undefined,
    affinityTimeoutSeconds: affinityTimeout(svc, ref, log),
    externalPolicyLocal,
    internalPolicyLocal: policyLocal(svc, 'internalTrafficPolicy', ref, log),
    healthCheckNodePort: healthCheckNodePort(svc, externalPolicyLocal, ref, log),
    ...(spec.trafficDistribution ? { trafficDistribution: spec.trafficDistribution } : {}),
  };
}

/**
 * creationTimestamp in whole seconds (its precision; a small integer, kept unboxed), or undefined
 * when absent or unreadable: such a Service counts as the newest when two claim one address.
 */
function createdSeconds(t: unknown): number | undefined {
  const ms = t instanceof Date ? t.getTime() : typeof t === 'string' ? Date.parse(t) : NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

function affinityTimeout(svc: V1Service, ref: ObjectRef, log: ModelLog): number {
  if (svc.spec?.sessionAffinity !== 'ClientIP') return 0;
  const t = svc.spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (t === undefined) return DEFAULT_AFFINITY_TIMEOUT_SECONDS;
  if (Number.isInteger(t) && t >= 1 && t <= MAX_AFFINITY_TIMEOUT_SECONDS) return t;
  log.warn(
    { ...ref, field: 'spec.sessionAffinityConfig.clientIP.timeoutSeconds', value: t },
    `session affinity timeout must be in 1..${MAX_AFFINITY_TIMEOUT_SECONDS}; using the default`,
  );
  return DEFAULT_AFFINITY_TIMEOUT_SECONDS;
}

/** Upstream's NeedsHealthCheck: LoadBalancer with externalTrafficPolicy Local. */
function healthCheckNodePort(svc: V1Service, localPolicy: boolean, ref: ObjectRef, log: ModelLog): number {
  if (svc.spec?.type !== 'LoadBalancer' || !localPolicy) return 0;
  const p = svc.spec.healthCheckNodePort ?? 0;
  if (isPortNumber(p)) return p;
  log.warn({ ...ref, field: 'spec.healthCheckNodePort', value: p }, 'Service has no valid health check node port');
  return 0;
}

function familyFields(svc: V1Service, ref: ObjectRef, log: ModelLog): Record<IPFamily, FamilyFields> {
  const externalIPs = splitByFamily(listOf<string>(svc.spec?.externalIPs), ipFamilyOf, { ...ref, field: 'spec.externalIPs' }, log);
  const lbIPs = splitByFamily(loadBalancerVIPs(svc), ipFamilyOf, { ...ref, field: 'status.loadBalancer.ingress' }, log);
  const ranges = sourceRanges(svc);
  const cidrs = splitByFamily(ranges.values, cidrFamilyOf, { ...ref, field: ranges.field }, log);
  // Kept for the Service's life, and nearly always empty: the one shared empty list then.
  const kept = (l: string[]): readonly string[] => (l.length === 0 ? EMPTY : keptList(l));
  const pick = (f: IPFamily): FamilyFields => ({
    externalIPs: kept(externalIPs[f]),
    loadBalancerIPs: kept(lbIPs[f]),
    loadBalancerSourceRanges: kept(cidrs[f]),
  });
  return { IPv4: pick('IPv4'), IPv6: pick('IPv6') };
}

/** Ingress IPs in VIP mode: `ipMode: Proxy` load balancers deliver to the node themselves. */
function loadBalancerVIPs(svc: V1Service): string[] {
  const out: string[] = [];
  for (const ing of listOf<{ ip?: string; ipMode?: string }>(svc.status?.loadBalancer?.ingress)) {
    if (!isObject(ing) || !ing.ip) continue;
    if (ing.ipMode === undefined || ing.ipMode === 'VIP') out.push(ing.ip);
  }
  return out;
}

/**
 * `spec.loadBalancerSourceRanges`, else the legacy annotation (comma-separated), as upstream's
 * GetLoadBalancerSourceRanges; whitespace trimmed since validation lets padding through.
 */
function sourceRanges(svc: V1Service): { values: string[]; field: string } {
  const spec = listOf<unknown>(svc.spec?.loadBalancerSourceRanges).map((s) => String(s).trim()).filter((s) => s !== '');
  if (spec.length > 0) return { values: spec, field: 'spec.loadBalancerSourceRanges' };
  const annotation = String(svc.metadata?.annotations?.[SOURCE_RANGES_ANNOTATION] ?? '');
  const values = annotation.split(',').map((s) => s.trim()).filter((s) => s !== '');
  return { values, field: `metadata.annotations[${SOURCE_RANGES_ANNOTATION}]` };
}

function splitByFamily(
  values: readonly string[],
  familyOf: (v: string) => IPFamily | undefined,
  ref: ObjectRef,
  log: ModelLog,
): Record<IPFamily, string[]> {
  const out: Record<IPFamily, string[]> = { IPv4: [], IPv6: [] };
  for (const v of values) {
    const f = typeof v === 'string' ? familyOf(v) : undefined;
    if (f === undefined) log.warn({ ...ref, value: v }, 'invalid address; ignored');
    else if (!out[f].includes(v)) out[f].push(v);
  }
  return out;
}
