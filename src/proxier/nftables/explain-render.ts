// `explain`'s output: aligned text for people, and a JSON document for tools (`-o json`).
//
// The JSON document (stable field names; a field is added, never renamed, within one apiVersion):
//   apiVersion    "kube-proxy-native/explain/v1"
//   service       "namespace/name"
//   node          { name, zone }                      the node explained for ('' zone: no label)
//   healthCheckNodePort?  (only for a Service with one: LoadBalancer, externalTrafficPolicy Local)
//                 { port, conflicts: [{ kind: healthz|metrics|Service, with (bind address or
//                 namespace/name), owner (who the running proxy gives the port: namespace/name, or
//                 'healthz server' / 'metrics server'), note }], checked: [..], notChecked: [..] }
//                 (explain-health-check.ts: explain cannot see the running proxy's binds)
//   handled?      false (only then) when the proxy leaves the Service alone; `reason` says why
//                 (another proxy's label, a disabled Namespace, headless, ExternalName), no servicePorts
//   servicePorts  one per ServicePort (port x family), each:
//     key, portName, protocol, family, port
//     refused?    why the proxy refuses to program it (then paths is empty)
//     addresses   [{ kind: ClusterIP|NodePort|ExternalIP|LoadBalancer, ip ('*': any accepting node
//                 address), port, protocol, note?, sourceRanges? }]
//     policies    { internalTrafficPolicy, externalTrafficPolicy? (absent: not reachable from
//                 outside), affinityTimeoutSeconds?, healthCheckNodePort?, trafficDistribution?,
//                 masqueradeAll, detectLocal }
//     endpoints   { usesCluster, usesLocal, hasAny, topology ('' | PreferSameZone | PreferSameNode),
//                 topologyNote?, clusterFallback, localFallback,
//                 list: [{ ip, port, slices, nodeName?, zone?, ready, serving, terminating, isLocal,
//                          cluster: { use: used|unused|not-applicable, reason?: { code, text } },
//                          local: (the same) }] }   reason codes: src/core/endpoint-reasons.ts
//     claims?     [{ role: lost|owns, claim, otherClaim, key, other, reason }]  a key this ServicePort and
//                 another both claim: `lost`, the other owns it (nothing of it is programmed here);
//                 `owns`, the other's claim is refused (docs/failure-modes.md, "Two Services claim one address")
//     kernel?     [{ kind: 'element'|'chain', set?, chain?, key, expected, kernel?, status: 'as expected'|'differs'|'missing' }]
//                 (explain-kernel.ts: key and values as nft text; a chain's rules one a line)
//                 (absent: not checked)
//     paths       [{ kind, ip, port, client: pod|outside, source?: allowed|'not allowed', outcome:
//                 dnat|reject|drop|accept, endpoints?, masquerade, summary,
//                 steps: [{ hook?, chain, rule, verdict }] }]
import type { EndpointExplanation, EndpointsExplanation, EndpointUse } from '../../core/endpoint-reasons';
import type { NodeTopology } from '../../core/endpoint-selection';
import { healthCheckLines, type HealthCheckNodePortFacts } from './explain-health-check';
import type { ConnectionPath, PathExplanation } from './explain-path';
import { claimText, type ClaimExplanation, type KernelObjectCheck, type ServicePortExplanation } from './explain-service-port';

export type { KernelObjectCheck, ServicePortExplanation } from './explain-service-port';

export const EXPLAIN_API_VERSION = 'kube-proxy-native/explain/v1';

export interface ExplainDocument {
  apiVersion: typeof EXPLAIN_API_VERSION;
  service: string;
  node: { name: string; zone: string };
  healthCheckNodePort?: HealthCheckNodePortFacts;
  servicePorts: ServicePortDocument[];
}

export interface ServicePortDocument {
  key: string;
  portName: string;
  protocol: string;
  family: string;
  port: number;
  refused?: string;
  addresses: PathExplanation['addresses'];
  policies: PathExplanation['policies'];
  endpoints: Omit<EndpointsExplanation, 'key' | 'node' | 'selection' | 'endpoints'> & { list: EndpointExplanation[] };
  claims?: ClaimExplanation[];
  kernel?: KernelObjectCheck[];
  paths: ConnectionPath[];
}

export function explainDocument(service: string, node: NodeTopology, ports: readonly ServicePortExplanation[], healthCheck?: HealthCheckNodePortFacts): ExplainDocument {
  return {
    apiVersion: EXPLAIN_API_VERSION, service, node: { name: node.nodeName, zone: node.zone },
    ...(healthCheck ? { healthCheckNodePort: healthCheck } : {}), servicePorts: ports.map(portDocument),
  };
}

function portDocument(x: ServicePortExplanation): ServicePortDocument {
  const { key: _key, node: _node, selection: _selection, endpoints: list, ...summary } = x.endpoints;
  const doc: ServicePortDocument = {
    key: x.sp.key, portName: x.sp.portName, protocol: x.sp.protocol, family: x.sp.family, port: x.sp.port,
    addresses: x.path.addresses, policies: x.path.policies, endpoints: { ...summary, list }, paths: x.path.paths,
  };
  if (x.path.refused !== undefined) doc.refused = x.path.refused;
  if (x.claims !== undefined && x.claims.length > 0) doc.claims = x.claims;
  if (x.kernel !== undefined) doc.kernel = x.kernel;
  return doc;
}

export function renderExplainJson(service: string, node: NodeTopology, ports: readonly ServicePortExplanation[], healthCheck?: HealthCheckNodePortFacts): string {
  return JSON.stringify(explainDocument(service, node, ports, healthCheck), null, 2) + '\n';
}

// --- text

/** Rows as columns padded to the widest cell (the last column is not padded). */
export function table(rows: readonly (readonly string[])[], indent: string): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => indent + r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd());
}

const RULE_MAX = 72;
const RULE_HEAD = 24;

/** A rule for the text form: no comment (the verdict says why), its middle cut (the set and verdict are at the end). */
function short(rule: string): string {
  const text = rule.replace(/ comment "[^"]*"$/, '');
  return text.length > RULE_MAX ? `${text.slice(0, RULE_HEAD)}...${text.slice(text.length - (RULE_MAX - RULE_HEAD - 3))}` : text;
}

export function renderExplainText(service: string, node: NodeTopology, ports: readonly ServicePortExplanation[], healthCheck?: HealthCheckNodePortFacts): string {
  const head = `Service ${service} on node ${node.nodeName}${node.zone ? ` (zone ${node.zone})` : ''}`;
  if (ports.length === 0) return `${head}: no ServicePort of a family this proxy serves\n`;
  const facts = healthCheck ? ['', ...healthCheckLines(healthCheck)] : [];
  return [head, ...facts, ...ports.flatMap((p) => ['', ...portText(p)])].join('\n') + '\n';
}

function portText(x: ServicePortExplanation): string[] {
  const { sp, path } = x;
  const out = [`${sp.key}  port ${sp.portName || '(unnamed)'} ${sp.port}/${sp.protocol} ${sp.family}`];
  out.push('  Reachable on');
  out.push(...table(path.addresses.map((a) => [a.kind, hostPort(a.ip, a.port), addressNote(a)]), '    '));
  out.push('  Policies');
  out.push(...policyLines(x).map((l) => `    ${l}`));
  if (path.refused !== undefined) out.push(`  REFUSED by the proxy, nothing is programmed: ${path.refused}`);
  if (x.claims !== undefined && x.claims.length > 0) out.push('  Address claims shared with another Service', ...x.claims.map((c) => `    ${claimText(c)}`));
  out.push(...endpointLines(x.endpoints));
  if (x.kernel !== undefined) out.push(...kernelLines(x.kernel));
  if (path.paths.length > 0) {
    out.push('  Path of a new connection');
    for (const p of path.paths) out.push(...pathLines(p));
  }
  return out;
}

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function addressNote(a: PathExplanation['addresses'][number]): string {
  if (a.sourceRanges) return `only from ${a.sourceRanges.join(', ')} (loadBalancerSourceRanges)`;
  return a.note ?? '';
}

function policyLines(x: ServicePortExplanation): string[] {
  const p = x.path.policies;
  const e = x.endpoints;
  const traffic = [`internalTrafficPolicy ${p.internalTrafficPolicy}`];
  if (p.externalTrafficPolicy) traffic.push(`externalTrafficPolicy ${p.externalTrafficPolicy}`);
  if (p.healthCheckNodePort) traffic.push(`healthCheckNodePort ${p.healthCheckNodePort}`);
  traffic.push(p.affinityTimeoutSeconds ? `sessionAffinity ClientIP (${p.affinityTimeoutSeconds}s)` : 'sessionAffinity None');
  const topo = [`topology ${e.topology || 'none'}${p.trafficDistribution ? ` (trafficDistribution ${p.trafficDistribution})` : ''}`];
  if (e.topologyNote) topo.push(e.topologyNote);
  const masq = p.masqueradeAll ? 'masquerade every ClusterIP connection (masqueradeAll)'
    : p.detectLocal === 'none' ? 'detect-local none: ClusterIP connections are not masqueraded'
    : `masquerade ClusterIP connections not from a local pod (${p.detectLocal})`;
  return [traffic.join(', '), topo.join('; '), masq];
}

function endpointLines(e: EndpointsExplanation): string[] {
  const count = (k: 'cluster' | 'local') => e.endpoints.filter((x) => x[k].use === 'used').length;
  const uses = [
    e.usesCluster ? `${count('cluster')} for cluster-wide traffic${e.clusterFallback ? ' (terminating fallback)' : ''}` : '',
    e.usesLocal ? `${count('local')} for Local-policy traffic${e.localFallback ? ' (terminating fallback)' : ''}` : '',
  ].filter((s) => s !== '');
  const head = `  Endpoints: ${e.endpoints.length} listed; used from this node: ${uses.join(', ')}`;
  if (e.endpoints.length === 0) return [`  Endpoints: none listed${e.hasAny ? '' : ' (connections are rejected)'}`];
  const rows = [['ENDPOINT', 'NODE', 'ZONE', 'STATE', 'CLUSTER', 'LOCAL', 'WHY']];
  for (const ep of e.endpoints) {
    rows.push([ep.port ? hostPort(ep.ip, ep.port) : ep.ip || '(none)', ep.nodeName ?? '-', ep.zone ?? '-', state(ep), use(ep.cluster), use(ep.local), why(ep)]);
  }
  const tail = e.hasAny ? [] : ['    no usable endpoint anywhere: connections are rejected'];
  return [head, ...table(rows, '    '), ...tail];
}

function state(ep: EndpointExplanation): string {
  if (ep.ready) return ep.terminating ? 'ready, terminating' : 'ready';
  if (ep.terminating) return ep.serving ? 'terminating, serving' : 'terminating';
  return ep.serving ? 'serving, not ready' : 'not ready';
}

function use(u: EndpointUse): string {
  return u.use === 'used' ? 'used' : u.use === 'unused' ? '-' : 'n/a';
}

function why(ep: EndpointExplanation): string {
  const c = ep.cluster.reason;
  const l = ep.local.reason;
  if (c && l && c.code === l.code) return `${c.code}: ${c.text}`;
  return [c ? `cluster ${c.code}: ${c.text}` : '', l ? `local ${l.code}: ${l.text}` : ''].filter((s) => s !== '').join('; ');
}

/** An element's value (what follows its key) or `(present)`; a chain's rule count: the table stays one line a row. */
function shownValue(c: KernelObjectCheck, text: string | undefined): string {
  if (text === undefined) return '';
  if (c.kind === 'chain') return `${text.split('\n').length} rules`;
  return text.startsWith(`${c.key} : `) ? text.slice(c.key.length + 3) : text === c.key ? '(present)' : text;
}

function kernelLines(checks: readonly KernelObjectCheck[]): string[] {
  const bad = checks.filter((c) => c.status !== 'as expected').length;
  const head = `  Kernel objects: ${checks.length} checked, ${bad === 0 ? 'all as expected' : `${bad} not as expected`}`;
  const rows = [['STATUS', 'OBJECT', 'KEY', 'EXPECTED', 'KERNEL']];
  for (const c of checks) {
    const object = c.kind === 'chain' ? 'chain' : `element ${c.set}`;
    rows.push([c.status, object, short(c.key), shownValue(c, c.expected), c.status === 'as expected' ? '' : shownValue(c, c.kernel) || '(none)']);
  }
  return [head, ...table(rows, '    ')];
}

const CLIENT: Record<ConnectionPath['client'], string> = { pod: 'a pod on this node', outside: 'a client outside the cluster' };

function pathLines(p: ConnectionPath): string[] {
  const source = p.source === undefined ? '' : p.source === 'allowed' ? ', source allowed' : ', source not allowed';
  const head = `    to ${p.kind} ${hostPort(p.ip, p.port)} from ${CLIENT[p.client]}${source}: ${p.summary}`;
  const rows = p.steps.map((s) => [s.hook ?? '', s.chain, short(s.rule), `-> ${s.verdict}`]);
  return [head, ...table(rows, '      ')];
}
