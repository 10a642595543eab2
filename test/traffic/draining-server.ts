// A pod's HTTP server that drains as real servers do on SIGTERM (draining-server.js), and a count of
// the connections that reached the pod after it stopped: an nftables counter in the pod's namespace
// counts SYNs to its port from the start, and every SYN the server did not accept came too late.
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { REPO_ROOT, type Pod } from '../helpers/topology';

const SCRIPT = path.join(REPO_ROOT, 'test', 'traffic', 'draining-server.js');
const TABLE = 'syn-count';

/** What the server counted over its life (draining-server.js). */
export interface ServerCounts {
  connections: number;
  requests: number;
  connectionsWhileTerminating: number;
  requestsWhileTerminating: number;
  /** Answers sent after the endpoint left the EndpointSlice (on connections made before). */
  answeredAfterRemoval: number;
  /** Connections still open when it stopped (closed then, answered or not). */
  openAtStop: number;
}

export class DrainingServer {
  private counts: ServerCounts | undefined;

  private constructor(readonly pod: Pod, readonly port: number, private readonly child: ChildProcess, private readonly lines: AsyncIterator<string>) {}

  /** Starts the server in `pod`'s namespace; resolves once it listens. */
  static async start(pod: Pod, port: number): Promise<DrainingServer> {
    pod.ns.exec('nft', ['-f', '-'], synCounterTable(port));
    const child = spawn('ip', ['netns', 'exec', pod.ns.name, process.execPath, SCRIPT, pod.name, String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
    const first = await firstLine(lines, 10_000);
    if (first !== 'ready') {
      child.kill('SIGKILL');
      throw new Error(`draining server in ${pod.name}: ${first}`);
    }
    return new DrainingServer(pod, port, child, lines);
  }

  /** SIGTERM: from now on every answer closes its connection. */
  terminate(): void {
    this.child.stdin!.write('terminate\n');
  }

  /** The endpoint left the EndpointSlice: answers from now on are counted. */
  removed(): void {
    this.child.stdin!.write('removed\n');
  }

  /** The grace period is over: the listener and every connection close. */
  async stop(): Promise<ServerCounts> {
    this.child.stdin!.write('stop\n');
    const line = await firstLine(this.lines, 10_000);
    if (!line.startsWith('{')) throw new Error(`draining server in ${this.pod.name} did not stop: ${line}`);
    this.counts = JSON.parse(line) as ServerCounts;
    return this.counts;
  }

  /**
   * Connection attempts that reached the pod's port and were not accepted by the server: after it
   * stopped, or waiting in its backlog when it did (a retransmitted SYN counts too: it means a lost one).
   */
  synsNotAccepted(): number {
    if (!this.counts) throw new Error(`the server in ${this.pod.name} has not stopped`);
    const out = this.pod.ns.nft('list', 'counter', 'inet', TABLE, 'syns');
    const m = /packets (\d+)/.exec(out);
    if (!m) throw new Error(`no SYN counter in ${this.pod.name}: ${out}`);
    return Number(m[1]) - this.counts.connections;
  }

  kill(): void {
    this.child.kill('SIGKILL');
  }
}

/** The nftables table that counts SYNs to `port` in a pod's namespace (replacing one a previous server left). */
export function synCounterTable(port: number): string {
  return [
    `add table inet ${TABLE}`,
    `delete table inet ${TABLE}`,
    `table inet ${TABLE} {`,
    '  counter syns {}',
    '  chain input {',
    '    type filter hook input priority 0; policy accept;',
    `    tcp dport ${port} tcp flags & (syn | ack) == syn counter name "syns"`,
    '  }',
    '}',
  ].join('\n');
}

async function firstLine(lines: AsyncIterator<string>, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => { timer = setTimeout(() => resolve('TIMEOUT'), timeoutMs); });
  const next = lines.next().then((r) => (r.done ? 'EXITED' : r.value));
  try {
    return await Promise.race([next, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
