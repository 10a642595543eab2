// Object names in our tables. They follow upstream's pkg/proxy/nftables so that operators and
// their tools recognise the ruleset; the per-ServicePort names embed a hash so that they stay
// unique even when truncated and are easy to tell apart at a glance.
import { hash } from 'node:crypto';
import type { ServicePort } from '../../core/types';

export const TABLE = 'kube-proxy';

export const CHAIN = {
  filterPrerouting: 'filter-prerouting',
  filterForward: 'filter-forward',
  filterOutput: 'filter-output',
  natPrerouting: 'nat-prerouting',
  natOutput: 'nat-output',
  natPostrouting: 'nat-postrouting',
  services: 'services',
  // The dispatch's second stage for the rarer kinds of destination (behind one lookup each in `services`).
  otherServices: 'other-services',
  nodePortServices: 'nodeport-services',
  // What the nat hooks (and the filter hooks, for a flow that passed them before) check for a connection no Service took.
  noServiceChecks: 'no-service-checks',
  serviceEndpointsCheck: 'service-endpoints-check',
  nodePortEndpointsCheck: 'nodeport-endpoints-check',
  reject: 'reject-chain',
  clusterIPsCheck: 'cluster-ips-check',
  firewallCheck: 'firewall-check',
  markMasq: 'mark-for-masquerade',
  masquerading: 'masquerading',
  // Constant chains of the map-driven path (docs/nftables-ruleset.md): one per kind of
  // destination, and one endpoint selection chain per endpoint map family.
  clusterIPTraffic: 'cluster-ip-traffic',
  externalTraffic: 'external-traffic',
  externalLocalTraffic: 'external-local-traffic',
  nodePortTraffic: 'nodeport-traffic',
  nodePortLocalTraffic: 'nodeport-local-traffic',
  // nat postrouting, after a DNAT: writes the session-affinity records (affinityRecordsName).
  recordAffinity: 'record-affinity',
} as const;

export const SET = {
  clusterIPs: 'cluster-ips',
  nodePortIPs: 'nodeport-ips',
  noEndpointServices: 'no-endpoint-services',
  noEndpointNodePorts: 'no-endpoint-nodeports',
  noLocalEndpointServices: 'no-local-endpoint-services',
  noLocalEndpointNodePorts: 'no-local-endpoint-nodeports',
  // loadBalancerSourceRanges: the destinations they apply to, and destination . allowed source range.
  firewallIPs: 'firewall-ips',
  firewallAllow: 'firewall-allow',
  // IPv6 session affinity (affinity-chains.ts): the per-Service chains' dispatch, and the records.
  serviceIPs: 'service-ips',
  serviceNodePorts: 'service-nodeports',
  affinity: 'affinity',
  clusterIPPorts: 'cluster-ip-ports',
  externalPorts: 'external-ports',
  externalLocalPorts: 'external-local-ports',
  nodePorts: 'nodeports',
  nodePortsLocal: 'nodeports-local',
  // Unions: what `services` looks up before the sets above (a connection to no Service misses two sets, not six).
  otherServicePorts: 'other-service-ports',
  allNodePorts: 'all-nodeports',
  hairpin: 'hairpin',
} as const;

/**
 * Endpoint maps come in families, one map per endpoint count E (`endpoints-4`): a rule
 * `... numgen random mod E map @endpoints-4` picks among E endpoints, and the modulus is a
 * constant of the rule. `select` is the chain a family's connections enter: it tests the plain
 * sets of the larger counts' code bits (`endpoints-over-4-bit-1`, count-trie.ts), going to the
 * chain of the codes that have the bit, then holds one rule per count up to SELECT_RULES_MAX. A
 * larger count's rule is always in its own chain (selectChainName: `select-endpoint-6`), reached by
 * the tests that lead to it.
 */
export const ENDPOINT_MAPS = {
  cluster: { prefix: 'endpoints-', select: 'select-endpoint', nodePort: false },
  local: { prefix: 'local-endpoints-', select: 'select-local-endpoint', nodePort: false },
  nodePort: { prefix: 'nodeport-endpoints-', select: 'select-nodeport-endpoint', nodePort: true },
  nodePortLocal: { prefix: 'nodeport-local-endpoints-', select: 'select-nodeport-local-endpoint', nodePort: true },
} as const;
export type EndpointMapFamily = keyof typeof ENDPOINT_MAPS;

/**
 * K, the largest endpoint count served by a rule of its own in a select chain, tried in turn (a
 * hash lookup each, ~0.08 µs a miss with the C client: docs/nftables-ruleset.md). Larger counts are
 * told apart by plain-set tests of their code, count - K (~0.025 µs each, count-trie.ts): at most
 * one per bit of the largest code in use, whatever the number of distinct counts. Their elements
 * are in no verdict map, so a destination's count can change without the kernel validating the
 * table. 4 keeps the misses at about 0.3 µs and Services of 1 to 4 pods out of the bit sets.
 */
export const SELECT_RULES_MAX = 4;

export function endpointMapName(fam: EndpointMapFamily, count: number): string {
  return `${ENDPOINT_MAPS[fam].prefix}${count}`;
}

/** The chain holding the rule of a count above SELECT_RULES_MAX: `select-endpoint-6`. */
export function selectChainName(fam: EndpointMapFamily, count: number): string {
  return `${ENDPOINT_MAPS[fam].select}-${count}`;
}

/** The chain of the counts from..to (a node of count-trie.ts): `select-endpoint-9-12`. */
export function selectRangeChainName(fam: EndpointMapFamily, from: number, to: number): string {
  return `${ENDPOINT_MAPS[fam].select}-${from}-${to}`;
}

/** The plain set of the destinations whose count - SELECT_RULES_MAX has `bit` set: `endpoints-over-4-bit-1`. */
export function countBitSetName(fam: EndpointMapFamily, bit: number): string {
  return `${ENDPOINT_MAPS[fam].prefix}over-${SELECT_RULES_MAX}-bit-${bit}`;
}

/**
 * Session affinity, per endpoint map family: `affinity-records` (dynamic: client . destination ->
 * the endpoint it was sent to, written by the packet path in nat postrouting), and per timeout T in
 * use `affinity-endpoints-T`, the destination . endpoint pairs a record may name (a Service's
 * affinity destinations and their endpoints of that family; docs/nftables-ruleset.md).
 */
const AFFINITY_PREFIX: Record<EndpointMapFamily, string> = {
  cluster: 'affinity-', local: 'affinity-local-', nodePort: 'affinity-nodeport-', nodePortLocal: 'affinity-nodeport-local-',
};

export function affinityRecordsName(fam: EndpointMapFamily): string {
  return `${AFFINITY_PREFIX[fam]}records`;
}

export function affinityEndpointsName(fam: EndpointMapFamily, timeoutSeconds: number): string {
  return `${AFFINITY_PREFIX[fam]}endpoints-${timeoutSeconds}`;
}

const AFFINITY_RE = /^affinity-(nodeport-local-|nodeport-|local-|)(records|endpoints-([1-9]\d*))$/;
const FAMILY_BY_AFFINITY_PREFIX = new Map(Object.entries(AFFINITY_PREFIX).map(([f, p]) => [p, f as EndpointMapFamily]));

/** An affinity set's family and, for the endpoint pairs, timeout (0 for the records map); null for any other set. */
export function parseAffinitySetName(name: string): { fam: EndpointMapFamily; timeoutSeconds: number } | null {
  const m = AFFINITY_RE.exec(name);
  if (!m) return null;
  return { fam: FAMILY_BY_AFFINITY_PREFIX.get(`affinity-${m[1]}`)!, timeoutSeconds: m[3] ? Number(m[3]) : 0 };
}

const MAP_RE = /^(nodeport-local-endpoints-|nodeport-endpoints-|local-endpoints-|endpoints-)([1-9]\d*)$/;
const FAMILY_BY_PREFIX = new Map(Object.entries(ENDPOINT_MAPS).map(([f, m]) => [m.prefix as string, f as EndpointMapFamily]));

/** The family and endpoint count of an endpoint map's name, or null for any other set. */
export function parseEndpointMapName(name: string): { fam: EndpointMapFamily; count: number } | null {
  const m = MAP_RE.exec(name);
  return m ? { fam: FAMILY_BY_PREFIX.get(m[1])!, count: Number(m[2]) } : null;
}

const BIT_SET_RE = new RegExp(`^(nodeport-local-endpoints-|nodeport-endpoints-|local-endpoints-|endpoints-)over-${SELECT_RULES_MAX}-bit-(0|[1-9]\\d?)$`);

/** The family and bit of a count-bit set's name, or null for any other set. */
export function parseCountBitSetName(name: string): { fam: EndpointMapFamily; bit: number } | null {
  const m = BIT_SET_RE.exec(name);
  return m ? { fam: FAMILY_BY_PREFIX.get(m[1])!, bit: Number(m[2]) } : null;
}

/** nft names are at most 255 bytes; upstream leaves 16 for the prefix. */
const NAME_MAX = 256;
const PREFIX_MAX = 16;
const BASE_MAX = NAME_MAX - PREFIX_MAX;

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** The first `chars` characters of the standard base32 encoding of `bytes` (RFC 4648). */
function base32Prefix(bytes: Uint8Array, chars: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
    if (out.length >= chars) break;
  }
  return out;
}

/** Upstream's hashAndTruncate: `HASH8-name`, cut with "..." past the length limit. */
export function hashAndTruncate(name: string): string {
  let out = cache.get(name);
  if (out === undefined) {
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(name, out = computeHashAndTruncate(name));
  }
  return out;
}

// Names are recomputed for every ServicePort on every full sync; sha256 per chain adds up at 50k.
const cache = new Map<string, string>();
const CACHE_MAX = 1 << 20;

function computeHashAndTruncate(name: string): string {
  // The one-shot digest: no Hash object per name (~40% cheaper, ~75k names at a 44k first sync).
  const digest = base32Prefix(hash('sha256', name, 'buffer'), 8);
  const full = `${digest}-${name}`;
  return full.length > BASE_MAX ? full.slice(0, BASE_MAX - 3) + '...' : full;
}

/** `ns/name/proto/portName`, the part every chain of one ServicePort shares. */
export function servicePortNameBase(sp: Pick<ServicePort, 'namespace' | 'name' | 'protocol' | 'portName'>): string {
  return `${sp.namespace}/${sp.name}/${sp.protocol.toLowerCase()}/${sp.portName}`;
}

export interface ServiceChainNames {
  /** IPv6 session affinity's chains (affinity-chains.ts). */
  cluster: string;
  local: string;
  external: string;
}

export function serviceChainNames(sp: ServicePort): ServiceChainNames {
  const base = hashAndTruncate(servicePortNameBase(sp));
  return {
    cluster: `service-${base}`,
    local: `local-${base}`,
    external: `external-${base}`,
  };
}
