// `npm run demo [-- --mode ipvs]`: builds a small cluster in network namespaces (a client, a node,
// three pods), starts the embedded test API server with a few Services, runs the proxy against it,
// shows the programmed rules and real requests reaching the endpoints, `explain` for one Service and
// `--dry-run --diff` (nftables mode), then removes everything it made. `--mode ipvs` runs the
// (deprecated) IPVS mode instead; scripts/demo.sh boots a guest kernel with IPVS for it when this one
// has none (docs/testing-ipvs.md).
import { runDryRun } from '../src/commands/dry-run';
import { runExplain } from '../src/commands/explain';
import { parseCommandLine } from '../src/config';
import { createLogger } from '../src/log';
import { IpvsSocket } from '../src/native';
import { formatIpvsListing } from '../src/proxier/ipvs';
import { answeredBy, eventually, startCluster, type Cluster } from '../test/traffic/harness';
import { endpointSlice, service } from '../test/traffic/fixtures';
import { NODE_IP } from '../test/helpers/topology';

const say = (s: string) => process.stdout.write(`${s}\n`);
const heading = (s: string) => say(`\n=== ${s} ${'='.repeat(Math.max(0, 70 - s.length))}`);

function createServices(c: Cluster): void {
  const web = [{ name: 'http', port: 80, targetPort: 8080, nodePort: 30080 }];
  c.api.create('services', service('web', { clusterIP: '100.100.0.10', type: 'NodePort', ports: web }));
  c.api.create('endpointslices', endpointSlice('web', 'web-abc12', { ports: web, endpoints: c.topo.pods.map((p) => ({ ip: p.ip })) }));
  const dns = [{ name: 'dns', port: 53, targetPort: 8053, protocol: 'UDP' as const }];
  c.api.create('services', service('dns', { clusterIP: '100.100.0.53', ports: dns }));
  c.api.create('endpointslices', endpointSlice('dns', 'dns-xyz34', { ports: dns, endpoints: c.topo.pods.slice(0, 2).map((p) => ({ ip: p.ip })) }));
  const empty = [{ name: 'http', port: 80, targetPort: 8080 }];
  c.api.create('services', service('no-endpoints', { clusterIP: '100.100.0.99', ports: empty }));
}

function show(label: string, lines: string[]): void {
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l, (counts.get(l) ?? 0) + 1);
  say(`${label}`);
  for (const [line, n] of [...counts].sort()) say(`    ${String(n).padStart(3)} x  ${line}`);
}

type Mode = 'nftables' | 'ipvs';

function modeFromArgs(args: string[]): Mode {
  const i = args.indexOf('--mode');
  const mode = i >= 0 ? args[i + 1] : args.find((a) => a.startsWith('--mode='))?.slice('--mode='.length);
  if (mode === undefined || mode === 'nftables') return 'nftables';
  if (mode === 'ipvs') return 'ipvs';
  throw new Error(`--mode: "${mode}" is not a mode of this demo (nftables, ipvs)`);
}

async function showRules(c: Cluster, mode: Mode): Promise<void> {
  if (mode === 'nftables') {
    heading('nft list table ip kube-proxy (in the node namespace)');
    // No chain per Service: Services are elements of cluster-ip-ports / nodeports and of the endpoint
    // maps (endpoints-3 for web's 3 pods, ...), picked by the select-* chains (docs/nftables-ruleset.md).
    say(c.topo.node.nft('list', 'table', 'ip', 'kube-proxy'));
    return;
  }
  heading('IPVS, as ipvsadm -Ln prints it, read through our own dump (node namespace)');
  const ipvs = await IpvsSocket.open({ netns: c.topo.node.path });
  try {
    say(formatIpvsListing(await ipvs.dump()));
  } finally {
    ipvs.close();
  }
  heading('ip addr show kube-ipvs0 (the virtual IPs; the link stays down, as upstream)');
  say(c.topo.node.exec('ip', ['-o', 'addr', 'show', 'dev', 'kube-ipvs0']).trimEnd());
  heading('nft list table ip kube-proxy-ipvs (the mode\'s own helper table: marks, filters)');
  say(c.topo.node.nft('list', 'table', 'ip', 'kube-proxy-ipvs'));
}

async function demo(c: Cluster, mode: Mode): Promise<void> {
  heading('Services in the test API server');
  createServices(c);
  say('  default/web           NodePort   100.100.0.10:80/TCP  nodePort 30080  -> 3 pods :8080');
  say('  default/dns           ClusterIP  100.100.0.53:53/UDP                   -> 2 pods :8053');
  say('  default/no-endpoints  ClusterIP  100.100.0.99:80/TCP                   -> no endpoints');
  // Generous: in the IPVS guest (software emulation) the lists before the first sync take ~10 s.
  await eventually(() => answeredBy(c.topo.probe('tcp', '100.100.0.10', 80, 1)).size > 0, 'the proxy to program web', 120_000);
  await eventually(() => answeredBy(c.topo.probe('udp', '100.100.0.53', 53, 1)).size > 0, 'the proxy to program dns', 120_000);

  await showRules(c, mode);

  heading('Real requests from the client namespace (reply: "<pod> <source IP the pod saw>")');
  show('TCP 100.100.0.10:80 (ClusterIP), 30 connections:', c.topo.probe('tcp', '100.100.0.10', 80, 30));
  show(`TCP ${NODE_IP}:30080 (NodePort), 30 connections:`, c.topo.probe('tcp', NODE_IP, 30080, 30));
  show('UDP 100.100.0.53:53 (ClusterIP), 10 datagrams:', c.topo.probe('udp', '100.100.0.53', 53, 10));
  show('TCP 100.100.0.99:80 (no endpoints: rejected):', c.topo.probe('tcp', '100.100.0.99', 80, 1));

  heading('Metrics and health');
  const metrics = await (await fetch(`http://127.0.0.1:${c.proxy.metricsPort}/metrics`)).text();
  for (const l of metrics.split('\n')) {
    if (/^kubeproxy_sync_proxy_rules_(duration_seconds_(count|sum)|last_timestamp_seconds)/.test(l)) say(`  ${l}`);
  }
  const health = await fetch(`http://127.0.0.1:${c.proxy.healthPort}/healthz`);
  say(`  GET /healthz -> ${health.status} ${await health.text()}`);

  if (mode === 'nftables') await showExplain(c);
}

/**
 * `kube-proxy-native explain default/web --config <the proxy's config>` and `--dry-run --diff`, as an
 * operator on the node types them. The demo's node is a network namespace and its API server listens
 * on the host's loopback, so the commands run in this process, reading the node namespace's kernel
 * (their netns option).
 */
async function showExplain(c: Cluster): Promise<void> {
  heading('kube-proxy-native explain default/web --config <the proxy\'s config>');
  const cl = parseCommandLine(['explain', 'default/web', '--config', c.configPath]);
  if (cl.errors.length > 0) throw new Error(`explain's command line: ${cl.errors.join('; ')}`);
  let text = '';
  const log = createLogger({ format: 'json', verbosity: 0, destination: { write: () => true } });
  await runExplain({ config: cl.config, log, request: cl.explain!, netns: c.topo.node.path, out: { write: (t) => { text += t; } } });
  for (const l of text.trimEnd().split('\n')) say(`  ${l}`);

  heading('kube-proxy-native --dry-run --diff --config <the proxy\'s config>');
  const dry = parseCommandLine(['--dry-run', '--diff', '--config', c.configPath]);
  if (dry.errors.length > 0) throw new Error(`--dry-run's command line: ${dry.errors.join('; ')}`);
  let diff = '';
  await runDryRun({ config: dry.config, log, master: dry.master, diff: true, netns: c.topo.node.path, out: { write: (t) => { diff += t; } } });
  for (const l of diff.trimEnd().split('\n')) say(`  ${l}`);
}

async function main(): Promise<void> {
  const mode = modeFromArgs(process.argv.slice(2));
  heading(`Creating namespaces: client, node, pod0..pod2 (veth, routed); proxy mode ${mode}; Node.js ${process.version}`);
  const c = await startCluster({ pods: 3, ports: [8080, 8053], prefix: 'kpdemo', configYaml: `mode: ${mode}` });
  try {
    // The proxy sets its sysctls only in its own namespace; run against the node's, the demo sets IPVS's there.
    if (mode === 'ipvs') for (const s of ['net.ipv4.vs.conntrack=1', 'net.ipv4.vs.expire_nodest_conn=1']) c.topo.node.exec('sysctl', ['-qw', s]);
    await demo(c, mode);
  } finally {
    heading('Cleaning up: proxy stopped, API server stopped, namespaces removed');
    await c.stop();
  }
}

main().then(() => process.exit(0), (e) => {
  process.stderr.write(`demo failed: ${e instanceof Error ? e.stack : e}\n`);
  process.exit(1);
});
