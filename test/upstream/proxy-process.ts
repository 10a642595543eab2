// Our proxy as a node runs it: the installed command (bin/kube-proxy-native.js) with a config file
// and a kubeconfig, in the node's network namespace. A child process, not startProxy() in the test
// process: startProxy's `netns` option moves only the kernel side, and the test process lives in the
// host's namespace, which has no link to the control plane's (and gets none: tests make traffic only
// between namespaces they created). What the proxy did is read from outside: its log, its /metrics
// and /healthz (curl in the node's namespace), the API server's audit log, the node's nftables.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/topology';
import { eventually } from '../traffic/harness';
import type { TierNode } from './node';

const BIN = path.join(REPO_ROOT, 'bin', 'kube-proxy-native.js');
const HEALTHZ_PORT = 10256;
const METRICS_PORT = 10249;

export interface ProxyProcess {
  /** Every line it wrote (JSON log lines, verbosity 2), stdout and stderr together. */
  lines: string[];
  /** Resolves with the exit code once it exits. */
  exited: Promise<number | null>;
  /** GET http://127.0.0.1:PORT/PATH in the node's namespace: [status, body]. */
  get(port: 'healthz' | 'metrics', urlPath: string): [number, string];
  /**
   * Resolves once the first sync is done (kubeproxy_sync_proxy_rules_last_timestamp_seconds set);
   * throws with its log otherwise. Not /healthz: as upstream's, it answers 200 before any sync.
   */
  firstSync(timeoutMs?: number): Promise<void>;
  /** Sum of the samples of `name` whose labels include every pair of `labels`. */
  metric(name: string, labels?: Record<string, string>): number;
  stop(): Promise<void>;
}

export interface ProxyOptions {
  kubeconfig: string;
  /** Extra lines of the config file (a top-level key replaces the default's). */
  configYaml?: string;
}

/** The config file: nftables, the health and metrics ports on the node's loopback, conntrack left alone. */
function configFile(kubeconfig: string, extra: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-up-config-'));
  const lines = [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha2',
    'kind: KubeProxyConfiguration',
    'mode: nftables',
    `clientConnection: {kubeconfig: ${JSON.stringify(kubeconfig)}}`,
    `healthzBindAddress: 127.0.0.1:${HEALTHZ_PORT}`,
    `metricsBindAddress: 127.0.0.1:${METRICS_PORT}`,
    'syncPeriod: 30s',
    'minSyncPeriod: 100ms',
    'detectLocalMode: ClusterCIDR',
    'detectLocal: {clusterCIDRs: ["10.244.0.0/16"]}',
    // maxPerCore 0: nf_conntrack_max is global and read-only from a namespace; leave it.
    'linux: {conntrack: {maxPerCore: 0}}',
  ];
  const keys = new Set(extra.split('\n').map((l) => /^(\w+):/.exec(l)?.[1]).filter(Boolean));
  const file = path.join(dir, 'config.yaml');
  fs.writeFileSync(file, [...lines.filter((l) => !keys.has(/^(\w+):/.exec(l)?.[1])), extra].join('\n'));
  return file;
}

export function startProxyProcess(node: TierNode, o: ProxyOptions): ProxyProcess {
  const config = configFile(o.kubeconfig, o.configYaml ?? '');
  const child: ChildProcess = spawn('ip', ['netns', 'exec', node.ns.name, process.execPath, BIN, '--config', config,
    `--hostname-override=${node.name}`, '--logging-format=json', '-v=2'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  const take = (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    if (process.env.KPN_TEST_LOG) process.stderr.write(d);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => { if (partial) lines.push(partial); resolve(code); }));
  let running = true;
  void exited.then(() => { running = false; });

  const get = (port: 'healthz' | 'metrics', urlPath: string): [number, string] => {
    const p = port === 'healthz' ? HEALTHZ_PORT : METRICS_PORT;
    try {
      const out = node.ns.exec('curl', ['-s', '-m', '5', '-w', '\n%{http_code}', `http://127.0.0.1:${p}${urlPath}`]);
      const i = out.lastIndexOf('\n');
      return [Number(out.slice(i + 1)), out.slice(0, i)];
    } catch {
      return [0, ''];
    }
  };
  return {
    lines, exited, get,
    async firstSync(timeoutMs = 30_000) {
      await eventually(() => {
        if (!running) throw new Error(`the proxy exited before its first sync:\n${lines.join('\n')}`);
        return this.metric('kubeproxy_sync_proxy_rules_last_timestamp_seconds') > 0;
      }, () => `the proxy's first sync; its log:\n${lines.slice(-30).join('\n')}`, timeoutMs);
    },
    metric(name, labels = {}) {
      const [, body] = get('metrics', '/metrics');
      let sum = 0;
      for (const line of body.split('\n')) {
        const m = /^(\w+)(\{[^}]*\})? (\S+)$/.exec(line);
        if (!m || m[1] !== name) continue;
        const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
        if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
      }
      return sum;
    },
    async stop() {
      if (!running) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
