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

/** Resolves with the child's next stdout line, or "TIMEOUT" after `ms`. */
function nextLine(child: ChildProcess, ms: number): Promise<string> {
  return new Promise((resolve) => {
    let buf = '';
    const onData = (d: Buffer): void => {
      buf += d;
      const i = buf.indexOf('\n');
      if (i < 0) return;
      done(buf.slice(0, i));
    };
    const timer = setTimeout(() => done('TIMEOUT'), ms);
    const done = (line: string): void => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve(line);
    };
    child.stdout!.on('data', onData);
  });
}

export class LineEchoServer {
  private constructor(private readonly child: ChildProcess) {}

  static async start(ns: TestNetns, name: string, port: number): Promise<LineEchoServer> {
    const child = inNetns(ns, SERVER, [name, String(port)]);
    const line = await nextLine(child, 10_000);
    if (line !== 'ready') throw new Error(`line-echo server in ${ns.name}: ${line}`);
    return new LineEchoServer(child);
  }

  stop(): void {
    this.child.kill('SIGKILL');
  }
}

export class HeldConnection {
  private constructor(private readonly child: ChildProcess, readonly localPort: number) {}

  /** Connects from `ns` to host:port; throws if the connection is not made. */
  static async open(ns: TestNetns, host: string, port: number): Promise<HeldConnection> {
    const child = inNetns(ns, CLIENT, [host, String(port)]);
    const line = await nextLine(child, 10_000);
    const m = /^CONNECTED (\d+)$/.exec(line);
    if (!m) {
      child.kill('SIGKILL');
      throw new Error(`connection to ${host}:${port}: ${line}`);
    }
    return new HeldConnection(child, Number(m[1]));
  }

  /** Sends `text` over the connection; the reply line, "CLOSED <why>" or "TIMEOUT". */
  exchange(text: string, timeoutMs = 3000): Promise<string> {
    const reply = nextLine(this.child, timeoutMs);
    this.child.stdin!.write(`${text}\n`);
    return reply;
  }

  close(): void {
    this.child.stdin!.end();
  }
}
