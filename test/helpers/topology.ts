// A small cluster in network namespaces for traffic tests and the demo:
//
//   client (198.18.0.2, 2001:db8:18::2) --veth-- node (198.18.0.1, 2001:db8:18::1)
//   node --veth-- pod-i (100.96.1.i+1, 2001:db8:96::i+1), routed /32 (/128) like a ptp CNI
//
// The proxy programs the `node` namespace. Every address lives only inside namespaces made here.
import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as path from 'node:path';
import { createNetns, TestNetns } from './netns';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const ECHO_SERVER = path.join(REPO_ROOT, 'test', 'helpers', 'echo-server.js');
const PROBE_CLIENT = path.join(REPO_ROOT, 'test', 'helpers', 'probe-client.js');

export const NODE_IP = '198.18.0.1';
export const CLIENT_IP = '198.18.0.2';
export const NODE_IP6 = '2001:db8:18::1';
export const CLIENT_IP6 = '2001:db8:18::2';
/** The node's address on every pod link: what a pod sees when the node masquerades to it. */
export const NODE_POD_SIDE_IP = '100.96.1.1';
export const POD_CIDR = '100.96.0.0/16';
export const POD_CIDR6 = '2001:db8:96::/64';
/** Virtual IPs (cluster, external, load-balancer) the client routes to the node. */
export const VIP_RANGES = ['100.100.0.0/16', '203.0.113.0/24'];
export const VIP_RANGES6 = ['2001:db8:100::/64'];

export interface ProbeOptions {
  from?: TestNetns;
  timeoutMs?: number;
  sourcePort?: number;
  sourceAddress?: string;
  /** probeUntilStopped: a pause between two requests (default none: one after another, a CPU's worth). */
  gapMs?: number;
}

export interface Pod {
  name: string;
  ns: TestNetns;
  ip: string;
  ip6: string;
}

export class Topology {
  readonly pods: Pod[] = [];
  private readonly servers: ChildProcess[] = [];

  constructor(readonly node: TestNetns, readonly client: TestNetns) {}

  static create(podCount: number, prefix = 'kpt'): Topology {
    return Topology.around(createNetns(`${prefix}-node`), podCount, prefix);
  }

  /**
   * The client and the pods joined to a node namespace made elsewhere (the upstream tier's nodes,
   * whose default route leads to the control plane: it is replaced, so the route to the control
   * plane must be a specific one). destroy() removes `node` too.
   */
  static around(node: TestNetns, podCount: number, prefix = 'kpt'): Topology {
    const client = createNetns(`${prefix}-cli`);
    const topo = new Topology(node, client);
    try {
      topo.wireClient();
      for (let i = 0; i < podCount; i++) topo.addPod(i, prefix);
    } catch (e) {
      topo.destroy();
      throw e;
    }
    return topo;
  }

  private wireClient(): void {
    const { node, client } = this;
    node.exec('ip', ['link', 'add', 'eth0', 'type', 'veth', 'peer', 'name', 'eth0c', 'netns', client.name]);
    node.exec('ip', ['addr', 'add', `${NODE_IP}/24`, 'dev', 'eth0']);
    node.exec('ip', ['-6', 'addr', 'add', `${NODE_IP6}/64`, 'dev', 'eth0', 'nodad']);
    node.exec('ip', ['link', 'set', 'eth0', 'up']);
    client.exec('ip', ['link', 'set', 'eth0c', 'name', 'eth0']);
    client.exec('ip', ['addr', 'add', `${CLIENT_IP}/24`, 'dev', 'eth0']);
    client.exec('ip', ['-6', 'addr', 'add', `${CLIENT_IP6}/64`, 'dev', 'eth0', 'nodad']);
    client.exec('ip', ['link', 'set', 'eth0', 'up']);
    for (const r of [...VIP_RANGES, POD_CIDR]) client.exec('ip', ['route', 'add', r, 'via', NODE_IP]);
    for (const r of [...VIP_RANGES6, POD_CIDR6]) client.exec('ip', ['-6', 'route', 'add', r, 'via', NODE_IP6]);
    // This kernel rate-limits the first ICMP error to a new peer (IcmpOutRateLimitHost), which would turn
    // the proxy's "reject" into a silent drop for a test's single connection attempt.
    const sysctls = ['net.ipv4.ip_forward=1', 'net.ipv6.conf.all.forwarding=1', 'net.ipv4.icmp_ratelimit=0', 'net.ipv6.icmp.ratelimit=0'];
    for (const key of sysctls) node.exec('sysctl', ['-qw', key]);
    // Tests send many rejected probes in a row; the kernel's ICMP rate limit would turn some of the
    // rejections into silence.
    for (const key of ['net.ipv4.icmp_ratelimit=0', 'net.ipv6.icmp.ratelimit=0']) node.exec('sysctl', ['-qw', key]);
    // A real node has a default route; without one, traffic to an unprogrammed virtual IP would die in
    // routing (ENETUNREACH) before the proxy's filter rules (in the forward hook) could reject it. The
    // client does not forward, so what no rule claims is silently dropped there.
    node.exec('ip', ['route', 'replace', 'default', 'via', CLIENT_IP]);
    node.exec('ip', ['-6', 'route', 'replace', 'default', 'via', CLIENT_IP6]);
  }

  private addPod(i: number, prefix: string): void {
    const ns = createNetns(`${prefix}-pod${i}`);
    const pod: Pod = { name: `pod${i}`, ns, ip: `100.96.1.${i + 2}`, ip6: `2001:db8:96::${(i + 2).toString(16)}` };
    this.pods.push(pod);
    const hostIf = `veth${i}`;
    this.node.exec('ip', ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', 'eth0p', 'netns', ns.name]);
    this.node.exec('ip', ['link', 'set', hostIf, 'up']);
    this.node.exec('ip', ['addr', 'add', `${NODE_POD_SIDE_IP}/32`, 'dev', hostIf]);
    this.node.exec('ip', ['-6', 'addr', 'add', 'fe80::1/64', 'dev', hostIf, 'nodad']);
    this.node.exec('ip', ['route', 'add', `${pod.ip}/32`, 'dev', hostIf]);
    this.node.exec('ip', ['-6', 'route', 'add', `${pod.ip6}/128`, 'dev', hostIf]);
    ns.exec('ip', ['link', 'set', 'eth0p', 'name', 'eth0']);
    ns.exec('ip', ['addr', 'add', `${pod.ip}/32`, 'dev', 'eth0']);
    ns.exec('ip', ['-6', 'addr', 'add', `${pod.ip6}/128`, 'dev', 'eth0', 'nodad']);
    ns.exec('ip', ['link', 'set', 'eth0', 'up']);
    ns.exec('ip', ['route', 'add', `${NODE_POD_SIDE_IP}/32`, 'dev', 'eth0']);
    ns.exec('ip', ['route', 'add', 'default', 'via', NODE_POD_SIDE_IP, 'dev', 'eth0']);
    ns.exec('ip', ['-6', 'route', 'add', 'default', 'via', 'fe80::1', 'dev', 'eth0']);
  }

  /** Starts an echo server in every pod on the given ports; resolves once all listen. */
  async startServers(ports: number[]): Promise<void> {
    await Promise.all(this.pods.map((pod) => new Promise<void>((resolve, reject) => {
      const child = spawn('ip', ['netns', 'exec', pod.ns.name, process.execPath, ECHO_SERVER, pod.name, ...ports.map(String)],
        { stdio: ['ignore', 'pipe', 'inherit'] });
      this.servers.push(child);
      child.once('error', reject);
      child.stdout!.once('data', () => resolve());
    })));
  }

  /** Gives the client one more address on its link (a second "client" for source-based behaviour). */
  addClientAddress(ip: string): void {
    const v6 = ip.includes(':');
    this.client.exec('ip', [...(v6 ? ['-6'] : []), 'addr', 'add', `${ip}/${v6 ? 64 : 24}`, 'dev', 'eth0', ...(v6 ? ['nodad'] : [])]);
  }

  /**
   * Sends `count` requests from `from` (default: the client) and returns the reply lines
   * ("<pod> <source seen>" or "ERR <code>"). `sourcePort` / `sourceAddress` bind the client socket.
   */
  probe(proto: 'tcp' | 'udp', host: string, port: number, count = 1, opts: ProbeOptions = {}): string[] {
    const ns = opts.from ?? this.client;
    const args = [PROBE_CLIENT, proto, host, String(port), String(count), String(opts.timeoutMs ?? 1500),
      String(opts.sourcePort ?? 0), opts.sourceAddress ?? ''];
    return ns.exec(process.execPath, args).trim().split('\n');
  }

  /** probe() without blocking this process (a proxy running in it keeps working meanwhile). */
  probeAsync(proto: 'tcp' | 'udp', host: string, port: number, count = 1, opts: ProbeOptions = {}): Promise<string[]> {
    const ns = opts.from ?? this.client;
    const args = ['netns', 'exec', ns.name, process.execPath, PROBE_CLIENT, proto, host, String(port), String(count),
      String(opts.timeoutMs ?? 1500), String(opts.sourcePort ?? 0), opts.sourceAddress ?? ''];
    return new Promise((resolve, reject) => {
      execFile('ip', args, { encoding: 'utf8' }, (err, stdout, stderr) => (err ? reject(new Error(`probe: ${stderr || err.message}`)) : resolve(stdout.trim().split('\n'))));
    });
  }

  /**
   * Starts sending requests one after another in the background (without blocking this process, so
   * the proxy keeps running meanwhile); `stop()` ends it and resolves with every reply line.
   */
  probeUntilStopped(proto: 'tcp' | 'udp', host: string, port: number, opts: ProbeOptions = {}): { stop(): Promise<string[]> } {
    const ns = opts.from ?? this.client;
    const child = spawn('ip', ['netns', 'exec', ns.name, process.execPath, PROBE_CLIENT, proto, host, String(port),
      'until-stdin-closes', String(opts.timeoutMs ?? 1500), String(opts.sourcePort ?? 0), opts.sourceAddress ?? '', String(opts.gapMs ?? 0)],
    { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => { out += d; });
    const exited = new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', () => resolve());
    });
    return {
      async stop() {
        child.stdin!.end();
        await exited;
        return out.trim().split('\n');
      },
    };
  }

  destroy(): void {
    for (const s of this.servers) s.kill('SIGKILL');
    for (const pod of this.pods) pod.ns.destroy();
    this.client.destroy();
    this.node.destroy();
  }
}
