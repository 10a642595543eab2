// Builders and a fake-kernel setup for the IPVS proxier tests: ServicePorts, endpoints, snapshots,
// a node with eth0 (two IPv4, one IPv6 and a link-local address), a recording helper table and log,
// and a readback of what the fake IPVS and kube-ipvs0 hold.
import type { ChangeSet, Endpoint, NodeInfo, ProxySnapshot, SelectedEndpoints, ServicePort } from '../../../src/core/types';
import { FakeIpvs, FakeRtnl } from '../../../src/native/testing';
import { IpvsProxier, type IpvsProxierOptions } from '../../../src/proxier/ipvs';
import type { HelperTable, HelperTableSyncInput } from '../../../src/proxier/ipvs/helper-table-api';

export function sp(name: string, over: Partial<ServicePort> = {}): ServicePort {
  const family = over.family ?? 'IPv4';
  const protocol = over.protocol ?? 'TCP';
  return {
    key: `ns1/${name}:p/${protocol}/${family}`, namespace: 'ns1', name, portName: 'p', protocol, family,
    clusterIP: family === 'IPv4' ? '10.96.0.10' : 'fd00:96::10', port: 80, nodePort: 0, externalIPs: [], loadBalancerIPs: [],
    loadBalancerSourceRanges: [], affinityTimeoutSeconds: 0, externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0,
    ...over,
  };
}

export function ep(ip: string, port = 8080, over: Partial<Endpoint> = {}): Endpoint {
  return { ip, port, ready: true, serving: true, terminating: false, isLocal: false, ...over };
}

/** Selection as core makes it for ready endpoints: Local policy sees the local ones. */
export function selected(eps: Endpoint[]): SelectedEndpoints {
  return { cluster: eps, local: eps.filter((e) => e.isLocal), allReachable: eps, hasAny: eps.length > 0 };
}

export const node: NodeInfo = { name: 'node1', labels: {}, ips: ['10.0.0.1', 'fd00::1'], podCIDRs: [] };

export function snapshot(entries: [ServicePort, Endpoint[]][]): ProxySnapshot {
  return {
    services: new Map(entries.map(([s]) => [s.key, s])),
    endpoints: new Map(entries.map(([s, e]) => [s.key, selected(e)])),
    node,
  };
}

export function changed(keys: string[], removed: ServicePort[] = []): ChangeSet {
  return { services: new Set(keys), removedEndpoints: new Map(), removedServices: new Map(removed.map((s) => [s.key, s])) };
}

export class RecordingHelperTable implements HelperTable {
  readonly calls: HelperTableSyncInput[] = [];
  failNext = false;
  async sync(input: HelperTableSyncInput): Promise<void> {
    this.calls.push(input);
    if (this.failNext) { this.failNext = false; throw new Error('helper table refused'); }
  }
}

export interface LogLine { level: string; obj: object; msg: string }

export function recordingLog(): IpvsProxierOptions['log'] & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (obj: object, msg: string) => { lines.push({ level, obj, msg }); };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export interface Setup {
  ipvs: FakeIpvs;
  rtnl: FakeRtnl;
  helper: RecordingHelperTable;
  log: ReturnType<typeof recordingLog>;
  clock: { t: number; now(): number };
  failures: { n: number };
  proxier: IpvsProxier;
}

/** A node with eth0 10.0.0.1/24, 10.0.0.2/24, fd00::1/64 and fe80::1/64; kernel state made by `prepare` before the proxier starts. */
export function setup(over: Partial<IpvsProxierOptions> = {}, prepare?: (ipvs: FakeIpvs, rtnl: FakeRtnl) => void): Setup {
  const ipvs = new FakeIpvs();
  const rtnl = new FakeRtnl();
  rtnl.addLink('eth0', 'veth', true);
  for (const [a, p] of [['10.0.0.1', 24], ['10.0.0.2', 24], ['fd00::1', 64], ['fe80::1', 64]] as const) rtnl.addAddress('eth0', a, p);
  prepare?.(ipvs, rtnl);
  const helper = new RecordingHelperTable();
  const log = recordingLog();
  const clock = { t: 0, now() { return this.t; } };
  const failures = { n: 0 };
  const proxier = new IpvsProxier({
    ipvs, rtnl, helperTable: helper, families: ['IPv4', 'IPv6'], scheduler: '', excludeCIDRs: [], nodePortAddresses: [],
    log, clock, metrics: { syncFailures: { inc: () => { failures.n++; } } }, ...over,
  });
  return { ipvs, rtnl, helper, log, clock, failures, proxier };
}

/** `TCP 10.96.0.10:80 rr f0 t0 -> 10.1.0.5:8080 w1`, one line per service, sorted; dests sorted. */
export async function ipvsText(ipvs: FakeIpvs): Promise<string[]> {
  const hp = (a: string, p: number) => (a.includes(':') ? `[${a}]:${p}` : `${a}:${p}`);
  return (await ipvs.dump()).map((s) => {
    const dests = s.destinations.map((d) => `${hp(d.address, d.port)} w${d.weight}`).sort();
    const head = `${s.protocol} ${hp(s.address, s.port)} ${s.scheduler}${s.flags & 1 ? ` persistent ${s.timeout}/${s.prefixLength}` : ''}`;
    return dests.length ? `${head} -> ${dests.join(' ')}` : head;
  }).sort();
}

export async function boundAddresses(rtnl: FakeRtnl): Promise<string[]> {
  const link = await rtnl.link('kube-ipvs0');
  return link ? (await rtnl.addresses(link.index)).map((a) => a.address).sort() : [];
}

/** The ops of apply() batches from `from` on, as `addDest TCP ... -> ...` lines. */
export function opsSince(ipvs: FakeIpvs, from: number): string[] {
  const hp = (a: string, p: number) => (a.includes(':') ? `[${a}]:${p}` : `${a}:${p}`);
  return ipvs.batches.slice(from).flat().map((o) => {
    const s = `${o.op} ${o.service.protocol} ${hp(o.service.address, o.service.port)}`;
    return 'dest' in o ? `${s} -> ${hp(o.dest.address, o.dest.port)}${'weight' in o.dest ? ` w${o.dest.weight}` : ''}` : s;
  });
}
