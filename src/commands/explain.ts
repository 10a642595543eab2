// `kube-proxy-native explain NAMESPACE/SERVICE`: what the proxy does on this node for one Service,
// and why. The cluster is listed once as the proxy lists it (list-once.ts: the same flags and
// config, so explain sees what the proxy sees); the Service and its EndpointSlices are read as the
// API server holds them; each ServicePort is explained (src/proxier/nftables/explain-*.ts) and its
// kernel objects are looked up by key in our tables and compared with what the proxy would program
// now. Nothing is written: the kernel is only read (nf_conntrack_tcp_be_liberal, addresses, our
// elements and chains).
import type { ExplainRequest } from '../config';
import type { NodeTopology } from '../core/endpoint-selection';
import { zoneOf } from '../core/node-info';
import type { ServicePort } from '../core/types';
import { Nft, RtnlSocket } from '../native';
import {
  checkServicePortInKernel, claimsOf, compileService, EXPLAIN_API_VERSION, explainServicePort, familyContexts, renderExplainJson, renderExplainText, type ServicePortExplanation,
} from '../proxier/nftables';
import type { FamilyContext } from '../proxier/nftables/context';
import { nftablesCompileOptions } from '../app/nftables-options';
import { readTcpBeLiberal } from '../app/tcp-be-liberal';
import { healthCheckFacts } from './explain-health-check';
import { fetchServiceAndSlices, SERVICE_PROXY_NAME_LABEL, type ServiceAndSlices } from './explain-objects';
import { listOnce, type ListedModel, type ReadOnlyCommandOptions } from './list-once';
import { requireNftablesMode } from './nftables-only';

export interface ExplainOptions extends ReadOnlyCommandOptions {
  request: ExplainRequest;
}

/** Throws where the command exits 1: another mode, no such Service or port, a failed list or kernel read. */
export async function runExplain(o: ExplainOptions): Promise<void> {
  requireNftablesMode(o.config, 'explain reads');
  const { namespace, name } = o.request;
  const model = await listOnce({ config: o.config, log: o.log, master: o.master, timeoutMs: o.listTimeoutMs });
  const objects = await fetchServiceAndSlices(model.kubeConfig, namespace, name);
  if (!objects.service) throw new Error(`Service ${namespace}/${name} not found`);
  const service = `${namespace}/${name}`;
  const node = { nodeName: model.nodeName, zone: zoneOf(model.snapshot.node) };
  const why = notHandled(objects, model);
  if (why) {
    const doc = { apiVersion: EXPLAIN_API_VERSION, service, node: { name: node.nodeName, zone: node.zone }, handled: false, reason: why };
    o.out.write(o.request.output === 'json' ? `${JSON.stringify(doc, null, 2)}\n`
      : `Service ${service}: not handled by this proxy: ${why}\n`);
    return;
  }
  const ports = servicePorts(model, o.request);
  const explained = await explainPorts(o, model, node, objects, ports);
  const healthCheck = healthCheckFacts(service, model.snapshot.services.values(), o.config);
  o.out.write(o.request.output === 'json' ? renderExplainJson(service, node, explained, healthCheck) : renderExplainText(service, node, explained, healthCheck));
}

/** Why the proxy leaves the Service alone, as the watch's selectors and the model do; undefined when it handles it. */
export function notHandled(objects: Pick<ServiceAndSlices, 'service' | 'otherProxy'>, model: Pick<ListedModel, 'disabledNamespaces'>): string | undefined {
  const svc = objects.service ?? {};
  const ns = svc.metadata?.namespace ?? '';
  if (model.disabledNamespaces.includes(ns)) return `its Namespace ${ns} is labelled networking.k8s.io/kube-proxy=disabled`;
  if (objects.otherProxy) return `it is labelled ${SERVICE_PROXY_NAME_LABEL} (another proxy's)`;
  if (svc.spec?.type === 'ExternalName') return 'it is of type ExternalName (a DNS name, no proxying)';
  if (svc.spec?.clusterIP === 'None') return 'it is headless (clusterIP None: DNS returns the pods, no proxying)';
  return undefined;
}

/** The Service's ServicePorts in the model, both families, key order; --port by name or number. */
function servicePorts(model: ListedModel, req: ExplainRequest): ServicePort[] {
  const all = [...model.snapshot.services.values()]
    .filter((sp) => sp.namespace === req.namespace && sp.name === req.name)
    .sort((a, b) => a.key.localeCompare(b.key));
  if (req.port === undefined) return all;
  const wanted = all.filter((sp) => sp.portName === req.port || String(sp.port) === req.port);
  if (wanted.length === 0) {
    const have = [...new Set(all.map((sp) => (sp.portName ? `${sp.portName} (${sp.port})` : String(sp.port))))];
    throw new Error(`Service ${req.namespace}/${req.name} has no port ${req.port} (its ports: ${have.join(', ') || 'none of a family this proxy serves'})`);
  }
  return wanted;
}

async function explainPorts(o: ExplainOptions, model: ListedModel, node: NodeTopology, objects: ServiceAndSlices, ports: readonly ServicePort[]): Promise<ServicePortExplanation[]> {
  if (ports.length === 0) return [];
  const conntrackTCPLiberal = readTcpBeLiberal({ netns: o.netns });
  const contexts = familyContexts({ ...nftablesCompileOptions(o.config, model.families), conntrackTCPLiberal }, model.snapshot);
  const localAddresses = await nodeAddresses(o.netns);
  const refused = model.state.refusedClaims();
  const nft = Nft.open(o.netns ? { netns: o.netns } : undefined);
  try {
    const out: ServicePortExplanation[] = [];
    for (const sp of ports) {
      const ctx = contextOf(contexts, sp);
      const x = { ...explainServicePort({ sp, slices: objects.slices, node, ctx, localAddresses }), claims: claimsOf(sp, refused) };
      out.push(x.path.refused ? x : { ...x, kernel: await kernelCheck(nft, sp, model, ctx) });
    }
    return out;
  } finally {
    nft.close();
  }
}

function contextOf(contexts: readonly FamilyContext[], sp: ServicePort): FamilyContext {
  const family = sp.family === 'IPv6' ? 'ip6' : 'ip';
  const ctx = contexts.find((c) => c.family === family);
  if (!ctx) throw new Error(`${sp.key}: this proxy serves no ${sp.family} (its families: ${contexts.map((c) => c.family).join(', ')})`);
  return ctx;
}

/** What the proxy would program for the ServicePort now (the model's own selection), looked up in the kernel. */
function kernelCheck(nft: Nft, sp: ServicePort, model: ListedModel, ctx: FamilyContext) {
  return checkServicePortInKernel(nft, compileService(sp, model.snapshot.endpoints.get(sp.key), ctx), ctx);
}

/** Every address of the node (the network namespace's), for the NodePorts and external IPs that are local. */
async function nodeAddresses(netns: string | undefined): Promise<string[]> {
  const rtnl = new RtnlSocket(netns ? { netns } : {});
  try {
    return (await rtnl.addresses()).map((a) => a.address);
  } finally {
    rtnl.close();
  }
}
