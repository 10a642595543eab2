// Several probes from one namespace in one process. Under emulation starting a node process in a
// namespace costs seconds, far more than the probes themselves; test/helpers/probe-client.js
// starts one per call. Same answers: "<pod> <source seen>" or "ERR <code>" per request.
import type { TestNetns } from '../helpers/netns';

export interface Probe {
  proto: 'tcp' | 'udp';
  host: string;
  port: number;
  count?: number;
  timeoutMs?: number;
  sourceAddress?: string;
  sourcePort?: number;
}

const SCRIPT = `
const net = require('node:net');
const dgram = require('node:dgram');
const probes = JSON.parse(process.argv[1]);
function tcpOnce(p) {
  return new Promise((resolve) => {
    let data = '';
    const local = {};
    if (p.sourceAddress) local.localAddress = p.sourceAddress;
    if (p.sourcePort) local.localPort = p.sourcePort;
    const sock = net.connect({ host: p.host, port: p.port, ...local });
    const timer = setTimeout(() => { sock.destroy(); resolve('ERR TIMEOUT'); }, p.timeoutMs);
    sock.on('data', (d) => { data += d; });
    sock.on('end', () => { clearTimeout(timer); sock.resetAndDestroy(); resolve(data); });
    sock.on('error', (e) => { clearTimeout(timer); resolve('ERR ' + e.code); });
  });
}
function udpOnce(p) {
  return new Promise((resolve) => {
    const sock = dgram.createSocket(net.isIPv6(p.host) ? 'udp6' : 'udp4');
    let done = false;
    const finish = (line) => { if (done) return; done = true; clearTimeout(timer); sock.close(); resolve(line); };
    const timer = setTimeout(() => finish('ERR TIMEOUT'), p.timeoutMs);
    sock.on('message', (m) => finish(m.toString()));
    sock.on('error', (e) => finish('ERR ' + e.code));
    sock.bind({ port: p.sourcePort || 0, address: p.sourceAddress || undefined }, () => {
      sock.connect(p.port, p.host, (e) => (e ? finish('ERR ' + e.code) : sock.send('ping')));
    });
  });
}
(async () => {
  const out = [];
  for (const p of probes) {
    const lines = [];
    for (let i = 0; i < p.count; i++) lines.push(await (p.proto === 'udp' ? udpOnce(p) : tcpOnce(p)));
    out.push(lines);
  }
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
})();
`;

/** Runs the probes one after another from `ns`; the reply lines of each. */
export function probeMany(ns: TestNetns, probes: Probe[]): string[][] {
  const full = probes.map((p) => ({ count: 1, timeoutMs: 1500, sourcePort: 0, sourceAddress: '', ...p }));
  return JSON.parse(ns.exec(process.execPath, ['-e', SCRIPT, JSON.stringify(full)])) as string[][];
}
