// Where the healthz server and the health-check node ports listen, on a real kernel in a network
// namespace with addresses of both families. Upstream (Go) listens with net.Listen("tcp", addr): a
// wildcard address is one dual-stack socket (cmd/kube-proxy/app/server.go serveHealthz,
// pkg/proxy/healthcheck/proxy_health.go Run, service_health.go listenAndServeAll); health-check node
// ports listen on the node IPs nodePortAddresses selects, per family (service_health.go
// newServiceHealthServer, pkg/proxy/util/nodeport_addresses.go GetNodeIPs).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { withNetns, type TestNetns } from '../helpers/netns';
import type { ChildAnswer, ChildRequest } from './netns-listen-child';

const CHILD = path.join(__dirname, 'netns-listen-child.js');
const PORT = 31999;

function run(ns: TestNetns, req: ChildRequest): ChildAnswer {
  return JSON.parse(ns.exec(process.execPath, [CHILD, JSON.stringify(req)]).trim().split('\n').at(-1)!) as ChildAnswer;
}

/** A veth pair with two IPv4 and two IPv6 subnets, so some addresses are inside nodePortAddresses and some not. */
function addNodeAddresses(ns: TestNetns): void {
  ns.exec('ip', ['link', 'add', 'node0', 'type', 'veth', 'peer', 'name', 'node1']);
  for (const l of ['node0', 'node1']) ns.exec('ip', ['link', 'set', l, 'up']);
  for (const a of ['10.1.0.1/24', '10.2.0.1/24']) ns.exec('ip', ['addr', 'add', a, 'dev', 'node0']);
  for (const a of ['fd00:1::1/64', 'fd00:2::1/64']) ns.exec('ip', ['-6', 'addr', 'add', a, 'dev', 'node0', 'nodad']);
}

const url = (host: string, port: number, p = '/'): string => `http://${host.includes(':') ? `[${host}]` : host}:${port}${p}`;

describe('dual-stack listening in a network namespace', { timeout: 120_000 }, () => {
  it('healthz with the default bind address (0.0.0.0:10256) answers on 127.0.0.1 and ::1, as upstream\'s Go listener', async () => {
    await withNetns((ns) => {
      const a = run(ns, { healthz: {}, probe: [url('127.0.0.1', 10256, '/livez'), url('::1', 10256, '/livez')] });
      assert.equal(a.bindAddress, '0.0.0.0:10256');
      assert.deepEqual(a.results, { [url('127.0.0.1', 10256, '/livez')]: 200, [url('::1', 10256, '/livez')]: 200 });
    });
  });

  it('healthz on an explicit IPv4 address stays IPv4-only', async () => {
    await withNetns((ns) => {
      const a = run(ns, { healthz: { bindAddress: '127.0.0.1:10256' }, probe: [url('127.0.0.1', 10256, '/livez'), url('::1', 10256, '/livez')] });
      assert.deepEqual(a.results, { [url('127.0.0.1', 10256, '/livez')]: 200, [url('::1', 10256, '/livez')]: 'ECONNREFUSED' });
    });
  });

  it('the metrics server\'s default stays 127.0.0.1:10249 (upstream v1alpha1 defaults): IPv4 loopback only', async () => {
    await withNetns((ns) => {
      const a = run(ns, { metrics: true, probe: [url('127.0.0.1', 10249, '/metrics'), url('::1', 10249, '/metrics')] });
      assert.equal(a.metricsBindAddress, '127.0.0.1:10249');
      assert.deepEqual(a.results, { [url('127.0.0.1', 10249, '/metrics')]: 200, [url('::1', 10249, '/metrics')]: 'ECONNREFUSED' });
    });
  });

  it('healthz with the wildcard still serves IPv4 where IPv6 is disabled (sysctl disable_ipv6)', async () => {
    await withNetns((ns) => {
      ns.exec('sysctl', ['-qw', 'net.ipv6.conf.all.disable_ipv6=1']);
      ns.exec('sysctl', ['-qw', 'net.ipv6.conf.lo.disable_ipv6=1']);
      const a = run(ns, { healthz: {}, probe: [url('127.0.0.1', 10256, '/livez')] });
      assert.deepEqual(a.results, { [url('127.0.0.1', 10256, '/livez')]: 200 });
    });
  });

  it('a health-check node port answers on the v4 and v6 node addresses inside nodePortAddresses, and not outside them', async () => {
    await withNetns((ns) => {
      addNodeAddresses(ns);
      const inside = [url('10.1.0.1', PORT), url('fd00:1::1', PORT)];
      const outside = [url('10.2.0.1', PORT), url('fd00:2::1', PORT), url('127.0.0.1', PORT), url('::1', PORT)];
      const a = run(ns, {
        nodePort: { port: PORT, nodePortAddresses: ['10.1.0.0/24', 'fd00:1::/64'], families: ['IPv4', 'IPv6'], readyLocal: 1 },
        probe: [...inside, ...outside],
      });
      assert.deepEqual(a.addresses?.sort(), ['10.1.0.1', 'fd00:1::1']);
      for (const u of inside) assert.equal(a.results[u], 200, u);
      for (const u of outside) assert.equal(a.results[u], 'ECONNREFUSED', u);
    });
  });

  it('with nodePortAddresses unset it answers on every address of both families, 503 without ready local endpoints', async () => {
    await withNetns((ns) => {
      addNodeAddresses(ns);
      const all = ['10.1.0.1', '10.2.0.1', 'fd00:1::1', 'fd00:2::1', '127.0.0.1', '::1'].map((h) => url(h, PORT));
      const a = run(ns, { nodePort: { port: PORT, nodePortAddresses: [], families: ['IPv4', 'IPv6'], readyLocal: 0 }, probe: all });
      assert.deepEqual(a.addresses, ['0.0.0.0']);
      for (const u of all) assert.equal(a.results[u], 503, u);
    });
  });

  it('an IPv4-only proxy with IPv4 CIDRs does not listen on IPv6 at all', async () => {
    await withNetns((ns) => {
      addNodeAddresses(ns);
      const a = run(ns, {
        nodePort: { port: PORT, nodePortAddresses: ['10.2.0.0/24'], families: ['IPv4'], readyLocal: 2 },
        probe: [url('10.2.0.1', PORT), url('10.1.0.1', PORT), url('fd00:1::1', PORT)],
      });
      assert.deepEqual(a.results, { [url('10.2.0.1', PORT)]: 200, [url('10.1.0.1', PORT)]: 'ECONNREFUSED', [url('fd00:1::1', PORT)]: 'ECONNREFUSED' });
    });
  });
});
