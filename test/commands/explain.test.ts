// `explain NAMESPACE/SERVICE` against the test API server and a real kernel (a fresh namespace the
// proxy synced): the right endpoints and reasons for each kind of Service, the kernel objects found
// as expected, then "missing" / "differs" after the test changes them behind the proxy's back; the
// Services the proxy does not handle, and the errors.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runExplain, type ExplainOptions } from '../../src/commands/explain';
import { startProxy } from '../../src/app/proxy-app';
import { parseCommandLine, type ExplainRequest } from '../../src/config';
import { createLogger } from '../../src/log';
import { TestApiServer } from '../apiserver/server';
import { createNetns, type TestNetns } from '../helpers/netns';
import { freePort } from '../traffic/harness';
import { endpointSlice, NODE_NAME, OTHER_NODE, namespace, node, service } from '../traffic/fixtures';

const quiet = createLogger({ format: 'json', verbosity: 0, destination: { write: () => true } });
const web = [{ name: 'http', port: 80, targetPort: 8080 }];

/** The zone-hinted slice: the first endpoint for this node's zone, the second for another. */
function hintedSlice(): any {
  const s = endpointSlice('zoned', 'zoned-1', { ports: web, endpoints: [{ ip: '10.244.1.30' }, { ip: '10.244.2.31', nodeName: OTHER_NODE }] });
  s.endpoints[0].zone = 'zone-a';
  s.endpoints[0].hints = { forZones: [{ name: 'zone-a' }] };
  s.endpoints[1].zone = 'zone-b';
  s.endpoints[1].hints = { forZones: [{ name: 'zone-b' }] };
  return s;
}

function populate(api: TestApiServer): void {
  api.create('nodes', node(NODE_NAME, '192.0.2.10', { 'topology.kubernetes.io/zone': 'zone-a' }));
  api.create('namespaces', namespace('default'));
  api.create('namespaces', namespace('off', { 'networking.k8s.io/kube-proxy': 'disabled' }));
  api.create('services', service('web', { clusterIP: '10.96.0.10', ports: web }));
  api.create('endpointslices', endpointSlice('web', 'web-1', { ports: web, endpoints: [
    { ip: '10.244.1.5' }, { ip: '10.244.2.6', nodeName: OTHER_NODE }, { ip: '10.244.1.7', ready: false, serving: false },
    { ip: '10.244.1.9', ready: false, serving: true, terminating: true },
  ] }));
  // The wrong family: an IPv6 slice under an IPv4-only Service.
  api.create('endpointslices', endpointSlice('web', 'web-v6', { ports: web, endpoints: [{ ip: 'fd00:244::5' }] }));
  const loc = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }];
  api.create('services', service('local', { clusterIP: '10.96.0.11', ports: loc, type: 'NodePort', externalTrafficPolicy: 'Local' }));
  api.create('endpointslices', endpointSlice('local', 'local-1', { ports: loc, endpoints: [{ ip: '10.244.1.8' }, { ip: '10.244.2.9', nodeName: OTHER_NODE }] }));
  api.create('services', service('zoned', { clusterIP: '10.96.0.14', ports: web }));
  api.create('endpointslices', hintedSlice());
  const dns = [{ name: 'dns', port: 53, protocol: 'UDP' as const }];
  api.create('services', service('sticky', { clusterIP: '10.96.0.12', ports: dns, affinitySeconds: 600 }));
  api.create('endpointslices', endpointSlice('sticky', 'sticky-1', { ports: dns, endpoints: [{ ip: '10.244.1.10' }, { ip: '10.244.1.11' }] }));
  api.create('services', service('empty', { clusterIP: '10.96.0.13', ports: [{ name: 'https', port: 443 }] }));
  api.create('services', service('other', { clusterIP: '10.96.0.15', ports: web, labels: { 'service.kubernetes.io/service-proxy-name': 'cilium' } }));
  api.create('services', service('hidden', { namespace: 'off', clusterIP: '10.96.0.16', ports: web }));
  // Claims web's ClusterIP and port as an external IP: refused (a ClusterIP beats an external IP).
  api.create('services', service('claimer', { clusterIP: '10.96.0.17', externalIPs: ['10.96.0.10', '203.0.113.17'], ports: web }));
  api.create('endpointslices', endpointSlice('claimer', 'claimer-1', { ports: web, endpoints: [{ ip: '10.244.1.40' }] }));
}

/** LoadBalancers with externalTrafficPolicy Local whose health-check node port the running proxy cannot bind. */
function populateHealthChecks(api: TestApiServer, healthzPort: number): void {
  const ports = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30090 }];
  const lb = (name: string, hcPort: number, created: string, nodePort: number) => {
    const svc = service(name, { clusterIP: `10.96.1.${nodePort - 30090 + 1}`, ports: [{ ...ports[0], nodePort }], type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: hcPort });
    svc.metadata.creationTimestamp = created;
    api.create('services', svc);
  };
  lb('lb-new', 32100, '2025-02-01T00:00:00Z', 30090);
  lb('lb-old', 32100, '2025-01-01T00:00:00Z', 30091);
  lb('lb-healthz', healthzPort, '2025-01-01T00:00:00Z', 30092);
}

async function config() {
  const cl = parseCommandLine(['--proxy-mode=nftables', `--hostname-override=${NODE_NAME}`, '--cluster-cidr=10.244.0.0/16',
    `--healthz-bind-address=127.0.0.1:${await freePort()}`, `--metrics-bind-address=127.0.0.1:${await freePort()}`]);
  assert.deepEqual(cl.errors, []);
  return cl.config;
}

type Port = { key: string; endpoints: { topology: string; list: { ip: string; cluster: Use; local: Use }[] }; kernel?: Check[]; paths: { kind: string; client: string; outcome: string }[] };
type Use = { use: string; reason?: { code: string } };
type Check = { kind: string; set?: string; chain?: string; key: string; status: string; kernel?: string };

describe('explain', { timeout: 120_000 }, () => {
  const api = new TestApiServer({ bookmarkIntervalMs: 0 });
  let ns: TestNetns;
  let base: ExplainOptions['config'];

  async function explain(service: string, o: Partial<ExplainRequest> = {}): Promise<string> {
    const [namespace, name] = service.split('/');
    let text = '';
    await runExplain({ config: base, log: quiet, master: api.url, netns: ns.path, request: { namespace, name, output: 'json', ...o }, out: { write: (t) => { text += t; } } });
    return text;
  }
  const ports = async (service: string, o: Partial<ExplainRequest> = {}): Promise<Port[]> => JSON.parse(await explain(service, o)).servicePorts;
  const byIp = (p: Port) => new Map(p.endpoints.list.map((e) => [e.ip, e]));

  before(async () => {
    await api.start();
    populate(api);
    base = await config();
    populateHealthChecks(api, Number(base.healthzBindAddress.split(':')[1]));
    ns = createNetns('kpn-explain');
    const proxy = await startProxy({ config: base, log: quiet, netns: ns.path, master: api.url, healthCheckAddresses: ['127.0.0.1'] });
    try {
      const first = await proxy.nextSync();
      assert.equal(first.ok, true, String(first.error));
    } finally {
      await proxy.stop(); // its guard would repair what the tests change behind its back
    }
  });

  after(async () => {
    ns?.destroy();
    await api.stop();
  });

  it('names every endpoint, used or not with the reason, and finds every kernel object as expected', async () => {
    const [p] = await ports('default/web');
    assert.equal(p.key, 'default/web:http/TCP/IPv4');
    const eps = byIp(p);
    assert.equal(eps.get('10.244.1.5')?.cluster.use, 'used');
    assert.equal(eps.get('10.244.2.6')?.cluster.use, 'used', 'Cluster policy: other nodes\' endpoints too');
    assert.equal(eps.get('10.244.1.7')?.cluster.reason?.code, 'not-ready');
    assert.equal(eps.get('10.244.1.9')?.cluster.reason?.code, 'terminating-not-needed');
    assert.equal(eps.get('fd00:244::5')?.cluster.reason?.code, 'wrong-family');
    assert.ok(p.kernel && p.kernel.length >= 4, 'cluster-ips, cluster-ip-ports, the endpoint map\'s elements, hairpin');
    assert.deepEqual(p.kernel.filter((c) => c.status !== 'as expected'), []);
    assert.ok(p.kernel.some((c) => c.set === 'endpoints-2'), 'the 2-endpoint map');
    assert.deepEqual(p.paths.filter((x) => x.kind === 'ClusterIP').map((x) => x.outcome), ['dnat', 'dnat']);
  });

  it('says which endpoints a Local policy leaves out, and which a zone hint does', async () => {
    const [loc] = await ports('default/local');
    assert.equal(byIp(loc).get('10.244.2.9')?.local.reason?.code, 'not-local');
    assert.equal(byIp(loc).get('10.244.1.8')?.local.use, 'used');
    const [zoned] = await ports('default/zoned');
    assert.equal(zoned.endpoints.topology, 'PreferSameZone');
    assert.equal(byIp(zoned).get('10.244.2.31')?.cluster.reason?.code, 'other-zone');
    assert.equal(byIp(zoned).get('10.244.1.30')?.cluster.use, 'used');
  });

  it('shows a Service without endpoints rejected, and an affinity Service\'s pairs in the kernel', async () => {
    const [empty] = await ports('default/empty');
    assert.ok(empty.paths.length > 0 && empty.paths.every((x) => x.outcome === 'reject'), JSON.stringify(empty.paths.map((x) => x.outcome)));
    assert.ok(empty.kernel?.some((c) => c.set === 'no-endpoint-services' && c.status === 'as expected'));
    const [sticky] = await ports('default/sticky');
    const pairs = sticky.kernel!.filter((c) => c.set === 'affinity-endpoints-600');
    assert.ok(pairs.length === 2 && pairs.every((c) => c.status === 'as expected'), JSON.stringify(pairs));
    assert.match(await explain('default/sticky', { output: 'text' }), /@affinity-records/);
  });

  it('reports an element deleted behind the proxy\'s back as missing, and one pointed elsewhere as differs', async () => {
    ns.nft('delete', 'element', 'ip', 'kube-proxy', 'cluster-ip-ports', '{ 10.96.0.10 . tcp . 80 }');
    const [p] = await ports('default/web');
    const missing = p.kernel!.filter((c) => c.status === 'missing');
    assert.deepEqual(missing.map((c) => [c.set, c.key]), [['cluster-ip-ports', '10.96.0.10 . tcp . 80']]);
    const el = p.kernel!.find((c) => c.set === 'endpoints-2' && c.status === 'as expected')!;
    ns.exec('nft', ['-f', '-'], `delete element ip kube-proxy endpoints-2 { ${el.key} }\nadd element ip kube-proxy endpoints-2 { ${el.key} : 10.244.9.9 . 8080 }\n`);
    const [after] = await ports('default/web');
    const differs = after.kernel!.filter((c) => c.status === 'differs');
    assert.deepEqual(differs.map((c) => c.key), [el.key]);
    assert.match(differs[0].kernel ?? '', /10\.244\.9\.9 \. 8080/);
    const text = await explain('default/web', { output: 'text' });
    assert.match(text, /Kernel objects: \d+ checked, 2 not as expected/);
    assert.match(text, /missing +element cluster-ip-ports +10\.96\.0\.10 \. tcp \. 80/);
  });

  it('shows both sides of a refused address claim: the owner, and the claimant with the reason', async () => {
    type Claim = { role: string; claim: string; otherClaim: string; key: string; other: string; reason: string };
    const [owner] = (await ports('default/web')) as (Port & { claims?: Claim[] })[];
    assert.deepEqual(owner.claims, [{
      role: 'owns', claim: 'ClusterIP', otherClaim: 'externalIP', key: '10.96.0.10:80/TCP',
      other: 'default/claimer:http/TCP/IPv4', reason: 'a ClusterIP beats an external or load-balancer IP',
    }]);
    const [claimant] = (await ports('default/claimer')) as (Port & { claims?: Claim[]; addresses: { kind: string; ip: string }[] })[];
    assert.deepEqual(claimant.claims?.map((c) => [c.role, c.claim, c.key, c.other]), [['lost', 'externalIP', '10.96.0.10:80/TCP', 'default/web:http/TCP/IPv4']]);
    assert.deepEqual(claimant.addresses.map((a) => `${a.kind} ${a.ip}`), ['ClusterIP 10.96.0.17', 'ExternalIP 203.0.113.17'], 'the lost address is not reachable through it');
    assert.deepEqual(claimant.kernel!.filter((c) => c.status !== 'as expected'), [], 'what is programmed for it is exactly its own keys');
    assert.ok(!claimant.kernel!.some((c) => c.key.startsWith('10.96.0.10 ')), 'nothing of the lost key is programmed for it');
    const text = await explain('default/claimer', { output: 'text' });
    assert.match(text, /Address claims shared with another Service\n +externalIP 10\.96\.0\.10:80\/TCP: REFUSED, owned by default\/web \(port http\) as its ClusterIP/);
    assert.match(await explain('default/web', { output: 'text' }), /ClusterIP 10\.96\.0\.10:80\/TCP: owned; also claimed by default\/claimer \(port http\) as its externalIP, refused/);
  });

  it('says why it does not handle a Service of another proxy or of a disabled Namespace', async () => {
    assert.match(await explain('default/other', { output: 'text' }), /not handled by this proxy: it is labelled service\.kubernetes\.io\/service-proxy-name \(another proxy.s\)/);
    const hidden = JSON.parse(await explain('off/hidden'));
    assert.equal(hidden.handled, false);
    assert.equal(hidden.apiVersion, 'kube-proxy-native/explain/v1');
    assert.match(hidden.reason, /Namespace off is labelled networking\.k8s\.io\/kube-proxy=disabled/);
  });

  it('states what it checked about a health-check node port: one shared with an older Service, the proxy\'s own healthz port', async () => {
    const shared = JSON.parse(await explain('default/lb-new')).healthCheckNodePort;
    assert.equal(shared.port, 32100);
    assert.deepEqual(shared.conflicts.map((c: { kind: string; with: string; owner: string }) => [c.kind, c.with, c.owner]), [['Service', 'default/lb-old', 'default/lb-old']]);
    const old = JSON.parse(await explain('default/lb-old')).healthCheckNodePort;
    assert.deepEqual(old.conflicts.map((c: { owner: string }) => c.owner), ['default/lb-old']);
    const text = await explain('default/lb-healthz', { output: 'text' });
    assert.match(text, new RegExp(`Health-check node port ${base.healthzBindAddress.split(':')[1]}: 1 CONFLICT\n  this proxy's healthz server \\(healthzBindAddress ${base.healthzBindAddress.replace(/\./g, '\\.')}\\) listens on port`));
    assert.match(text, /\n  not checked: whether the running proxy holds the port/);
    assert.equal('healthCheckNodePort' in JSON.parse(await explain('default/web')), false, 'none for a Service without one');
  });

  it('takes --port by name or number, and fails clearly on an unknown Service or port', async () => {
    assert.equal((await ports('default/web', { port: '80' })).length, 1);
    assert.equal((await ports('default/web', { port: 'http' })).length, 1);
    await assert.rejects(explain('default/web', { port: 'grpc' }), /Service default\/web has no port grpc \(its ports: http \(80\)\)/);
    await assert.rejects(explain('default/nope'), /Service default\/nope not found/);
    const ipvs = parseCommandLine(['--proxy-mode=ipvs', `--hostname-override=${NODE_NAME}`]).config;
    await assert.rejects(runExplain({ config: ipvs, log: quiet, master: api.url, request: { namespace: 'default', name: 'web', output: 'text' }, out: { write: () => true } }),
      /explain reads the nftables mode's ruleset only, and the configured proxy mode is "ipvs"/);
  });
});
