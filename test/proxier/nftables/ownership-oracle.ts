// The address-ownership property test's reference: who owns each dispatch key, computed by brute
// force from the cluster as the API server holds it (ownership-world.ts), independently of
// src/core/address-ownership.ts. The rule (issue 36): group every claim by family, protocol,
// address and port (NodePorts: family, protocol and port); a ClusterIP claim beats an external or
// LoadBalancer IP claim; then the smaller creationTimestamp, then the smaller UID, then the smaller
// ServicePort key. From the owners it says what our nftables table must hold for each key.
import { familyOf, type Fam, type Proto, type ServiceModel, type World } from './ownership-world';

/** One ServicePort as the oracle sees it, built from the Service and slice data. */
export interface OracleServicePort {
  key: string;
  service: ServiceModel;
  family: Fam;
  protocol: Proto;
  port: number;
  nodePort: number;
  clusterIP: string;
  /** External and LB (ipMode VIP or unset) addresses of this family, once each. */
  externals: string[];
  /** Its endpoints as nft writes a map's data: 'ip . port', sorted. */
  endpoints: string[];
}

export type ClaimKind = 'clusterIP' | 'external' | 'nodePort';

export interface Claim { sp: OracleServicePort; kind: ClaimKind }

/** A dispatch key (nft text, family-local) with every claim on it, the owner first. */
export interface Contested { key: string; family: Fam; claims: Claim[] }

export function oracleServicePorts(world: World): OracleServicePort[] {
  const out: OracleServicePort[] = [];
  for (const svc of world.services.values()) {
    for (const family of svc.families) {
      const slice = world.slices.get(`${svc.name}/${family}`);
      const externals = [...new Set([
        ...svc.externalIPs,
        ...svc.ingress.filter((i) => i.ipMode === undefined || i.ipMode === 'VIP').map((i) => i.ip),
      ])].filter((ip) => familyOf(ip) === family);
      for (const p of svc.ports) {
        const targets = (slice?.ports ?? []).filter((sp) => sp.name === p.name && sp.protocol === p.protocol).map((sp) => sp.target);
        const endpoints = [...new Set((slice?.ips ?? []).flatMap((ip) => targets.map((t) => `${ip} . ${t}`)))].sort();
        out.push({
          key: `ns/${svc.name}:${p.name}/${p.protocol}/${family}`,
          service: svc, family, protocol: p.protocol, port: p.port, nodePort: p.nodePort,
          clusterIP: svc.clusterIPs[family]!, externals, endpoints,
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
    const c = m.get(id) ?? { key, family, claims: [] };
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

/**
 * What one family's table must hold, set by set, as nft lists the elements (sorted). Every
 * Service here has Cluster policies, ready endpoints and no affinity or source ranges, so the
 * Local-policy, affinity and firewall sets stay empty.
 */
export function expectedSets(family: Fam, sps: readonly OracleServicePort[]): Map<string, string[]> {
  const { vips, nodePorts } = contestedKeys(sps);
  const sets = new Map<string, string[]>();
  const put = (set: string, el: string) => sets.set(set, [...(sets.get(set) ?? []), el]);
  const endpoints = (prefix: string, chains: string, select: string, key: string, eps: readonly string[]) => {
    eps.forEach((ep, i) => put(`${prefix}${eps.length}`, `${key} . ${i} : ${ep}`));
    if (eps.length > 4) put(chains, `${key} : goto ${select}-${eps.length}`);
  };
  for (const sp of sps) if (sp.family === family) put('cluster-ips', sp.clusterIP);
  for (const c of vips) {
    if (c.family !== family) continue;
    const owner = c.claims[0].sp;
    const addr = c.key.slice(0, c.key.indexOf(' . '));
    if (owner.endpoints.length === 0) {
      put('no-endpoint-services', c.key);
      continue;
    }
    // A ClusterIP it also lists as external is served once, as the ClusterIP (it claims it once).
    if (owner.clusterIP === addr) put('cluster-ip-ports', c.key);
    else { put('external-ports', c.key); put('other-service-ports', c.key); }
    endpoints('endpoints-', 'endpoint-chains', 'select-endpoint', c.key, owner.endpoints);
  }
  for (const c of nodePorts) {
    if (c.family !== family) continue;
    const owner = c.claims[0].sp;
    if (owner.endpoints.length === 0) {
      put('no-endpoint-nodeports', c.key);
      continue;
    }
    put('nodeports', c.key);
    put('all-nodeports', c.key);
    endpoints('nodeport-endpoints-', 'nodeport-endpoint-chains', 'select-nodeport-endpoint', c.key, owner.endpoints);
  }
  for (const [set, els] of sets) sets.set(set, [...new Set(els)].sort());
  return sets;
}

/** Who a pod address belongs to, for failure messages: 10.1.3.4 is a pod of s2 (ownership-world.ts podIP). */
export function podOwner(ep: string): string {
  const ip = ep.split(' . ')[0];
  const m = /^10\.1\.(\d+)\.|^fd00:10:1:(\d+)::/.exec(ip);
  return m ? `s${Number(m[1] ?? m[2]) - 1}` : '?';
}

/** A claim in words, for failure messages. */
export function describeClaim(c: Claim): string {
  return `${c.sp.key} (${c.kind}, created +${c.sp.service.created % 100}, uid ${c.sp.service.uid}, endpoints [${c.sp.endpoints.join(', ')}])`;
}
