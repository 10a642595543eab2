// Steady HTTP load from the client namespace on several paths at once (load-client.js): short
// connections and keep-alive requests, counted per path until stopped.
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import type { TestNetns } from '../helpers/netns';
import { REPO_ROOT } from '../helpers/topology';

const SCRIPT = path.join(REPO_ROOT, 'test', 'traffic', 'load-client.js');

export interface LoadPath { name: string; host: string; port: number }

export interface LoadOptions {
  paths: LoadPath[];
  /** New short connections per second, per path. */
  shortPerSecond?: number;
  /** Persistent connections per path. */
  keepAliveConnections?: number;
  /** At most one request per this many ms on each keep-alive connection. */
  keepAliveIntervalMs?: number;
  /** New connections per second, per path, each asking for an answer `slowMs` late. */
  slowPerSecond?: number;
  slowMs?: number;
  /** A request with no complete answer after this long (plus slowMs for slow ones) failed. */
  timeoutMs?: number;
}

/** One kind of traffic on one path (load-client.js's counts). */
export interface TrafficStats {
  sent: number;
  ok: number;
  failed: number;
  /** Requests sent again on a new connection after a reused one closed before any byte of the answer. */
  retried: number;
  connections: number;
  /** Keep-alive connections ended by an answer with `Connection: close`. */
  closedByServer: number;
  /** Failures by cause: an errno code, TIMEOUT, EOF, "short answer", "status ...". */
  errors: Record<string, number>;
  /** Answers per pod name. */
  pods: Record<string, number>;
  /** The first 20 failures, with when they happened (Date.now()). */
  failures: { at: number; error: string }[];
}

export interface LoadReport {
  seconds: number;
  paths: Record<string, { short: TrafficStats; keepAlive: TrafficStats; slow: TrafficStats }>;
}

export class LoadClient {
  private constructor(private readonly child: ChildProcess, private readonly lines: AsyncIterator<string>) {}

  /** Starts the load once every path has answered a request (up to 15 s of warm-up). */
  static async start(ns: TestNetns, options: LoadOptions): Promise<LoadClient> {
    const child = spawn('ip', ['netns', 'exec', ns.name, process.execPath, SCRIPT, JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done || first.value !== 'started') {
      child.kill('SIGKILL');
      throw new Error(`load client did not start: ${first.done ? 'exited' : first.value}`);
    }
    return new LoadClient(child, lines);
  }

  /** Stops sending, waits for the answers in flight, and returns the counts. */
  async stop(): Promise<LoadReport> {
    this.child.stdin!.end();
    const line = await this.lines.next();
    if (line.done) throw new Error('load client exited without a report');
    const report = JSON.parse(line.value);
    if (report.error) throw new Error(`load client: ${report.error}`);
    return report as LoadReport;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}
