// A steady UDP flow from one socket (one source port) in a namespace to a Service, running in the
// background (test/helpers/udp-stream-client.js) so the proxy in this process keeps working meanwhile.
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import type { TestNetns } from '../helpers/netns';
import { REPO_ROOT } from '../helpers/topology';
import { outcome, parseDatagramLog, type DatagramLog } from './datagram-log';

const CLIENT = path.join(REPO_ROOT, 'test', 'helpers', 'udp-stream-client.js');

export interface UdpStreamOptions {
  sourcePort: number;
  /** Between two datagrams (default 15 ms). */
  intervalMs?: number;
}

export class UdpStream {
  private out = '';

  private constructor(private readonly child: ChildProcess, private readonly exited: Promise<void>) {
    child.stdout!.on('data', (d) => { this.out += d; });
  }

  /** Starts sending from `ns` to host:port; resolves once the socket is bound and connected. */
  static async start(ns: TestNetns, host: string, port: number, o: UdpStreamOptions): Promise<UdpStream> {
    const child = spawn('ip', ['netns', 'exec', ns.name, process.execPath, CLIENT, host, String(port), String(o.sourcePort), String(o.intervalMs ?? 15)],
      { stdio: ['pipe', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', () => resolve());
    });
    const stream = new UdpStream(child, exited);
    const deadline = Date.now() + 10_000;
    while (!stream.out.startsWith('READY\n')) {
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`udp stream to ${host}:${port} from port ${o.sourcePort} did not start: ${stream.out}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return stream;
  }

  /** What happened so far (complete lines only). */
  log(): DatagramLog {
    const lines = this.out.split('\n');
    return parseDatagramLog(lines.slice(0, -1));
  }

  /** Polls the log until `check` holds; throws naming `what` (and the last outcomes) after `timeoutMs`. */
  async until(check: (log: DatagramLog) => boolean, what: string, timeoutMs = 10_000): Promise<DatagramLog> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const log = this.log();
      if (check(log)) return log;
      if (Date.now() > deadline) {
        const tail = log.datagrams.slice(-5).map((d) => `${d.seq}:${outcome(d)}`);
        throw new Error(`timed out waiting for ${what}; last datagrams ${tail.join(' ')}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Stops sending, waits for late answers, and returns everything that happened. */
  async stop(): Promise<DatagramLog> {
    this.child.stdin!.end();
    await this.exited;
    return this.log();
  }

  /** For cleanup after a failed test. */
  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
