// What the live tests share: the proxy against the test API server with its kernel side in a test
// network namespace (test/traffic/harness.ts), scraped every second by a real Prometheus that
// evaluates the shipped rules, shortened (test-rules.ts). Helpers wait for an alert to fire and to
// resolve, and cause faults the way another process on a node would.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import { type Cluster, eventually, startCluster } from '../traffic/harness';
import { TestPrometheus, type Alert } from './prometheus-server';
import { SYNC_PERIOD_S, writeShortenedRules } from './test-rules';

export interface LiveCluster {
  c: Cluster;
  prom: TestPrometheus;
  /** The proxy's log lines (JSON). */
  log: string[];
  /** host:port of the proxy's metrics and healthz servers (loopback). */
  metricsAddress: string;
  healthzAddress: string;
  stop(): Promise<void>;
}

export async function startLiveCluster(o: { pods?: number; rules?: boolean } = {}): Promise<LiveCluster> {
  const log: string[] = [];
  const c = await startCluster({ pods: o.pods ?? 2, logLines: log, prefix: 'kpm', configYaml: `syncPeriod: ${SYNC_PERIOD_S}s` });
  const config = fs.readFileSync(c.configPath, 'utf8');
  const metricsAddress = /^metricsBindAddress: (\S+)$/m.exec(config)![1];
  const healthzAddress = /^healthzBindAddress: (\S+)$/m.exec(config)![1];
  let prom: TestPrometheus;
  try {
    prom = await TestPrometheus.start({ targets: [metricsAddress], rulesFile: o.rules === false ? undefined : writeShortenedRules() });
  } catch (e) {
    await c.stop();
    throw e;
  }
  await until(async () => (await prom.query('up{job="kube-proxy"} == 1')).length === 1, 'Prometheus to scrape the proxy', 30_000);
  return {
    c, prom, log, metricsAddress, healthzAddress,
    async stop() {
      await prom.stop();
      await c.stop();
    },
  };
}

/** harness.ts's eventually, polling every 500 ms (Prometheus evaluates every second). */
export function until<T>(check: () => Promise<T> | T, what: string | (() => string), ms: number): Promise<T> {
  return eventually(check, what, ms, 500);
}

/** Waits until `name` is firing; returns its alerts and how long it took. */
export async function firing(l: LiveCluster, name: string, ms: number, diagnose: string[] = []): Promise<{ alerts: Alert[]; afterMs: number }> {
  const t0 = Date.now();
  let active = '';
  const alerts = await until(async () => {
    const all = await l.prom.alerts();
    active = JSON.stringify(all.map((a) => [a.labels.alertname, a.state]));
    // On a timeout the message shows what Prometheus had for the alert's parts.
    for (const expr of diagnose) active += `; ${expr} = ${JSON.stringify((await l.prom.query(expr)).map((v) => v.value[1]))}`;
    const a = all.filter((x) => x.labels.alertname === name && x.state === 'firing');
    return a.length > 0 ? a : undefined;
  }, () => `${name} to fire; active alerts: ${active}`, ms);
  return { alerts: alerts!, afterMs: Date.now() - t0 };
}

/** Waits until `name` is neither firing nor pending; returns how long it took. */
export async function resolved(l: LiveCluster, name: string, ms: number): Promise<number> {
  const t0 = Date.now();
  await until(async () => (await l.prom.alerts()).every((a) => a.labels.alertname !== name), `${name} to resolve`, ms);
  return Date.now() - t0;
}

/** The names of the alerts firing now. */
export async function firingNames(l: LiveCluster): Promise<string[]> {
  return [...new Set((await l.prom.alerts()).filter((a) => a.state === 'firing').map((a) => a.labels.alertname))].sort();
}

/** One instant query's single value (NaN when empty). */
export async function value(l: LiveCluster, expr: string): Promise<number> {
  const r = await l.prom.query(expr);
  return r.length > 0 ? Number(r[0].value[1]) : NaN;
}

/**
 * Another process takes our table: `nft -i` in the node namespace deletes `ip kube-proxy` and makes
 * it again with the `owner` flag, so it belongs to nft's netlink socket and the kernel refuses every
 * commit of ours that touches it (EPERM) until that process exits, which destroys the table (as a
 * firewall daemon holding a table would). Resolves once the table is held; release() ends nft.
 */
export async function takeTable(l: LiveCluster): Promise<{ release: () => Promise<void> }> {
  const nft: ChildProcess = spawn('ip', ['netns', 'exec', l.c.topo.node.name, 'nft', '-i'], { stdio: ['pipe', 'ignore', 'pipe'] });
  let err = '';
  nft.stderr!.setEncoding('utf8').on('data', (d: string) => { err += d; });
  nft.stdin!.write('delete table ip kube-proxy\nadd table ip kube-proxy { flags owner; }\n');
  const exited = new Promise<void>((r) => nft.once('exit', () => r()));
  await until(() => {
    if (nft.exitCode !== null) throw new Error(`nft -i exited: ${err}`);
    return /flags owner/.test(tableText(l));
  }, 'the owned table', 10_000);
  return {
    async release() {
      nft.stdin!.end();
      await exited;
    },
  };
}

/** `nft list table ip kube-proxy` in the node namespace, or '' while there is no such table. */
export function tableText(l: LiveCluster): string {
  try { return l.c.topo.node.nft('list', 'table', 'ip', 'kube-proxy'); } catch { return ''; }
}

/** GET /healthz on the proxy's healthz server: its status code. */
export async function healthz(l: LiveCluster): Promise<number> {
  return (await fetch(`http://${l.healthzAddress}/healthz`)).status;
}
