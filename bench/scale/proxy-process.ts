// The real `kube-proxy-native` command (bin/kube-proxy-native.js, no extra node flags, as the image
// runs it), spawned in the current network namespace with a config file and a kubeconfig, and watched
// from outside: its JSON log lines on stderr (one "sync finished" line per sync, with the seconds the
// sync loop observed into sync_proxy_rules_duration_seconds) and its /metrics.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { CLUSTER_CIDR, NODE_CIDR, NODE_NAME } from './cluster-state';

const BIN = join(__dirname, '..', '..', '..', 'bin', 'kube-proxy-native.js');
export const METRICS_PORT = 10249;
export const HEALTHZ_PORT = 10256;

/**
 * One sync, from the process's "sync finished" log line; atMs is when the line arrived (performance.now()).
 * ops and bytes: the transactions it committed, from the "committing nftables transaction" lines
 * before it (0 when it committed nothing).
 */
export interface SyncLine { atMs: number; seconds: number; full: boolean; ok: boolean; changed: number; reason: string; ops: number; bytes: number }

/** One forced GC around a full sync, from the process's "memory released" log line. */
export interface ReleaseLine { atMs: number; when: string; gcMs: number; heapTotalMiB: number[] }

/**
 * The proxy's configuration: upstream's defaults (syncPeriod 30 s, minSyncPeriod 1 s) except for
 * -v=4, which logs the one "sync finished" line per sync the bench reads, and conntrack maxPerCore 0:
 * nf_conntrack_max is global, not the bench's to raise (and not writable from a namespace anyway).
 */
export function configYaml(kubeconfig: string): string {
  return [
    'apiVersion: kubeproxy.config.k8s.io/v1alpha2',
    'kind: KubeProxyConfiguration',
    'mode: nftables',
    `clientConnection: {kubeconfig: ${JSON.stringify(kubeconfig)}}`,
    `hostnameOverride: ${NODE_NAME}`,
    `healthzBindAddress: 127.0.0.1:${HEALTHZ_PORT}`,
    `metricsBindAddress: 127.0.0.1:${METRICS_PORT}`,
    'detectLocalMode: ClusterCIDR',
    `detectLocal: {clusterCIDRs: [${JSON.stringify(CLUSTER_CIDR)}]}`,
    `nodePortAddresses: [${JSON.stringify(NODE_CIDR)}]`,
    'logging: {format: json, verbosity: 4}',
    'linux: {conntrack: {maxPerCore: 0}}',
    '',
  ].join('\n');
}

export class ProxyProcess {
  readonly syncs: SyncLine[] = [];
  readonly releases: ReleaseLine[] = [];
  /** Error lines (level >= 50), and anything on stderr that is not JSON; capped. */
  readonly problems: string[] = [];
  /** Warning lines (level 40), capped: reported, not failures (e.g. an OOM score a sandbox refuses). */
  readonly warnings: string[] = [];
  /** The "committing nftables transaction" lines since the last "sync finished" line. */
  private committing = { ops: 0, bytes: 0 };
  private waiters: Array<{ from: number; match: (s: SyncLine) => boolean; resolve: (s: SyncLine) => void }> = [];
  private readonly exited: Promise<number | null>;

  private constructor(readonly proc: ChildProcess, readonly spawnedAtMs: number) {
    // Should this process end first (a failed phase, an uncaught error), the proxy goes with it.
    const orphaned = (): void => { proc.kill('SIGKILL'); };
    process.once('exit', orphaned);
    this.exited = new Promise((resolve) => proc.once('exit', (code, signal) => {
      process.off('exit', orphaned);
      resolve(code ?? (signal ? -1 : null));
    }));
    let buf = '';
    // SCALE_PROXY_LOG=FILE keeps the proxy's whole log (JSON lines) for a closer look.
    const keep = process.env.SCALE_PROXY_LOG;
    if (keep) writeFileSync(keep, '');
    proc.stderr!.on('data', (d: Buffer) => {
      if (keep) appendFileSync(keep, d);
      const now = performance.now();
      buf += d.toString();
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        this.line(buf.slice(0, nl), now);
        buf = buf.slice(nl + 1);
      }
    });
  }

  /** Writes the config file into `dir` and spawns the proxy. */
  static start(dir: string, kubeconfig: string): ProxyProcess {
    const config = join(dir, 'kube-proxy-config.yaml');
    writeFileSync(config, configYaml(kubeconfig));
    const at = performance.now();
    const flags = (process.env.SCALE_PROXY_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const proc = spawn(process.execPath, [...flags, BIN, '--config', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    return new ProxyProcess(proc, at);
  }

  get pid(): number {
    if (this.proc.pid === undefined) throw new Error('the proxy process did not start');
    return this.proc.pid;
  }

  /** The first sync from index `from` of `syncs` on (already seen or still to come) that `match`es. */
  waitForSync(from: number, match: (s: SyncLine) => boolean, what: string, timeoutMs: number): Promise<SyncLine> {
    const seen = this.syncs.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => done(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
      const w = { from, match, resolve: (s: SyncLine) => done(undefined, s) };
      const done = (err?: Error, s?: SyncLine) => {
        clearTimeout(t);
        this.waiters = this.waiters.filter((x) => x !== w);
        if (err) reject(err);
        else resolve(s!);
      };
      this.waiters.push(w);
      void this.exited.then((code) => { if (this.waiters.includes(w)) done(new Error(`the proxy exited (${code}) before ${what}; ${this.problems.slice(-3).join(' | ')}`)); });
    });
  }

  /** GET /metrics, parsed into `name{labels}` -> value. */
  metrics(): Promise<Map<string, number>> {
    return new Promise((resolve, reject) => {
      const req = get({ host: '127.0.0.1', port: METRICS_PORT, path: '/metrics', timeout: 30_000 }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => (res.statusCode === 200 ? resolve(parseMetrics(body)) : reject(new Error(`/metrics answered ${res.statusCode}`))));
      });
      req.on('timeout', () => req.destroy(new Error('/metrics timed out')));
      req.on('error', reject);
    });
  }

  /** SIGTERM (the proxy leaves its rules and exits); SIGKILL if it has not exited after `graceMs`. */
  async stop(graceMs = 30_000): Promise<number | null> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return this.exited;
    this.proc.kill('SIGTERM');
    const t = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }

  private line(text: string, atMs: number): void {
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(text) as Record<string, unknown>;
    } catch {
      if (text.trim()) this.problem(`stderr: ${text}`);
      return;
    }
    if (typeof e.level === 'number' && e.level >= 50) this.problem(`error: ${e.msg} ${text.slice(0, 300)}`);
    else if (e.level === 40 && this.warnings.length < 100) this.warnings.push(`${e.msg} ${text.slice(0, 300)}`);
    if (e.msg === 'memory released' && this.releases.length < 100) {
      this.releases.push({ atMs, when: String(e.when), gcMs: Number(e.gcMs), heapTotalMiB: e.heapTotalMiB as number[] });
    }
    if (e.msg === 'committing nftables transaction') {
      this.committing.ops += Number(e.ops ?? 0);
      this.committing.bytes += Number(e.bytes ?? 0);
    }
    if (e.msg !== 'sync finished') return;
    const s: SyncLine = {
      atMs, seconds: Number(e.seconds), full: e.full === true, ok: e.ok === true, changed: Number(e.changed ?? 0), reason: String(e.reason),
      ops: this.committing.ops, bytes: this.committing.bytes,
    };
    this.committing = { ops: 0, bytes: 0 };
    this.syncs.push(s);
    const index = this.syncs.length - 1;
    for (const w of [...this.waiters]) if (index >= w.from && w.match(s)) w.resolve(s);
  }

  private problem(p: string): void {
    if (this.problems.length < 100) this.problems.push(p);
  }
}

/** Prometheus text format, one sample a line: `name{labels} value` -> value (comments skipped). */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}
