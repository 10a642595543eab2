// Services of the scale bench, drawn in the mix a large production cluster has (mostly ClusterIP;
// some multi-port, NodePort, LoadBalancer with ingress IPs, session affinity, Local traffic
// policies, topology hints), with the metadata bulk the API server sends (object-bulk.ts).
import { intToIp4 } from '../lib/cluster';
import { fieldsV1, helmLabels, listKey, managedEntry, type Rng, timestamp } from './object-bulk';
import { LB_BASE, SERVICE_BASE, WORDS, type KObject, type PortPlan, type ScaleCluster, type ServicePlan } from './cluster-state';

const HTTP: PortPlan = { name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 };
const HTTPS: PortPlan = { name: 'https', protocol: 'TCP', port: 443, targetPort: 8443 };
const METRICS: PortPlan = { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9090 };
const DNS: PortPlan[] = [{ name: 'dns', protocol: 'UDP', port: 53, targetPort: 53 }, { name: 'dns-tcp', protocol: 'TCP', port: 53, targetPort: 53 }];

function allocNodePort(c: ScaleCluster): number {
  // Past 32767 (the API server's default range) at large N, as bench/lib/cluster.ts does: the kernel does not care.
  if (c.nextNodePort > 49_999) throw new RangeError('out of NodePorts (30000-49999; ports above are the bench namespace\'s ephemeral range)');
  return c.nextNodePort++;
}

function portsOf(rng: Rng): PortPlan[] {
  const r = rng.next();
  if (r < 0.02) return DNS.map((p) => ({ ...p }));
  if (r < 0.72) return [{ ...HTTP }];
  if (r < 0.92) return [{ ...HTTP }, { ...HTTPS }];
  return [{ ...HTTP }, { ...HTTPS }, { ...METRICS }];
}

/** Draws the next Service: ~80% ClusterIP, 12% NodePort, 8% LoadBalancer; see docs/benchmarks.md for the mix. */
export function planService(c: ScaleCluster): ServicePlan {
  const { rng } = c;
  const index = c.nextIndex++;
  const namespace = `team-${rng.int(Math.max(10, Math.round(c.spec.services / 40)))}`;
  const name = `${rng.pick(WORDS)}-${rng.pick(WORDS)}-${index}`;
  const t = rng.next();
  const type = t < 0.8 ? 'ClusterIP' : t < 0.92 ? 'NodePort' : 'LoadBalancer';
  const ports = portsOf(rng);
  const external = type !== 'ClusterIP';
  if (external) for (const p of ports) p.nodePort = allocNodePort(c);
  const externalLocal = external && rng.next() < 0.3;
  const plan: ServicePlan = {
    index, name, namespace, uid: rng.uid(), type, ports,
    clusterIP: intToIp4(SERVICE_BASE + 1 + index),
    affinity: rng.next() < 0.05,
    externalLocal,
    internalLocal: rng.next() < 0.01,
    healthCheckNodePort: type === 'LoadBalancer' && externalLocal ? allocNodePort(c) : undefined,
    loadBalancerIP: type === 'LoadBalancer' ? intToIp4(LB_BASE + c.nextLb++) : undefined,
    topologyHints: rng.next() < 0.1,
    kubectlApplied: rng.next() < 0.1,
    created: timestamp(rng),
    labels: helmLabels(name.replace(/-\d+$/, ''), namespace, rng),
  };
  c.plans.set(index, plan);
  return plan;
}

function specOf(p: ServicePlan): KObject {
  const spec: KObject = {
    ports: p.ports.map((q) => ({ name: q.name, protocol: q.protocol, port: q.port, targetPort: q.targetPort, ...(q.nodePort ? { nodePort: q.nodePort } : {}) })),
    selector: { 'app.kubernetes.io/name': p.labels['app.kubernetes.io/name'], 'app.kubernetes.io/instance': p.labels['app.kubernetes.io/instance'] },
    clusterIP: p.clusterIP,
    clusterIPs: [p.clusterIP],
    type: p.type,
    sessionAffinity: p.affinity ? 'ClientIP' : 'None',
  };
  if (p.affinity) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  if (p.type !== 'ClusterIP') spec.externalTrafficPolicy = p.externalLocal ? 'Local' : 'Cluster';
  if (p.healthCheckNodePort) spec.healthCheckNodePort = p.healthCheckNodePort;
  Object.assign(spec, { ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
  if (p.type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts = true;
  spec.internalTrafficPolicy = p.internalLocal ? 'Local' : 'Cluster';
  return spec;
}

function annotationsOf(p: ServicePlan, applied: KObject): Record<string, string> {
  const a: Record<string, string> = { 'meta.helm.sh/release-name': p.labels['app.kubernetes.io/instance'], 'meta.helm.sh/release-namespace': p.namespace };
  if (p.topologyHints) a['service.kubernetes.io/topology-mode'] = 'Auto';
  if (p.type === 'LoadBalancer') {
    a['service.beta.kubernetes.io/aws-load-balancer-type'] = 'nlb';
    a['service.beta.kubernetes.io/aws-load-balancer-scheme'] = 'internal';
  }
  if (p.kubectlApplied) a['kubectl.kubernetes.io/last-applied-configuration'] = `${JSON.stringify(applied)}\n`;
  return a;
}

/** The Service as the API server returns it (resourceVersion is the store's). */
export function serviceObject(p: ServicePlan): KObject {
  const spec = specOf(p);
  // What the user applied: the spec without the fields the API server allocates.
  const userSpec = { ports: p.ports.map((q) => ({ name: q.name, port: q.port, protocol: q.protocol, targetPort: q.targetPort })), selector: spec.selector, type: p.type,
    ...(p.affinity ? { sessionAffinity: 'ClientIP' } : {}), ...(spec.externalTrafficPolicy ? { externalTrafficPolicy: spec.externalTrafficPolicy } : {}) };
  const applied = { apiVersion: 'v1', kind: 'Service', metadata: { labels: p.labels, name: p.name, namespace: p.namespace }, spec: userSpec };
  const annotations = annotationsOf(p, applied);
  const manager = p.kubectlApplied ? 'kubectl-client-side-apply' : 'helm';
  const managedFields = [managedEntry(manager, 'v1', p.created, fieldsV1({ metadata: { annotations, labels: p.labels }, spec: userSpec }, listKey, '', ['spec.selector']))];
  const status: KObject = { loadBalancer: p.loadBalancerIP ? { ingress: [{ ip: p.loadBalancerIP, ipMode: 'VIP' }] } : {} };
  if (p.loadBalancerIP) managedFields.push(managedEntry('cloud-controller-manager', 'v1', p.created, fieldsV1({ status }, listKey, '', ['status.loadBalancer.ingress']), 'status'));
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: p.name, namespace: p.namespace, uid: p.uid, creationTimestamp: p.created, labels: p.labels, annotations, managedFields },
    spec, status,
  };
}

