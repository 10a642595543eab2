// The whole proxy against a small cluster: the test API server (on loopback), the proxy started
// from a real command line with its kernel side in the `node` namespace of a Topology.
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startProxy, type RunningProxy } from '../../src/app/proxy-app';
import { parseCommandLine, type KubeProxyConfiguration } from '../../src/config';
import { createLogger } from '../../src/log';
import { TestApiServer } from '../apiserver/server';
import { NODE_IP, POD_CIDR, POD_CIDR6, Topology, type ProbeOptions } from '../helpers/topology';
import { endpointSlice, NODE_NAME, namespace, node, service, type PortSpec } from './fixtures';

export interface Cluster {
  api: TestApiServer;
  topo: Topology;
  /** The running proxy (a new one after restartProxy). */
  proxy: RunningProxy;
  /** The proxy's v1alpha2 config file (the API server's kubeconfig in it): for the CLI run beside it. */
  configPath: string;
  /**
   * Stops the proxy (which leaves the kernel as it is) and starts a new one with the same config;
   * `meanwhile` runs while no proxy runs.
   */
  restartProxy(meanwhile?: () => void | Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  pods?: number;
  ports?: number[];
  /** Extra lines of a v1alpha2 config file. */
  configYaml?: string;
  prefix?: string;
  /** Receives the proxy's log, one JSON line per entry (verbosity 4). */
  logLines?: string[];
  /** Runs once the pods serve and the API server runs, before the proxy starts (e.g. another proxy's rules). */
  beforeProxy?: (api: TestApiServer, topo: Topology) => void | Promise<void>;
}

/** A port free on 127.0.0.1 right now (validation wants a real port, not 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A v1alpha2 config file for the test topology (loopback ports, the API server's kubeconfig, `extra` lines). */
export async function configFile(kubeconfig: string, extra: string): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-config-'));
  const file = path.join(dir, 'config.yaml');
  const lines = [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha2',
    'kind: KubeProxyConfiguration',
    'mode: nftables',
    `clientConnection: {kubeconfig: ${JSON.stringify(kubeconfig)}}`,
    `hostnameOverride: ${NODE_NAME}`,
    `healthzBindAddress: 127.0.0.1:${await freePort()}`,
    `metricsBindAddress: 127.0.0.1:${await freePort()}`,
    'syncPeriod: 30s',
    'minSyncPeriod: 100ms',
    'detectLocalMode: ClusterCIDR',
    `detectLocal: {clusterCIDRs: [${JSON.stringify(POD_CIDR)}, ${JSON.stringify(POD_CIDR6)}]}`,
    'nodePortAddresses: ["198.18.0.0/24"]',
  ];
  // A top-level key in `extra` replaces the default line of the same key.
  const keys = new Set(extra.split('\n').map((l) => /^(\w+):/.exec(l)?.[1]).filter(Boolean));
  fs.writeFileSync(file, [...lines.filter((l) => !keys.has(/^(\w+):/.exec(l)?.[1])), extra].join('\n'));
  return file;
}

export async function startCluster(o: ClusterOptions = {}): Promise<Cluster> {
  const topo = Topology.create(o.pods ?? 3, o.prefix ?? 'kpt');
  const api = new TestApiServer({ bookmarkIntervalMs: 0 });
  let proxy: RunningProxy;
  let config: KubeProxyConfiguration;
  let configPath = '';
  try {
    await topo.startServers(o.ports ?? [8080]);
    await api.start();
    api.create('nodes', node(NODE_NAME, NODE_IP));
    api.create('namespaces', namespace('default'));
    configPath = await configFile(api.kubeconfig(), o.configYaml ?? '');
    const cl = parseCommandLine(['--config', configPath]);
    if (cl.errors.length > 0) throw new Error(`config: ${cl.errors.join('; ')}`);
    config = cl.config;
    await o.beforeProxy?.(api, topo);
    proxy = await launch(config, topo, o.logLines);
  } catch (e) {
    await api.stop().catch(() => {});
    topo.destroy();
    throw e;
  }
  const cfg = config;
  const cluster: Cluster = {
    api, topo, proxy, configPath,
    async restartProxy(meanwhile) {
      await cluster.proxy.stop();
      await meanwhile?.();
      cluster.proxy = await launch(cfg, topo, o.logLines);
    },
    async stop() {
      await cluster.proxy.stop();
      await api.stop();
      topo.destroy();
    },
  };
  return cluster;
}

function launch(config: KubeProxyConfiguration, topo: Topology, lines?: string[]): Promise<RunningProxy> {
  // KPN_TEST_LOG=1 shows the proxy's own log while debugging a test.
  const destination = lines
    ? { write: (l: string) => { lines.push(l); if (process.env.KPN_TEST_LOG) process.stderr.write(l); return true; } }
    : process.env.KPN_TEST_LOG ? process.stderr : { write: () => true };
  const log = createLogger({ format: lines ? 'json' : 'text', verbosity: 4, destination });
  return startProxy({ config, log, netns: topo.node.path, healthCheckAddresses: ['127.0.0.1'] });
}

/** How much longer waits may be where everything is slower: the emulated IPVS guest sets 3 (scripts/guest-tests.sh). */
const TIMEOUT_SCALE = Math.max(1, Number(process.env.KPN_TEST_TIMEOUT_SCALE) || 1);

/**
 * Polls `check` until it returns a truthy value or the time runs out (then throws naming `what`
 * and the last value; `what` may be a function so the message can describe the last attempt).
 */
export async function eventually<T>(check: () => T | Promise<T>, what: string | (() => string), timeoutMs = 10_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs * TIMEOUT_SCALE;
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}; last value: ${JSON.stringify(last)}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Which endpoint names answered, from probe lines "pod1 198.18.0.2". */
export function answeredBy(lines: string[]): Set<string> {
  return new Set(lines.filter((l) => !l.startsWith('ERR')).map((l) => l.split(' ')[0]));
}

/** Reply lines that came from an endpoint (not "ERR ..."). */
export function answers(lines: string[]): string[] {
  return lines.filter((l) => !l.startsWith('ERR'));
}

/** The source addresses the endpoints saw, from probe lines "pod1 198.18.0.2". */
export function sourcesSeen(lines: string[]): Set<string> {
  return new Set(answers(lines).map((l) => l.split(' ')[1]));
}

export type Proto = 'tcp' | 'udp';

/**
 * Probes once per poll until an endpoint answers; returns that answer. A poll waits 500 ms for a
 * reply unless told otherwise (an answer takes milliseconds; only unprogrammed probes wait it out).
 */
export function waitForAnswer(c: Cluster, proto: Proto, host: string, port: number, opts: ProbeOptions = {}): Promise<string> {
  let last = '';
  return eventually(() => {
    last = c.topo.probe(proto, host, port, 1, { timeoutMs: 500, ...opts })[0];
    return answers([last]).length > 0 ? last : '';
  }, () => `${proto} ${host}:${port} to answer (last reply: ${last})`);
}

/** Probes once per poll until the probe fails with `code` (e.g. ECONNREFUSED, TIMEOUT); returns the line. */
export function waitForError(c: Cluster, proto: Proto, host: string, port: number, code: string, opts: ProbeOptions = {}): Promise<string> {
  let last = '';
  return eventually(() => {
    last = c.topo.probe(proto, host, port, 1, opts)[0];
    return last === `ERR ${code}` ? last : '';
  }, () => `${proto} ${host}:${port} to fail with ${code} (last reply: ${last})`);
}

/**
 * `nft list ruleset <family>` in the node namespace, for assertions and failure messages. The whole
 * family, not just the `kube-proxy` table, so assertions hold however the proxier lays out its tables.
 */
export function ruleset(c: Cluster, family: 'ip' | 'ip6' = 'ip'): string {
  return c.topo.node.nft('list', 'ruleset', family);
}

async function pendingChanges(c: Cluster): Promise<number> {
  const [s, e] = await Promise.all([c.proxy.metrics.serviceChangesPending.get(), c.proxy.metrics.endpointChangesPending.get()]);
  return [...s.values, ...e.values].reduce((sum, v) => sum + v.value, 0);
}

/**
 * Resolves once a sync has applied every change the proxy had received when this was called (the
 * pending-changes gauges read zero after a sync). Never waits for a sync when nothing is pending.
 */
export async function applied(c: Cluster): Promise<void> {
  for (;;) {
    const next = c.proxy.nextSync();
    if (await pendingChanges(c) === 0) return;
    await next;
  }
}

/**
 * The namespace opt-out tests' two Services `web`: one in a new namespace `team` (ClusterIP
 * 100.100.4.10, pod0) and one in `default` (100.100.4.11, pod1), over `ports`' TCP 80 and UDP 53;
 * resolves once both answer (through `wait`, for modes whose first sync takes longer).
 */
export async function webInTeamAndDefault(c: Cluster, ports: PortSpec[], wait: typeof waitForAnswer = waitForAnswer): Promise<void> {
  c.api.create('namespaces', namespace('team'));
  for (const [ns, ip, pod] of [['team', '100.100.4.10', 0], ['default', '100.100.4.11', 1]] as const) {
    c.api.create('services', service('web', { namespace: ns, clusterIP: ip, ports }));
    c.api.create('endpointslices', endpointSlice('web', 'web-1', { namespace: ns, ports, endpoints: [{ ip: c.topo.pods[pod].ip }] }));
    await wait(c, 'tcp', ip, 80);
    await wait(c, 'udp', ip, 53);
  }
}
