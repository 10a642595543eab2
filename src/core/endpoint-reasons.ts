// For `explain`: every endpoint a Service's EndpointSlices list, and whether this node uses it for
// one ServicePort (cluster-wide traffic, Local-policy traffic), with the reason when it does not.
//
// The model keeps less than explain must show: slices are parsed (endpoints without a valid address
// of the slice's family, and duplicates, are dropped with a warning), merged per ServicePort key
// (endpoints of the other family, and of slices without this port, go to other keys or nowhere),
// and the snapshot holds only the selection. So the input is the Service's EndpointSlices as the API
// server lists them; they go through the model's own parse, merge and `selectEndpoints`, and the
// reasons are derived from the same facts. What is "used" is always the selection's answer; a
// derived reason that disagrees with it is reported as `unexplained`, never papered over.
import type { V1EndpointSlice } from '@kubernetes/client-node';
import { silentLog } from '../base/log';
import { mergeSlices, parseEndpointSlice, sliceIdentity, type ParsedSlice } from './endpoint-conversion';
import {
  selectEndpoints, topologyModeFromHints, usesClusterEndpoints, usesLocalEndpoints, type NodeTopology, type TopologyMode,
} from './endpoint-selection';
import { ipFamilyOf } from './ip';
import { endpointKey, servicePortKey } from './keys';
import { isObject, listOf } from './shape';
import type { Endpoint, SelectedEndpoints, ServicePort } from './types';

/** Why an endpoint is (not) used; a closed set so tools can act on it. */
export type EndpointReasonCode =
  /** Not ready, and not serving while terminating. */
  | 'not-ready'
  /** Serving while terminating, but ready endpoints exist: it is not needed. */
  | 'terminating-not-needed'
  /** Used although terminating: no endpoint is ready (KEP-1669). A note on a used endpoint. */
  | 'terminating-fallback'
  /** Topology (zone hints: trafficDistribution PreferClose/PreferSameZone) keeps it for another zone. */
  | 'other-zone'
  /** Topology (node hints: trafficDistribution PreferSameNode) keeps it for another node. */
  | 'other-node'
  /** Local policy: only this node's endpoints serve it. */
  | 'not-local'
  /** An address of the other IP family (or a slice of another address type): another ServicePort's. */
  | 'wrong-family'
  /** Its slice has no port of this ServicePort's name and protocol. */
  | 'no-matching-port'
  /** No address, or one that is not an IP address. */
  | 'invalid-address'
  /** Listed twice in one slice: the first copy counts. */
  | 'duplicate'
  /** The selection and explain's reading of it disagree (a bug: please report it). */
  | 'unexplained';

export interface EndpointReason {
  code: EndpointReasonCode;
  text: string;
}

/** `not-applicable`: this ServicePort has no traffic of that kind (e.g. no Local policy). */
export type Use = 'used' | 'unused' | 'not-applicable';

export interface EndpointUse {
  use: Use;
  /** Why it is unused; on a used endpoint, a note (terminating-fallback) or nothing. */
  reason?: EndpointReason;
}

export interface EndpointExplanation {
  /** As the slice lists it ('' when it lists none). */
  ip: string;
  /** The endpoint's port for this ServicePort; 0 when its slice has none. */
  port: number;
  /** The slices that list it. */
  slices: string[];
  nodeName?: string;
  zone?: string;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
  isLocal: boolean;
  /** Used for traffic under Cluster policy (ClusterIP, and external traffic with Cluster policy). */
  cluster: EndpointUse;
  /** Used for traffic under Local policy (internalTrafficPolicy or externalTrafficPolicy Local). */
  local: EndpointUse;
}

export interface EndpointsExplanation {
  key: string;
  node: NodeTopology;
  usesCluster: boolean;
  usesLocal: boolean;
  /** The topology in force for the cluster set ('' = none), and why hints present are ignored. */
  topology: TopologyMode;
  topologyNote?: string;
  /** The serving-terminating fallback is in use for the cluster / local set. */
  clusterFallback: boolean;
  localFallback: boolean;
  /** A usable endpoint exists anywhere: false means the ServicePort rejects. */
  hasAny: boolean;
  /** Exactly what the proxy's model would hand its proxier for this ServicePort. */
  selection: SelectedEndpoints;
  /** Candidates (in the model's order) first, then the endpoints the model never sees. */
  endpoints: EndpointExplanation[];
}

type ServicePortFacts = Pick<
  ServicePort,
  'key' | 'namespace' | 'name' | 'portName' | 'protocol' | 'family' | 'nodePort' | 'externalIPs' | 'loadBalancerIPs'
  | 'externalPolicyLocal' | 'internalPolicyLocal'
>;

type RawEndpoint = NonNullable<V1EndpointSlice['endpoints']>[number];

/**
 * Explain the endpoints of `sp` on the node `node`, from the Service's EndpointSlices (slices of
 * other Services are ignored). The selection is `selectEndpoints` over the model's merge of them.
 */
export function explainEndpoints(sp: ServicePortFacts, slices: readonly V1EndpointSlice[], node: NodeTopology): EndpointsExplanation {
  const own = slices.filter((s) => isSliceOf(s, sp));
  const parsed = own.map((s) => parseEndpointSlice(s, node.nodeName, silentLog)).filter((p): p is ParsedSlice => p !== undefined);
  // The model's key, whatever `sp.key` says (tests and tools may build ServicePorts by hand).
  const candidates = mergeSlices(parsed).get(servicePortKey(sp.namespace, sp.name, sp.portName, sp.protocol, sp.family)) ?? [];
  const selection = selectEndpoints(candidates, sp, node);
  const usesCluster = usesClusterEndpoints(sp);
  const usesLocal = usesLocalEndpoints(sp);
  const topology = usesCluster ? topologyModeFromHints(candidates, node) : '';
  const listedBy = slicesListing(parsed, sp);
  const rows = candidates.map((ep) => candidateRow(ep, candidates, selection, sp, node, topology, listedBy));
  const seen = new Set(candidates.map((ep) => ep.ip));
  for (const s of own) rows.push(...excludedRows(s, sp, node.nodeName, seen, usesCluster, usesLocal));
  return {
    key: sp.key,
    node,
    usesCluster,
    usesLocal,
    topology,
    ...optional('topologyNote', usesCluster ? topologyNote(candidates, node, topology) : undefined),
    clusterFallback: selection.cluster.length > 0 && !selection.cluster.some((ep) => ep.ready),
    localFallback: selection.local.length > 0 && !selection.local.some((ep) => ep.ready),
    hasAny: selection.hasAny,
    selection,
    endpoints: rows,
  };
}

function optional<K extends string, V>(k: K, v: V | undefined): { [P in K]?: V } {
  return (v === undefined ? {} : { [k]: v }) as { [P in K]?: V };
}

function isSliceOf(slice: V1EndpointSlice, sp: ServicePortFacts): boolean {
  const id = sliceIdentity(slice, silentLog);
  return id !== undefined && id.namespace === sp.namespace && id.serviceName === sp.name;
}

/** endpointKey -> names of the slices listing it with this ServicePort's port. */
function slicesListing(parsed: readonly ParsedSlice[], sp: ServicePortFacts): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of parsed) {
    if (s.family !== sp.family) continue;
    for (const p of s.ports) {
      if (p.portName !== sp.portName || p.protocol !== sp.protocol) continue;
      for (const ep of s.endpoints) {
        const k = endpointKey(ep.ip, p.port);
        out.set(k, [...(out.get(k) ?? []), s.name]);
      }
    }
  }
  return out;
}

const servingTerminating = (ep: Endpoint): boolean => !ep.ready && ep.serving && ep.terminating;

function candidateRow(
  ep: Endpoint,
  all: readonly Endpoint[],
  selection: SelectedEndpoints,
  sp: ServicePortFacts,
  node: NodeTopology,
  topology: TopologyMode,
  listedBy: Map<string, string[]>,
): EndpointExplanation {
  const key = endpointKey(ep.ip, ep.port);
  const inList = (list: readonly Endpoint[]) => list.some((e) => endpointKey(e.ip, e.port) === key);
  const cluster = usesClusterEndpoints(sp)
    ? agreed(inList(selection.cluster), clusterReason(ep, all, node, topology))
    : { use: 'not-applicable' as const };
  const local = usesLocalEndpoints(sp) ? agreed(inList(selection.local), localReason(ep, all)) : { use: 'not-applicable' as const };
  return {
    ip: ep.ip,
    port: ep.port,
    slices: listedBy.get(key) ?? [],
    ...optional('nodeName', ep.nodeName),
    ...optional('zone', ep.zone),
    ready: ep.ready,
    serving: ep.serving,
    terminating: ep.terminating,
    isLocal: ep.isLocal,
    cluster,
    local,
  };
}

/** A derived verdict: `used` with an optional note, or the reason it is not. */
type Derived = { used: true; note?: EndpointReason } | { used: false; reason: EndpointReason };

/** The selection decides; a derivation that disagrees says so. */
function agreed(used: boolean, derived: Derived): EndpointUse {
  if (used !== derived.used) {
    const text = used
      ? 'used by the selection, though explain expected it not to be (please report)'
      : 'left out by the selection for a reason explain does not know (please report)';
    return { use: used ? 'used' : 'unused', reason: { code: 'unexplained', text } };
  }
  if (derived.used) return derived.note ? { use: 'used', reason: derived.note } : { use: 'used' };
  return { use: 'unused', reason: derived.reason };
}

const notReady: Derived = { used: false, reason: { code: 'not-ready', text: 'not ready (and not serving while terminating)' } };
const fallback: EndpointReason = { code: 'terminating-fallback', text: 'terminating, used because no endpoint is ready' };

/** Upstream's cluster set: ready ones narrowed by topology; else the serving-terminating ones. */
function clusterReason(ep: Endpoint, all: readonly Endpoint[], node: NodeTopology, topology: TopologyMode): Derived {
  if (!ep.ready && !servingTerminating(ep)) return notReady;
  if (!ep.ready) {
    if (all.some((e) => e.ready)) return { used: false, reason: { code: 'terminating-not-needed', text: 'terminating; ready endpoints exist' } };
    return { used: true, note: fallback };
  }
  if (topology === 'PreferSameNode' && !(ep.nodeHints ?? []).includes(node.nodeName)) {
    return { used: false, reason: { code: 'other-node', text: `hinted for node ${names(ep.nodeHints)}; this node is ${node.nodeName}` } };
  }
  if (topology === 'PreferSameZone' && !(ep.zoneHints ?? []).includes(node.zone)) {
    return { used: false, reason: { code: 'other-zone', text: `hinted for zone ${names(ep.zoneHints)}; this node is in ${node.zone}` } };
  }
  return { used: true };
}

/** Upstream's local set: this node's ready endpoints; else its serving-terminating ones. No topology. */
function localReason(ep: Endpoint, all: readonly Endpoint[]): Derived {
  if (!ep.isLocal) return { used: false, reason: { code: 'not-local', text: `runs on ${ep.nodeName ?? 'an unnamed node'}, not on this node` } };
  if (!ep.ready && !servingTerminating(ep)) return notReady;
  if (!ep.ready) {
    if (all.some((e) => e.isLocal && e.ready)) {
      return { used: false, reason: { code: 'terminating-not-needed', text: 'terminating; ready endpoints exist on this node' } };
    }
    return { used: true, note: { code: 'terminating-fallback', text: 'terminating, used because no endpoint on this node is ready' } };
  }
  return { used: true };
}

const names = (list: readonly string[] | undefined): string => (list && list.length > 0 ? list.join(',') : '(none)');

/** Why hints present on ready endpoints do not narrow the cluster set (upstream's fallbacks). */
function topologyNote(all: readonly Endpoint[], node: NodeTopology, mode: TopologyMode): string | undefined {
  const ready = all.filter((e) => e.ready);
  const zoneHinted = ready.some((e) => e.zoneHints?.length);
  const nodeHinted = ready.some((e) => e.nodeHints?.length);
  if (mode === 'PreferSameNode' || (!zoneHinted && !nodeHinted)) return undefined;
  const notes: string[] = [];
  if (nodeHinted) {
    const bare = ready.find((e) => !e.nodeHints?.length);
    notes.push(bare ? `node hints ignored: ${endpointKey(bare.ip, bare.port)} has none`
      : `node hints ignored: no ready endpoint is hinted for node ${node.nodeName}`);
  }
  if (mode === 'PreferSameZone' || !zoneHinted) return notes.join('; ');
  const bare = ready.find((e) => !e.zoneHints?.length);
  if (node.zone === '') notes.push('zone hints ignored: this node has no topology.kubernetes.io/zone label');
  else if (bare) notes.push(`zone hints ignored: ${endpointKey(bare.ip, bare.port)} has none`);
  else notes.push(`zone hints ignored: no ready endpoint is hinted for zone ${node.zone}`);
  return notes.join('; ');
}

/**
 * The endpoints of one slice that the model never gives this ServicePort. `seen`: the candidates'
 * addresses (a candidate listed by several slices is one row, its candidate row).
 */
function excludedRows(
  slice: V1EndpointSlice, sp: ServicePortFacts, nodeName: string, seen: Set<string>, usesCluster: boolean, usesLocal: boolean,
): EndpointExplanation[] {
  const sliceName = slice.metadata?.name ?? '';
  const type = String(slice.addressType);
  const ports = listOf<unknown>(slice.ports).filter(isObject);
  const port = ports.find((p) => (typeof p.name === 'string' ? p.name : '') === sp.portName && (p.protocol ?? 'TCP') === sp.protocol);
  const portNumber = typeof port?.port === 'number' ? port.port : 0;
  const out: EndpointExplanation[] = [];
  const inSlice = new Set<string>();
  for (const raw of listOf<RawEndpoint>(slice.endpoints)) {
    if (!isObject(raw)) continue;
    const ip = listOf<unknown>(raw.addresses)[0];
    const addr = typeof ip === 'string' ? ip : '';
    const reason = excludedReason(addr, type, sp, port !== undefined, ports, inSlice);
    inSlice.add(addr);
    if (reason === undefined && seen.has(addr)) continue;
    // Valid, of this family, with this port, and still not a candidate: the model has no reason.
    const why = reason ?? { code: 'unexplained' as const, text: 'the model does not list it for this ServicePort (please report)' };
    out.push(excludedRow(raw, addr, portNumber, sliceName, nodeName, why, usesCluster, usesLocal));
  }
  return out;
}

function excludedReason(
  addr: string, type: string, sp: ServicePortFacts, hasPort: boolean, ports: Record<string, unknown>[], inSlice: Set<string>,
): EndpointReason | undefined {
  const family = ipFamilyOf(addr);
  if (type !== 'IPv4' && type !== 'IPv6') {
    return { code: 'wrong-family', text: `slice addressType ${type}: not an IP family (kube-proxy ignores it)` };
  }
  if (family === undefined) return { code: 'invalid-address', text: addr === '' ? 'no address' : `not an IP address: ${addr}` };
  if (family !== type) return { code: 'wrong-family', text: `${family} address in an ${type} slice (the model drops it)` };
  if (type !== sp.family) return { code: 'wrong-family', text: `${type} endpoint; this is the ${sp.family} ServicePort` };
  if (!hasPort) {
    const listed = ports.map((p) => `${typeof p.name === 'string' && p.name ? p.name : '(unnamed)'}/${String(p.protocol ?? 'TCP')}`).join(', ');
    return { code: 'no-matching-port', text: `slice ports ${listed || '(none)'}; none is ${sp.portName || '(unnamed)'}/${sp.protocol}` };
  }
  if (inSlice.has(addr)) return { code: 'duplicate', text: 'listed twice in its slice; the first copy counts' };
  return undefined;
}

function excludedRow(
  raw: RawEndpoint, ip: string, port: number, slice: string, nodeName: string, reason: EndpointReason, usesCluster: boolean, usesLocal: boolean,
): EndpointExplanation {
  const c = isObject(raw.conditions) ? raw.conditions : {};
  const flag = (v: unknown, dflt: boolean): boolean => (typeof v === 'boolean' ? v : dflt);
  const unused = (applies: boolean): EndpointUse => (applies ? { use: 'unused', reason } : { use: 'not-applicable' });
  return {
    ip,
    port,
    slices: [slice],
    ...optional('nodeName', typeof raw.nodeName === 'string' && raw.nodeName ? raw.nodeName : undefined),
    ...optional('zone', typeof raw.zone === 'string' && raw.zone ? raw.zone : undefined),
    ready: flag(c.ready, true),
    serving: flag(c.serving, true),
    terminating: flag(c.terminating, false),
    isLocal: nodeName !== '' && raw.nodeName === nodeName,
    cluster: unused(usesCluster),
    local: unused(usesLocal),
  };
}
