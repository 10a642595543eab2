// A namespace with real UDP flows shaped like kube-proxy's: clients send to a Service IP or a
// NodePort, an nft DNAT rule (chosen by the client's source port) sends them to an endpoint, and
// conntrack records orig dst = Service, reply src = endpoint. Everything stays on the namespace's lo.
import type { TestNetns } from '../helpers/netns';

export interface Flow {
  proto: string;
  family: 4 | 6;
  origSrc: string;
  origDst: string;
  sport: number;
  dport: number;
  replySrc: string;
  replySport: number;
}

/** One DNAT: traffic to dst:dport from source port sport goes to to:toPort. */
export interface Dnat { family: 4 | 6; dst: string; dport: number; sport: number; to: string; toPort: number }

export function addAddresses(ns: TestNetns, addrs: string[]): void {
  for (const a of addrs) {
    if (a.includes(':')) ns.exec('ip', ['-6', 'addr', 'add', `${a}/128`, 'dev', 'lo', 'nodad']);
    else ns.exec('ip', ['addr', 'add', `${a}/32`, 'dev', 'lo']);
  }
}

/** DNAT rules in output (local clients), which also switches conntrack on in the namespace. */
export function installDnat(ns: TestNetns, rules: Dnat[]): void {
  const chain = (fam: 4 | 6): string => rules.filter((r) => r.family === fam).map((r) => {
    const ipk = fam === 4 ? 'ip' : 'ip6';
    const to = fam === 4 ? `${r.to}:${r.toPort}` : `[${r.to}]:${r.toPort}`;
    return `    ${ipk} daddr ${r.dst} udp dport ${r.dport} udp sport ${r.sport} dnat to ${to}\n`;
  }).join('');
  const script = ['ip', 'ip6'].map((t, i) => `table ${t} ctlab {\n  chain out {\n    type nat hook output priority -100;\n${chain(i === 0 ? 4 : 6)}  }\n}\n`).join('');
  ns.exec('nft', ['-f', '-'], script);
}

export interface Send { family: 4 | 6; src: string; sport: number; dst: string; dport: number }

/** Sends one UDP datagram per entry from a node process inside the namespace (list on stdin). */
export function sendUdp(ns: TestNetns, sends: Send[]): void {
  const script = `
    const dgram = require('node:dgram');
    const sends = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
    (async () => {
      for (const s of sends) {
        const sock = dgram.createSocket(s.family === 6 ? 'udp6' : 'udp4');
        await new Promise((res, rej) => sock.bind(s.sport, s.src, (e) => e ? rej(e) : res()));
        await new Promise((res, rej) => sock.send('x', s.dport, s.dst, (e) => e ? rej(e) : res()));
        sock.close();
      }
    })().catch((e) => { console.error(String(e)); process.exit(1); });`;
  ns.exec(process.execPath, ['-e', script], JSON.stringify(sends));
}

const LINE = /^(\w+)\s+(\d+)\s+\d+\s+(?:\w+\s+)?src=(\S+) dst=(\S+) sport=(\d+) dport=(\d+) .*?src=(\S+) dst=\S+ sport=(\d+) dport=\d+/;

/** `conntrack -L` in the namespace, parsed. */
export function listFlows(ns: TestNetns, proto: 'udp' | 'sctp', family: 4 | 6 = 4): Flow[] {
  const out = ns.exec('conntrack', ['-L', '-p', proto, '-f', family === 6 ? 'ipv6' : 'ipv4']);
  return out.split('\n').map((l) => LINE.exec(l)).filter((m): m is RegExpExecArray => m !== null).map((m) => ({
    proto: m[1], family, origSrc: m[3], origDst: m[4], sport: Number(m[5]), dport: Number(m[6]), replySrc: m[7], replySport: Number(m[8]),
  }));
}

export function flowKey(f: Flow): string {
  return `${f.proto} ${f.origSrc}:${f.sport} > ${f.origDst}:${f.dport} via ${f.replySrc}:${f.replySport}`;
}

/** A synthetic SCTP entry (no SCTP sockets needed): conntrack -I. */
export function insertSctp(ns: TestNetns, e: { src: string; sport: number; dst: string; dport: number; replySrc: string; replySport: number }): void {
  ns.exec('conntrack', ['-I', '-p', 'sctp', '-s', e.src, '-d', e.dst, '--sport', String(e.sport), '--dport', String(e.dport),
    '--reply-src', e.replySrc, '--reply-dst', e.src, '--reply-port-src', String(e.replySport), '--reply-port-dst', String(e.sport),
    '--state', 'ESTABLISHED', '--orig-vtag', '1', '--reply-vtag', '2', '-t', '120', '-u', 'ASSURED']);
}

/**
 * A synthetic DNATed SCTP entry: conntrack -I with the plain inverse as reply and --dst-nat, so
 * the kernel rewrites the reply and sets IPS_DST_NAT as a real DNAT would. (The tool only moves
 * the address: the endpoint port stays the Service port.)
 */
export function insertDnatSctp(ns: TestNetns, e: { src: string; sport: number; dst: string; dport: number; to: string }): void {
  ns.exec('conntrack', ['-I', '-p', 'sctp', '-s', e.src, '-d', e.dst, '--sport', String(e.sport), '--dport', String(e.dport),
    '--reply-src', e.dst, '--reply-dst', e.src, '--reply-port-src', String(e.dport), '--reply-port-dst', String(e.sport),
    '--state', 'ESTABLISHED', '--orig-vtag', '1', '--reply-vtag', '2', '-t', '120', '-u', 'ASSURED', '--dst-nat', e.to]);
}
