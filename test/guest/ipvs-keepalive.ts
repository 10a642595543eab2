// Long-lived TCP connections for the IPVS graceful-termination test: a server in each pod that
// greets every connection with "<pod> <peer>" and answers every chunk it receives the same way,
// keeping the connection open; and a client in the client namespace holding one connection open
// (a request per line written to it) or making a number of short ones. Both close with a reset, so
// IPVS's connection entry goes to CLOSE (10 s) instead of TIME_WAIT (2 min).
import { spawn, type ChildProcess } from 'node:child_process';
import * as readline from 'node:readline';
import type { TestNetns } from '../helpers/netns';

const SERVER = `
const net = require('node:net');
const [name, port] = process.argv.slice(1);
const answer = (s) => s.write(name + ' ' + s.remoteAddress.replace(/^::ffff:/, '') + '\\n');
net.createServer((s) => { s.on('error', () => {}); answer(s); s.on('data', () => answer(s)); })
  .listen({ port: Number(port), host: '::', ipv6Only: false }, () => process.stdout.write('ready\\n'));
`;

// "hold": one connection, a request per stdin line, reset when stdin ends. N: N connections one
// after another, each read up to its greeting and reset. Prints one line per answer or "ERR <code>".
const CLIENT = `
const net = require('node:net');
const [host, port, mode] = process.argv.slice(1);
function connect(onLine) {
  const s = net.connect({ host, port: Number(port) });
  let buf = '';
  s.setEncoding('utf8');
  s.on('data', (d) => { buf += d; let i; while ((i = buf.indexOf('\\n')) >= 0) { onLine(s, buf.slice(0, i)); buf = buf.slice(i + 1); } });
  s.on('error', (e) => { process.stdout.write('ERR ' + e.code + '\\n'); if (mode === 'hold') process.exit(0); });
  return s;
}
if (mode === 'hold') {
  const s = connect((_s, line) => process.stdout.write(line + '\\n'));
  require('node:readline').createInterface({ input: process.stdin }).on('line', () => s.write('x'));
  process.stdin.on('end', () => { s.resetAndDestroy(); process.exit(0); });
} else {
  let left = Number(mode);
  const next = () => {
    if (left-- === 0) return process.exit(0);
    const timer = setTimeout(() => { process.stdout.write('ERR TIMEOUT\\n'); s.destroy(); next(); }, 1500);
    const s = connect((sock, line) => { clearTimeout(timer); process.stdout.write(line + '\\n'); sock.resetAndDestroy(); next(); });
    s.on('error', () => { clearTimeout(timer); next(); });
  };
  next();
}
`;

/** Starts the greeting server in each namespace; resolves once all listen. */
export async function startKeepAliveServers(pods: { name: string; ns: TestNetns }[], port: number): Promise<ChildProcess[]> {
  return Promise.all(pods.map((p) => new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', p.ns.name, process.execPath, '-e', SERVER, p.name, String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', reject);
    child.stdout!.once('data', () => resolve(child));
  })));
}

/** `count` short connections one after another; their greetings (or "ERR <code>"). */
export function shortConnections(from: TestNetns, host: string, port: number, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('ip', ['netns', 'exec', from.name, process.execPath, '-e', CLIENT, host, String(port), String(count)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => { out += d; });
    child.once('error', reject);
    child.once('exit', () => resolve(out.trim().split('\n')));
  });
}

/** One connection held open: `request()` sends a line and resolves with the answer; `close()` resets it. */
export interface HeldConnection {
  greeting: string;
  request(): Promise<string>;
  close(): Promise<void>;
}

export async function holdConnection(from: TestNetns, host: string, port: number): Promise<HeldConnection> {
  const child = spawn('ip', ['netns', 'exec', from.name, process.execPath, '-e', CLIENT, host, String(port), 'hold'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = readline.createInterface({ input: child.stdout! });
  const waiting: ((l: string) => void)[] = [];
  const queued: string[] = [];
  lines.on('line', (l) => { const w = waiting.shift(); if (w) w(l); else queued.push(l); });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const nextLine = (): Promise<string> => {
    const q = queued.shift();
    if (q !== undefined) return Promise.resolve(q);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer on the held connection to ${host}:${port}`)), 5000);
      waiting.push((l) => { clearTimeout(timer); resolve(l); });
    });
  };
  const greeting = await nextLine().catch(async (e) => { child.kill(); throw e; });
  return {
    greeting,
    request: () => { child.stdin!.write('x\n'); return nextLine(); },
    close: async () => { child.stdin!.end(); await exited; },
  };
}
