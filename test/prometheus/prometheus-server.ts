// A real Prometheus (Debian's `prometheus` package, /usr/bin/prometheus) for the tests: it listens on
// a free loopback port, scrapes the given targets every second, evaluates the given rules file every
// second, keeps its data in a temporary directory, and is killed when the test stops it (or, as a
// last resort, when the test process exits). Queries go through its HTTP API as Grafana's would.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { freePort } from '../traffic/harness';

export const PROMETHEUS = process.env.KPN_PROMETHEUS ?? '/usr/bin/prometheus';
export const PROMTOOL = process.env.KPN_PROMTOOL ?? '/usr/bin/promtool';
/** The job name the kubernetes-mixin (kubeProxySelector) and our dashboard's default expect. */
export const JOB = 'kube-proxy';

const running = new Set<ChildProcess>();
process.on('exit', () => { for (const p of running) p.kill('SIGKILL'); });

export interface Alert { labels: Record<string, string>; annotations: Record<string, string>; state: 'pending' | 'firing'; value: string }
export interface VectorSample { metric: Record<string, string>; value: [number, string] }
export interface RangeSeries { metric: Record<string, string>; values: Array<[number, string]> }

export class TestPrometheus {
  private constructor(readonly url: string, private readonly proc: ChildProcess, private readonly dir: string, readonly log: string[]) {}

  /** `targets`: host:port of metrics endpoints (job `kube-proxy`); `rulesFile`: rules to evaluate, if any. */
  static async start(o: { targets: string[]; rulesFile?: string; scrapeInterval?: string }): Promise<TestPrometheus> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kpn-prometheus-'));
    const interval = o.scrapeInterval ?? '1s';
    const config = [
      'global:',
      `  scrape_interval: ${interval}`,
      `  evaluation_interval: ${interval}`,
      ...(o.rulesFile ? ['rule_files:', `  - ${JSON.stringify(o.rulesFile)}`] : []),
      'scrape_configs:',
      `  - job_name: ${JOB}`,
      '    static_configs:',
      `      - targets: ${JSON.stringify(o.targets)}`,
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
    const port = await freePort();
    const proc = spawn(PROMETHEUS, [
      `--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    running.add(proc);
    const log: string[] = [];
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => { log.push(d); if (process.env.KPN_TEST_LOG) process.stderr.write(d); });
    const p = new TestPrometheus(`http://127.0.0.1:${port}`, proc, dir, log);
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`prometheus exited ${proc.exitCode}: ${log.join('')}`);
      try { if ((await fetch(`${p.url}/-/ready`)).ok) break; } catch { /* not listening yet */ }
      if (Date.now() > deadline) { await p.stop(); throw new Error(`prometheus not ready in 30 s: ${log.join('')}`); }
      await new Promise((r) => setTimeout(r, 200));
    }
    return p;
  }

  private async api<T>(p: string, params: Record<string, string> = {}): Promise<T> {
    const res = await fetch(`${this.url}/api/v1/${p}?${new URLSearchParams(params)}`);
    const body = await res.json() as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${p} ${JSON.stringify(params)}: ${body.error}`);
    return body.data;
  }

  /** An instant query's vector (scalars come back as one sample without labels). */
  async query(expr: string, time?: number): Promise<VectorSample[]> {
    const d = await this.api<{ resultType: string; result: any }>('query', { query: expr, ...(time ? { time: String(time) } : {}) });
    return d.resultType === 'scalar' ? [{ metric: {}, value: d.result }] : d.result;
  }

  async queryRange(expr: string, start: number, end: number, step: number): Promise<RangeSeries[]> {
    const d = await this.api<{ result: RangeSeries[] }>('query_range', { query: expr, start: String(start), end: String(end), step: String(step) });
    return d.result;
  }

  async alerts(): Promise<Alert[]> {
    return (await this.api<{ alerts: Alert[] }>('alerts')).alerts;
  }

  /** The active alerts named `name` in `state`. */
  async alertsNamed(name: string, state: Alert['state'] = 'firing'): Promise<Alert[]> {
    return (await this.alerts()).filter((a) => a.labels.alertname === name && a.state === state);
  }

  /** The scrape targets' health, to say why a query has no data. */
  async targets(): Promise<Array<{ scrapeUrl: string; health: string; lastError: string }>> {
    return (await this.api<{ activeTargets: any[] }>('targets')).activeTargets;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      this.proc.kill('SIGTERM');
      const t = setTimeout(() => this.proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    running.delete(this.proc);
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
