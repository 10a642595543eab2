// The address-ownership property test's reference: who owns each dispatch key, computed by brute
// force from the cluster as the API server holds it (ownership-world.ts), independently of
// src/core/address-ownership.ts. The rule (issue 36): group every claim by family, protocol,
// address and port (NodePorts: family, protocol and port); a ClusterIP claim beats an external or
// LoadBalancer IP claim; then the smaller creationTimestamp, then the smaller UID, then the smaller
// ServicePort key. Each ServicePort is then served without the keys it lost, and from that served
// view the oracle says what our nftables table must hold: elements set by set, and the chains of
// Services with session affinity or source ranges, with the endpoints each one DNATs to.
//
// Endpoint selection is written out here too (upstream's CategorizeEndpoints without topology:
// ready endpoints, else the serving terminating ones, KEP-1669; decided apart for the Cluster and
// the Local lists), and so are the ruleset's rules of docs/nftables-ruleset.md for which sets and
// chains a served ServicePort fills.
import { hashAndTruncate } from '../../../src/proxier/nftables/names';
import { THIS_NODE, conditionsOf, externallyAccessible, familyOf, serviceType, type Fam, type Proto, type ServiceModel, type World } from './ownership-world';

/** One endpoint of one ServicePort: `ep` is what nft writes in a map's data, 'ip . port'. */
export interface OracleEndpoint { ep: string; ip: string; port: number; local: boolean; ready: boolean; serving: boolean; terminating: boolean }

/** One ServicePort as the oracle sees it, built from the Service and slice data. */
export interface OracleServicePort {
  key: string;
  service: ServiceModel;
  portName: string;
  family: Fam;
  protocol: Proto;
  port: number;
  nodePort: number;
  clusterIP: string;
  externalIPs: string[];
  /** LB ingress addresses of this family whose ipMode is VIP or unset. */
  lbIPs: string[];
  /** External and LB addresses of this family, once each. */
  externals: string[];
  /** loadBalancerSourceRanges of this family (type LoadBalancer only). */
  sourceRanges: string[];
  affinity: boolean;
  internalLocal: boolean;
  /** externalTrafficPolicy Local on an externally accessible Service (upstream's ExternalPolicyForService). */
  externalLocal: boolean;
  /** Every endpoint of the slice, whatever its conditions, sorted as nft writes them. */
  eps: OracleEndpoint[];
  /** The same as text, for messages and coverage. */
  endpoints: string[];
}

export type ClaimKind = 'clusterIP' | 'external' | 'nodePort';

export interface Claim { sp: OracleServicePort; kind: ClaimKind }

/** A dispatch key (nft text, family-local) with every claim on it, the owner first. */
export interface Contested { key: string; family: Fam; nodePort: boolean; claims: Claim[] }

export function oracleServicePorts(world: World): OracleServicePort[] {
  const out: OracleServicePort[] = [];
  for (const svc of world.services.values()) {
    for (const family of svc.families) {
      const slice = world.slices.get(`${svc.name}/${family}`);
      const ofFamily = (ips: string[]) => [...new Set(ips)].filter((ip) => familyOf(ip) === family);
      const externalIPs = ofFamily(svc.externalIPs);
      const lbIPs = ofFamily(svc.ingress.filter((i) => i.ipMode === undefined || i.ipMode === 'VIP').map((i) => i.ip));
      const sourceRanges = serviceType(svc) === 'LoadBalancer' ? [...new Set(svc.sourceRanges)].filter((r) => familyOf(r) === family) : [];
      for (const p of svc.ports) {
        const targets = (slice?.ports ?? []).filter((sp) => sp.name === p.name && sp.protocol === p.protocol).map((sp) => sp.target);
        const eps: OracleEndpoint[] = (slice?.endpoints ?? []).flatMap((e) => targets.map((port) => ({
          ep: `${e.ip} . ${port}`, ip: e.ip, port, local: e.node === THIS_NODE, ...conditionsOf(e.state),
        })));
        eps.sort((a, b) => cmpStr(a.ep, b.ep));
        out.push({
          key: `ns/${svc.name}:${p.name}/${p.protocol}/${family}`,
          service: svc, portName: p.name, family, protocol: p.protocol, port: p.port, nodePort: p.nodePort,
          clusterIP: svc.clusterIPs[family]!, externalIPs, lbIPs, externals: [...new Set([...externalIPs, ...lbIPs])], sourceRanges,
          affinity: svc.affinity > 0, internalLocal: svc.internalLocal, externalLocal: svc.externalLocal && externallyAccessible(svc),
          eps, endpoints: eps.map((e) => e.ep),
        });
      }
    }
  }
  return out;
}

const rank = (k: ClaimKind): number => (k === 'clusterIP' ? 0 : 1);
const cmpStr = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Negative when `a` owns the key rather than `b`. */
function beats(a: Claim, b: Claim): number {
  return rank(a.kind) - rank(b.kind)
    || a.sp.service.created - b.sp.service.created
    || cmpStr(a.sp.service.uid, b.sp.service.uid)
    || cmpStr(a.sp.key, b.sp.key);
}

export const vipKey = (addr: string, proto: Proto, port: number): string => `${addr} . ${proto.toLowerCase()} . ${port}`;
export const nodePortKey = (proto: Proto, port: number): string => `${proto.toLowerCase()} . ${port}`;

/** Every claimed key of each kind, its claims sorted so that the owner comes first. */
export function contestedKeys(sps: readonly OracleServicePort[]): { vips: Contested[]; nodePorts: Contested[] } {
  const vips = new Map<string, Contested>();
  const nodePorts = new Map<string, Contested>();
  const add = (m: Map<string, Contested>, family: Fam, key: string, claim: Claim) => {
    const id = `${family} ${key}`;
    const c = m.get(id) ?? { key, family, nodePort: m === nodePorts, claims: [] };
    c.claims.push(claim);
    m.set(id, c);
  };
  for (const sp of sps) {
    // A ServicePort that lists its own ClusterIP as an external IP claims that key once, as a ClusterIP.
    add(vips, sp.family, vipKey(sp.clusterIP, sp.protocol, sp.port), { sp, kind: 'clusterIP' });
    for (const ip of sp.externals) if (ip !== sp.clusterIP) add(vips, sp.family, vipKey(ip, sp.protocol, sp.port), { sp, kind: 'external' });
    if (sp.nodePort !== 0) add(nodePorts, sp.family, nodePortKey(sp.protocol, sp.nodePort), { sp, kind: 'nodePort' });
  }
  for (const m of [vips, nodePorts]) for (const c of m.values()) c.claims.sort(beats);
  return { vips: [...vips.values()], nodePorts: [...nodePorts.values()] };
}

/** A ServicePort without the keys it lost, and the endpoints it selects as served. */
export interface Served {
  sp: OracleServicePort;
  servesClusterIP: boolean;
  externalIPs: string[];
  lbIPs: string[];
  externals: string[];
  nodePort: number;
  /** The Cluster and Local lists in use (empty when the policies do not use them), and whether any endpoint is usable. */
  cluster: OracleEndpoint[];
  local: OracleEndpoint[];
  hasAny: boolean;
  /** Cluster and Local selections fell back to serving terminating endpoints. */
  fallback: boolean;
  chains: { cluster: string; local: string; external: string; firewall: string };
}

const usableTerminating = (e: OracleEndpoint): boolean => e.serving && e.terminating;

/** Every ServicePort as served: the keys another ServicePort owns taken away (ownership by `contestedKeys`). */
export function servedServicePorts(sps: readonly OracleServicePort[]): Served[] {
  const { vips, nodePorts } = contestedKeys(sps);
  const lost = new Map<OracleServicePort, Set<string>>();
  for (const c of [...vips, ...nodePorts]) {
    for (const claim of c.claims.slice(1)) {
      if (claim.sp === c.claims[0].sp) continue;
      lost.set(claim.sp, (lost.get(claim.sp) ?? new Set()).add(`${c.nodePort ? 'np' : 'vip'} ${c.key}`));
    }
  }
  return sps.map((sp) => {
    const gone = lost.get(sp) ?? new Set<string>();
    const keeps = (ip: string) => !gone.has(`vip ${vipKey(ip, sp.protocol, sp.port)}`);
    const externalIPs = sp.externalIPs.filter(keeps);
    const lbIPs = sp.lbIPs.filter(keeps);
    const nodePort = gone.has(`np ${nodePortKey(sp.protocol, sp.nodePort)}`) ? 0 : sp.nodePort;
    const accessible = nodePort !== 0 || externalIPs.length > 0 || lbIPs.length > 0;
    const usesCluster = !sp.internalLocal || accessible;
    const usesLocal = sp.internalLocal || (sp.externalLocal && accessible);
    const pick = (eps: OracleEndpoint[]) => {
      const ready = eps.filter((e) => e.ready);
      return ready.length > 0 ? { list: ready, fallback: false } : { list: eps.filter(usableTerminating), fallback: eps.some(usableTerminating) };
    };
    const cluster = usesCluster ? pick(sp.eps) : { list: [], fallback: false };
    const local = usesLocal ? pick(sp.eps.filter((e) => e.local)) : { list: [], fallback: false };
    const base = hashAndTruncate(`ns/${sp.service.name}/${sp.protocol.toLowerCase()}/${sp.portName}`);
    return {
      sp, servesClusterIP: keeps(sp.clusterIP), externalIPs, lbIPs, externals: [...new Set([...externalIPs, ...lbIPs])], nodePort,
      cluster: cluster.list, local: local.list, hasAny: sp.eps.some((e) => e.ready || usableTerminating(e)),
      fallback: cluster.fallback || local.fallback,
      chains: { cluster: `service-${base}`, local: `local-${base}`, external: `external-${base}`, firewall: `firewall-${base}` },
    };
  });
}

/** A per-ServicePort chain as the oracle expects it: the endpoints its rules DNAT to, the chains it goes to, the sources it lets through. */
export interface ExpectedChain { owner: Served; dnat: string[]; gotos: string[]; returns: string[] }

/** What one family's table must hold: elements set by set (sorted, as nft lists them) and the per-ServicePort chains. */
export interface ExpectedTable { sets: Map<string, string[]>; chains: Map<string, ExpectedChain> }

/** Upstream's verdict for a destination without a usable endpoint: reject (no-endpoint-*), drop (also no-local-endpoint-*). */
function noEndpoint(put: (set: string, el: string) => void, key: string, drop: boolean, nodePort: boolean): void {
  put(nodePort ? 'no-endpoint-nodeports' : 'no-endpoint-services', key);
  if (drop) put(nodePort ? 'no-local-endpoint-nodeports' : 'no-local-endpoint-services', key);
}

/** A destination's slots in the endpoint map of its count, and past 4 endpoints its elements in the sets of the bits of count - 4. */
function endpointMap(put: (set: string, el: string) => void, prefix: '' | 'local-' | 'nodeport-' | 'nodeport-local-', key: string, eps: readonly OracleEndpoint[]): void {
  eps.forEach((e, i) => put(`${prefix}endpoints-${eps.length}`, `${key} . ${i} : ${e.ep}`));
  for (let code = eps.length - 4, bit = 0; code > 0; code >>= 1, bit++) if (code & 1) put(`${prefix}endpoints-over-4-bit-${bit}`, key);
}

export function expectedTable(family: Fam, served: readonly Served[]): ExpectedTable {
  const sets = new Map<string, string[]>();
  const chains = new Map<string, ExpectedChain>();
  const put = (set: string, el: string) => sets.set(set, [...(sets.get(set) ?? []), el]);
  for (const s of served) {
    if (s.sp.family !== family) continue;
    const { sp, cluster, local, hasAny } = s;
    const proto = sp.protocol.toLowerCase();
    const internal = sp.internalLocal ? local : cluster;
    const external = sp.externalLocal ? local : cluster;
    const accessible = s.externals.length > 0 || s.nodePort !== 0;
    // Its own ClusterIP listed again is claimed once, as the ClusterIP, and served by that path alone.
    const externals = s.externals.filter((ip) => ip !== sp.clusterIP);
    const cipKey = vipKey(sp.clusterIP, sp.protocol, sp.port);
    const npKey = nodePortKey(sp.protocol, s.nodePort);
    const firewalled = sp.sourceRanges.length > 0 && s.lbIPs.length > 0;

    // Without a usable endpoint for a path: reject, or drop when the Service has endpoints elsewhere.
    if (s.servesClusterIP) put('cluster-ips', sp.clusterIP);
    if (s.servesClusterIP && internal.length === 0) noEndpoint(put, cipKey, hasAny && sp.internalLocal, false);
    if (external.length === 0) {
      for (const ip of externals) noEndpoint(put, vipKey(ip, sp.protocol, sp.port), hasAny && sp.externalLocal, false);
      if (s.nodePort !== 0) noEndpoint(put, npKey, hasAny && sp.externalLocal, true);
    }
    // loadBalancerSourceRanges: the LB addresses it kept go through its firewall chain first.
    if (firewalled) {
      for (const ip of s.lbIPs) put('firewall-ips', `${vipKey(ip, sp.protocol, sp.port)} : goto ${s.chains.firewall}`);
      chains.set(s.chains.firewall, { owner: s, dnat: [], gotos: [], returns: [...sp.sourceRanges].sort() });
    }
    for (const e of new Set([...cluster, ...local].map((x) => x.ip))) put('hairpin', `${e} . ${e}`);

    if (sp.affinity) {
      // The Service's own chains, reached from the verdict maps.
      const internalChain = sp.internalLocal ? s.chains.local : s.chains.cluster;
      if (internal.length > 0 && s.servesClusterIP) { put('service-ips', `${cipKey} : goto ${internalChain}`); put('other-service-ports', cipKey); }
      if (hasAny) {
        for (const ip of externals) {
          put('service-ips', `${vipKey(ip, sp.protocol, sp.port)} : goto ${s.chains.external}`);
          put('other-service-ports', vipKey(ip, sp.protocol, sp.port));
        }
        if (s.nodePort !== 0) { put('service-nodeports', `${npKey} : goto ${s.chains.external}`); put('all-nodeports', npKey); }
      }
      if (cluster.length > 0) chains.set(s.chains.cluster, { owner: s, dnat: cluster.map((e) => e.ep), gotos: [], returns: [] });
      if (local.length > 0) chains.set(s.chains.local, { owner: s, dnat: local.map((e) => e.ep), gotos: [], returns: [] });
      if (hasAny && accessible) {
        // Cluster policy: every endpoint. Local: this node's, and pods and the node itself short-circuit to every endpoint.
        const gotos = sp.externalLocal ? [...(cluster.length > 0 ? [s.chains.cluster] : []), ...(local.length > 0 ? [s.chains.local] : [])]
          : cluster.length > 0 ? [s.chains.cluster] : [];
        chains.set(s.chains.external, { owner: s, dnat: [], gotos: gotos.sort(), returns: [] });
      }
      continue;
    }
    if (internal.length > 0 && s.servesClusterIP) { put('cluster-ip-ports', cipKey); endpointMap(put, '', cipKey, internal); }
    if (!hasAny) continue;
    const destinations = [
      ...externals.map((ip) => ({ key: vipKey(ip, sp.protocol, sp.port), nodePort: false })),
      ...(s.nodePort !== 0 ? [{ key: npKey, nodePort: true }] : []),
    ];
    for (const d of destinations) {
      if (!sp.externalLocal && cluster.length === 0) continue;
      const set = d.nodePort ? (sp.externalLocal ? 'nodeports-local' : 'nodeports') : sp.externalLocal ? 'external-local-ports' : 'external-ports';
      put(set, d.key);
      put(d.nodePort ? 'all-nodeports' : 'other-service-ports', d.key);
      if (cluster.length > 0) endpointMap(put, d.nodePort ? 'nodeport-' : '', d.key, cluster);
      if (sp.externalLocal && local.length > 0) endpointMap(put, d.nodePort ? 'nodeport-local-' : 'local-', d.key, local);
    }
  }
  for (const [set, els] of sets) sets.set(set, [...new Set(els)].sort());
  return { sets, chains };
}

/** Who a pod address belongs to, for failure messages: 10.1.3.4 is a pod of s2 (ownership-world.ts podIP). */
export function podOwner(ep: string): string {
  const ip = ep.split(' . ')[0];
  const m = /^10\.1\.(\d+)\.|^fd00:10:1:(\d+)::/.exec(ip);
  return m ? `s${Number(m[1] ?? m[2]) - 1}` : '?';
}

/** A claim in words, for failure messages. */
export function describeClaim(c: Claim): string {
  const sp = c.sp;
  const eps = sp.eps.map((e) => `${e.ep}${e.local ? '@here' : ''}${e.ready ? '' : e.serving && e.terminating ? '~' : 'x'}`);
  const policies = [sp.affinity ? 'affinity' : '', sp.internalLocal ? 'itp=Local' : '', sp.externalLocal ? 'etp=Local' : '',
    sp.sourceRanges.length > 0 ? `ranges ${sp.sourceRanges.join(',')}` : ''].filter((x) => x).join(' ');
  return `${sp.key} (${c.kind}, created +${sp.service.created % 100}, uid ${sp.service.uid}${policies ? `, ${policies}` : ''}, endpoints [${eps.join(', ')}])`;
}
