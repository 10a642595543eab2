// V1EndpointSlice -> endpoints per ServicePort key, following upstream's endpointslicecache.go.
// A slice is parsed once on arrival (ParsedSlice); a Service's slices are merged on demand.
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { sharedPorts, type SlicePort } from './slice-ports';
import { endpointRecord, sharedNameList, type SliceEndpoint } from './endpoint-record';
import { endpointKey, serviceName, servicePortKey } from './keys';
import { ipFamilyOf, isIPFamily } from './ip';
import { isPortNumber, isProtocol } from './service-conversion';
import { isObject, listOf, notAList } from './shape';
import type { Endpoint, IPFamily, ModelLog, ObjectRef } from './types';

export const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';
export const TRIGGER_TIME_ANNOTATION = 'endpoints.kubernetes.io/last-change-trigger-time';

export type { SliceEndpoint } from './endpoint-record';
export type { SlicePort } from './slice-ports';

export interface ParsedSlice {
  namespace: string;
  serviceName: string;
  name: string;
  family: IPFamily;
  /** Shared with every slice that has the same ports (slice-ports.ts). */
  ports: readonly SlicePort[];
  endpoints: SliceEndpoint[];
}

export interface SliceIdentity {
  /** `namespace/serviceName` of the owning Service. */
  service: string;
  namespace: string;
  serviceName: string;
  name: string;
}

export function sliceRef(slice: V1EndpointSlice): ObjectRef {
  return { kind: 'EndpointSlice', namespace: slice.metadata?.namespace, name: slice.metadata?.name };
}

/** Which Service a slice belongs to (label `kubernetes.io/service-name`); undefined when unknowable. */
export function sliceIdentity(slice: V1EndpointSlice, log: ModelLog): SliceIdentity | undefined {
  const namespace = slice.metadata?.namespace;
  const name = slice.metadata?.name;
  const svc = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  if (!namespace || !name) {
    log.warn(sliceRef(slice), 'EndpointSlice without metadata.namespace/metadata.name; skipped');
    return undefined;
  }
  if (!svc) {
    log.warn(sliceRef(slice), `EndpointSlice without the ${SERVICE_NAME_LABEL} label; skipped`);
    return undefined;
  }
  return { service: serviceName(namespace, svc), namespace, serviceName: svc, name };
}

/**
 * Parse a slice for a node named `nodeName`. Undefined when the slice carries nothing we can use
 * (FQDN address type, no identity); bad ports and endpoints inside it are dropped one by one.
 */
export function parseEndpointSlice(
  slice: V1EndpointSlice,
  nodeName: string,
  log: ModelLog,
): ParsedSlice | undefined {
  const id = sliceIdentity(slice, log);
  if (!id) return undefined;
  const ref = sliceRef(slice);
  const family = slice.addressType;
  if (!isIPFamily(family)) {
    if (family !== 'FQDN') log.warn({ ...ref, addressType: family }, 'unknown addressType; slice skipped');
    return undefined;
  }
  const ports = slicePorts(slice, ref, log);
  return {
    namespace: id.namespace,
    serviceName: id.serviceName,
    name: id.name,
    family,
    ports: sharedPorts(ports),
    endpoints: sortedByKey(sliceEndpoints(slice, family, nodeName, ref, log, ports[0]?.port)),
  };
}

/**
 * In the merged lists' order (by `ip:port`), exactly sized: a Service's one slice then gives its
 * first port's merged list as this very list (mergeSlices), not a copy.
 */
function sortedByKey(eps: SliceEndpoint[]): SliceEndpoint[] {
  const keyed = eps.map((ep) => [endpointKey(ep.ip, ep.port ?? 0), ep] as const);
  return keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ep]) => ep);
}

function slicePorts(slice: V1EndpointSlice, ref: ObjectRef, log: ModelLog): SlicePort[] {
  const out: SlicePort[] = [];
  if (notAList(slice.ports)) log.warn({ ...ref, field: 'ports' }, 'ports is not a list; the slice serves no port');
  for (const [i, p] of listOf<NonNullable<V1EndpointSlice['ports']>[number]>(slice.ports).entries()) {
    const at = { ...ref, field: `ports[${i}]` };
    const protocol = isObject(p) ? p.protocol ?? 'TCP' : undefined;
    if (!isObject(p)) {
      log.warn(at, 'port is not an object; port skipped');
    } else if (!isProtocol(protocol)) {
      log.warn({ ...at, protocol }, 'unknown protocol; port skipped');
    } else if (!isPortNumber(p.port)) {
      log.warn({ ...at, port: p.port }, 'port must be an integer in 1..65535; port skipped');
    } else {
      out.push({ portName: typeof p.name === 'string' ? p.name : '', protocol, port: p.port });
    }
  }
  return out;
}

function sliceEndpoints(
  slice: V1EndpointSlice,
  family: IPFamily,
  nodeName: string,
  ref: ObjectRef,
  log: ModelLog,
  firstPort: number | undefined,
): SliceEndpoint[] {
  const seen = new Set<string>();
  const out: SliceEndpoint[] = [];
  if (notAList(slice.endpoints)) log.warn({ ...ref, field: 'endpoints' }, 'endpoints is not a list; the slice has no endpoint');
  for (const [i, ep] of listOf<NonNullable<V1EndpointSlice['endpoints']>[number]>(slice.endpoints).entries()) {
    const at = { ...ref, field: `endpoints[${i}]` };
    if (!isObject(ep)) {
      log.warn(at, 'endpoint is not an object; skipped');
      continue;
    }
    // Upstream uses the first address only; the API allows exactly one for IP address types.
    const ip = listOf<string>(ep.addresses)[0];
    if (typeof ip !== 'string' || !ip) {
      log.warn(at, 'endpoint without addresses; skipped');
      continue;
    }
    if (ipFamilyOf(ip) !== family) {
      log.warn({ ...at, address: ip, addressType: family }, 'endpoint address is not a valid address of the slice addressType; skipped');
      continue;
    }
    if (seen.has(ip)) {
      log.warn({ ...at, address: ip }, 'duplicate endpoint address in slice; skipped');
      continue;
    }
    seen.add(ip);
    out.push(sliceEndpoint(ip, ep, nodeName, firstPort));
  }
  return out;
}

/**
 * One endpoint of a slice. It carries the slice's first port already, so the merged list of that
 * port shares this object instead of copying it (withPort): a one-port slice (the common case)
 * makes no copy, a multi-port slice one per further port.
 */
function sliceEndpoint(ip: string, ep: NonNullable<V1EndpointSlice['endpoints']>[number], nodeName: string, firstPort: number | undefined): SliceEndpoint {
  const c = isObject(ep.conditions) ? ep.conditions : {};
  const flag = (v: unknown, dflt: boolean): boolean => (typeof v === 'boolean' ? v : dflt);
  // Upstream's nil defaults (newEndpointSliceInfo): ready and serving default to true, terminating to false.
  const ready = flag(c.ready, true);
  const serving = flag(c.serving, true);
  const terminating = flag(c.terminating, false);
  const isLocal = nodeName !== '' && ep.nodeName === nodeName;
  const out = endpointRecord({
    ip, ready, serving, terminating, isLocal,
    nodeName: typeof ep.nodeName === 'string' && ep.nodeName ? ep.nodeName : undefined,
    zone: typeof ep.zone === 'string' && ep.zone ? ep.zone : undefined,
  }, firstPort);
  const hints = isObject(ep.hints) ? ep.hints : {};
  const zoneHints = names(hints.forZones);
  if (zoneHints) out.zoneHints = zoneHints;
  const nodeHints = names(hints.forNodes);
  if (nodeHints) out.nodeHints = nodeHints;
  return out;
}

function names(list: unknown): readonly string[] | undefined {
  const given = listOf<unknown>(list).map((h) => (isObject(h) ? h.name : undefined));
  const out = [...new Set(given.filter((n): n is string => typeof n === 'string' && n !== ''))].sort();
  return out.length > 0 ? sharedNameList(out) : undefined;
}

/**
 * The slice's `last-change-trigger-time`, undefined when absent or unparseable (logged). Read apart
 * from the parsed slice, which is kept: the time is needed once, on arrival (docs/memory.md).
 */
export function sliceTriggerTime(slice: V1EndpointSlice, log: ModelLog): Date | undefined {
  const ref = sliceRef(slice);
  const raw = slice.metadata?.annotations?.[TRIGGER_TIME_ANNOTATION];
  if (raw === undefined) return undefined;
  const t = new Date(raw);
  if (!Number.isNaN(t.getTime())) return t;
  log.warn({ ...ref, annotation: TRIGGER_TIME_ANNOTATION, value: raw }, 'unparseable trigger time; ignored');
  return undefined;
}

/**
 * Merge the slices of one Service into endpoints per ServicePort key, sorted by `ip:port`. An
 * endpoint listed by several slices (normal while the controller moves it) is kept once,
 * preferring the local, then the ready, then the serving copy, so the result is deterministic.
 */
export function mergeSlices(slices: Iterable<ParsedSlice>): Map<string, Endpoint[]> {
  const byKey = new Map<string, Map<string, Endpoint>>();
  const ordered = [...slices].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const s of ordered) {
    for (const p of s.ports) {
      const key = servicePortKey(s.namespace, s.serviceName, p.portName, p.protocol, s.family);
      let set = byKey.get(key);
      if (!set) byKey.set(key, (set = new Map()));
      for (const base of s.endpoints) addPreferred(set, withPort(base, p.port));
    }
  }
  const out = new Map<string, Endpoint[]>();
  for (const [key, set] of byKey) {
    if (set.size === 0) continue;
    const merged = [...set.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, ep]) => ep);
    out.set(key, ordered.length === 1 ? sameOrMerged(ordered[0].endpoints, merged) : merged);
  }
  return out;
}

/** The slice's own list when the merge holds exactly its objects in its order (one slice, first port). */
function sameOrMerged(own: readonly SliceEndpoint[], merged: Endpoint[]): Endpoint[] {
  const same = own.length === merged.length && merged.every((ep, i) => ep === own[i]);
  return same ? (own as Endpoint[]) : merged;
}

/**
 * The endpoint on one port. Written out field by field, not spread: V8 gives a spread copy of an
 * object that gained properties after its literal a hidden class and property store of its own,
 * which doubled the model's endpoint memory (6 endpoints x 44k Services: measured in docs/memory.md).
 */
function withPort(base: SliceEndpoint, port: number): Endpoint {
  if (base.port === port) return base as Endpoint;
  const ep = endpointRecord(base, port) as Endpoint;
  if (base.zoneHints !== undefined) ep.zoneHints = base.zoneHints;
  if (base.nodeHints !== undefined) ep.nodeHints = base.nodeHints;
  return ep;
}

function addPreferred(set: Map<string, Endpoint>, ep: Endpoint): void {
  const k = endpointKey(ep.ip, ep.port);
  const old = set.get(k);
  if (!old || rank(ep) > rank(old)) set.set(k, ep);
}

function rank(ep: Endpoint): number {
  return (ep.isLocal ? 4 : 0) + (ep.ready ? 2 : 0) + (ep.serving ? 1 : 0);
}
