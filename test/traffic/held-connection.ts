// One TCP connection kept open across a change of the node's rules: a line-echo server in a pod and a
// client in the client namespace that sends a line when asked and returns the reply. The connection
// is opened once; every `exchange` goes over that same connection (a reset or a stall shows).
import { ChildProcess, spawn } from 'node:child_process';
import type { TestNetns } from '../helpers/netns';

// Server: answers each chunk with "<name> <peer address> <chunk>" and keeps the connection.
const SERVER = `
const net = require('node:net');
const [name, port] = process.argv.slice(1);
net.createServer((c) => {
  c.on('data', (d) => c.write(name + ' ' + c.remoteAddress.replace(/^::ffff:/, '') + ' ' + d));
  c.on('error', () => {});
}).listen(Number(port), () => process.stdout.write('ready\\n'));
`;

// Client: one connection; a line on stdin is sent, the reply printed; "CLOSED <why>" when it ends.
const CLIENT = `
const net = require('node:net');
const [host, port] = process.argv.slice(1);
const s = net.connect({ host, port: Number(port) }, () => process.stdout.write('CONNECTED ' + s.localPort + '\\n'));
s.on('data', (d) => process.stdout.write(d + '\\n'));
s.on('error', (e) => process.stdout.write('CLOSED ' + e.code + '\\n'));
s.on('end', () => process.stdout.write('CLOSED end\\n'));
process.stdin.on('data', (d) => s.write(String(d).trim()));
process.stdin.on('end', () => { s.destroy(); process.exit(0); });
`;

function inNetns(ns: TestNetns, script: string, args: string[]): ChildProcess {
  return spawn('ip', ['netns', 'exec', ns.name, process.execPath, '-e', script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
}

/** A child's stdout as lines, kept until read (a reply that comes late is not lost). */
class Lines {
  private readonly queue: string[] = [];
  private buf = '';
  private waiter: (() => void) | null = null;

  constructor(child: ChildProcess) {
    child.stdout!.on('data', (d: Buffer) => {
      this.buf += d;
      let i: number;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        this.queue.push(this.buf.slice(0, i));
        this.buf = this.buf.slice(i + 1);
      }
      this.waiter?.();
    });
  }

  /** The next line, or "TIMEOUT" if none comes within `ms` (a later line waits for the next call). */
  async next(ms: number): Promise<string> {
    const deadline = Date.now() + ms;
    while (this.queue.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) return 'TIMEOUT';
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => { clearTimeout(timer); resolve(); };
      });
      this.waiter = null;
    }
    return this.queue.shift()!;
  }
}

export class LineEchoServer {
  private constructor(private readonly child: ChildProcess) {}

  static async start(ns: TestNetns, name: string, port: number): Promise<LineEchoServer> {
    const child = inNetns(ns, SERVER, [name, String(port)]);
    const line = await new Lines(child).next(10_000);
    if (line !== 'ready') throw new Error(`line-echo server in ${ns.name}: ${line}`);
    return new LineEchoServer(child);
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }
}

export class HeldConnection {
  private constructor(private readonly child: ChildProcess, private readonly lines: Lines) {}

  /** Connects from `ns` to host:port; throws if the connection is not made. */
  static async open(ns: TestNetns, host: string, port: number): Promise<HeldConnection> {
    const child = inNetns(ns, CLIENT, [host, String(port)]);
    const lines = new Lines(child);
    const line = await lines.next(10_000);
    if (!/^CONNECTED \d+$/.test(line)) {
      child.kill('SIGKILL');
      throw new Error(`connection to ${host}:${port}: ${line}`);
    }
    return new HeldConnection(child, lines);
  }

  /** Sends `text` over the connection; the next line back: a reply, "CLOSED <why>" or "TIMEOUT". */
  exchange(text: string, timeoutMs = 3000): Promise<string> {
    this.child.stdin!.write(`${text}\n`);
    return this.lines.next(timeoutMs);
  }

  /** The next line back without sending anything (a reply that was late). */
  nextReply(timeoutMs: number): Promise<string> {
    return this.lines.next(timeoutMs);
  }

  close(): void {
    this.child.stdin!.end();
  }
}
