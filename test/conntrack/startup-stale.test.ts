// planStartupStaleFlows: table-driven, pure. Each case lists DNATed flows (as conntrackList returns
// them) against a snapshot and says which become filters and how the rest are counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { filterKey } from '../../src/conntrack/filter';
import type { ConntrackFilter, DnatFlow } from '../../src/native';
import { planStartupStaleFlows, type ListedFlows, type StartupSnapshot, type StartupStaleReport } from '../../src/conntrack/startup-stale';
import type { Endpoint, SelectedEndpoints, ServicePort } from '../../src/core/types';

function sp(over: Partial<ServicePort> & { key: string }): ServicePort {
  return {
    namespace: 'ns', name: 'svc', portName: 'dns', protocol: 'UDP', family: 'IPv4', clusterIP: '10.96.0.10', port: 53,
    nodePort: 0, externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [], affinityTimeoutSeconds: 0,
    externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0, ...over,
  };
}

function ep(ip: string, port = 5353, over: Partial<Endpoint> = {}): Endpoint {
  return { ip, port, ready: true, serving: true, terminating: false, isLocal: false, ...over };
}

const selected = (cluster: Endpoint[], local: Endpoint[] = []): SelectedEndpoints =>
  ({ cluster, local, allReachable: [...cluster, ...local], hasAny: cluster.length + local.length > 0 });

function snapshot(entries: Array<[ServicePort, Endpoint[]]>, serviceCIDRs?: string[]): StartupSnapshot {
  return {
    services: new Map(entries.map(([s]) => [s.key, s])),
    endpoints: new Map(entries.map(([s, eps]) => [s.key, selected(eps)])),
    ...(serviceCIDRs ? { serviceCIDRs } : {}),
  };
}

function flow(origDst: string, origDstPort: number, replySrc: string, replySrcPort = 5353, origSrc = '10.0.9.1', origSrcPort = 40000): DnatFlow {
  return { origSrc, origSrcPort, origDst, origDstPort, replySrc, replySrcPort };
}

const udp4 = (flows: DnatFlow[], truncated = false): ListedFlows => ({ family: 4, protocol: 'udp', flows, truncated });
const exact = (f: DnatFlow, family: 4 | 6 = 4, protocol: 'udp' | 'sctp' = 'udp'): ConntrackFilter =>
  ({ family, protocol, origDst: f.origDst, origDstPort: f.origDstPort, replySrc: f.replySrc, replySrcPort: f.replySrcPort });
const keys = (fs: ConntrackFilter[]): string[] => fs.map(filterKey).sort();
const zero: StartupStaleReport = { examined: 0, stale: 0, live: 0, notOurs: 0, skippedEntries: 0, skippedStale: 0, truncatedLists: 0 };

const dns = sp({ key: 'ns/dns:dns/UDP' });
const web = sp({
  key: 'ns/web:q/UDP', clusterIP: '10.96.0.20', port: 80, nodePort: 30080, externalIPs: ['192.0.2.1'], loadBalancerIPs: ['198.51.100.7'],
});
const sctp = sp({ key: 'ns/s:s/SCTP', protocol: 'SCTP', clusterIP: '10.96.0.30', port: 9000 });
const v6 = sp({ key: 'ns/v6:dns/UDP', family: 'IPv6', clusterIP: 'fd00:0:0::10', port: 53 });

const toLive = flow('10.96.0.10', 53, '10.0.1.1');
const toGone = flow('10.96.0.10', 53, '10.0.1.9');
const toGoneOtherClient = flow('10.96.0.10', 53, '10.0.1.9', 5353, '10.0.9.2', 41000);
const toWrongPort = flow('10.96.0.10', 53, '10.0.1.1', 9999);
const nodePortGone = flow('10.0.0.5', 30080, '10.0.2.9', 8080);
const nodePortLive = flow('10.0.0.5', 30080, '10.0.2.2', 8080);
const externalGone = flow('192.0.2.1', 80, '10.0.2.9', 8080);
const lbLive = flow('198.51.100.7', 80, '10.0.2.2', 8080);
const hostPort = flow('10.0.0.5', 8053, '10.0.3.3', 53);
const removedService = flow('10.96.0.99', 53, '10.0.1.1');
const clusterIPOtherPort = flow('10.96.0.10', 5300, '10.0.1.1');

const cases: Array<{ name: string; snap: StartupSnapshot; lists: ListedFlows[]; want: ConntrackFilter[]; report: Partial<StartupStaleReport> }> = [
  {
    name: 'cluster IP: the flow to a current endpoint is kept, the one to a gone endpoint deleted',
    snap: snapshot([[dns, [ep('10.0.1.1')]]]),
    lists: [udp4([toLive, toGone])],
    want: [exact(toGone)],
    report: { examined: 2, stale: 1, live: 1 },
  },
  {
    name: 'the endpoint port counts: same address, other port is not the endpoint',
    snap: snapshot([[dns, [ep('10.0.1.1')]]]),
    lists: [udp4([toWrongPort])],
    want: [exact(toWrongPort)],
    report: { examined: 1, stale: 1 },
  },
  {
    name: 'two clients through the same Service to the same gone endpoint: one filter',
    snap: snapshot([[dns, [ep('10.0.1.1')]]]),
    lists: [udp4([toGone, toGoneOtherClient])],
    want: [exact(toGone)],
    report: { examined: 2, stale: 2 },
  },
  {
    name: 'external IP, LoadBalancer IP and NodePort: each checked against the ServicePort endpoints',
    snap: snapshot([[web, [ep('10.0.2.2', 8080)]]]),
    lists: [udp4([nodePortGone, nodePortLive, externalGone, lbLive])],
    want: [exact(nodePortGone), exact(externalGone)],
    report: { examined: 4, stale: 2, live: 2 },
  },
  {
    name: 'a DNAT to a non-Service address and port (a hostPort) is not ours',
    snap: snapshot([[dns, [ep('10.0.1.1')]], [web, [ep('10.0.2.2', 8080)]]]),
    lists: [udp4([hostPort])],
    want: [],
    report: { examined: 1, notOurs: 1 },
  },
  {
    name: 'a Service CIDR address no Service has any more: stale whatever the target',
    snap: snapshot([[dns, [ep('10.0.1.1')]]], ['10.96.0.0/16', 'fd00::/108']),
    lists: [udp4([removedService])],
    want: [exact(removedService)],
    report: { examined: 1, stale: 1 },
  },
  {
    name: 'without Service CIDRs a removed Service address is unknown, so kept',
    snap: snapshot([[dns, [ep('10.0.1.1')]]]),
    lists: [udp4([removedService])],
    want: [],
    report: { examined: 1, notOurs: 1 },
  },
  {
    name: 'a cluster IP on a port no ServicePort has: stale even without Service CIDRs',
    snap: snapshot([[dns, [ep('10.0.1.1')]]]),
    lists: [udp4([clusterIPOtherPort])],
    want: [exact(clusterIPOtherPort)],
    report: { examined: 1, stale: 1 },
  },
  {
    name: 'a ServicePort without endpoints: every DNAT through it is stale',
    snap: snapshot([[dns, []]]),
    lists: [udp4([toLive, toGone])],
    want: [exact(toLive), exact(toGone)],
    report: { examined: 2, stale: 2 },
  },
  {
    name: 'a serving-terminating endpoint still selected is live; local endpoints count too',
    snap: {
      services: new Map([[dns.key, dns]]),
      endpoints: new Map([[dns.key, selected([ep('10.0.1.1', 5353, { ready: false, terminating: true })], [ep('10.0.1.2', 5353, { isLocal: true })])]]),
    },
    lists: [udp4([toLive, flow('10.96.0.10', 53, '10.0.1.2')])],
    want: [],
    report: { examined: 2, live: 2 },
  },
  {
    name: 'protocols are separate: an SCTP flow to a UDP-only Service IP:port is stale, one to the SCTP Service checked',
    snap: snapshot([[dns, [ep('10.0.1.1')]], [sctp, [ep('10.0.3.3', 9000)]]]),
    lists: [{ family: 4, protocol: 'sctp', truncated: false, flows: [flow('10.96.0.10', 53, '10.0.1.1'), flow('10.96.0.30', 9000, '10.0.3.3', 9000), flow('10.96.0.30', 9000, '10.0.3.4', 9000)] }],
    want: [exact(flow('10.96.0.10', 53, '10.0.1.1'), 4, 'sctp'), exact(flow('10.96.0.30', 9000, '10.0.3.4', 9000), 4, 'sctp')],
    report: { examined: 3, stale: 2, live: 1 },
  },
  {
    name: 'IPv6: addresses match whatever their spelling; IPv4 Services do not own IPv6 flows',
    snap: snapshot([[v6, [ep('fd00:1:0::1')]], [dns, [ep('10.0.1.1')]]]),
    lists: [{ family: 6, protocol: 'udp', truncated: false, flows: [flow('fd00::10', 53, 'fd00:1::1'), flow('fd00::10', 53, 'fd00:1::2'), flow('fd00::99', 53, 'fd00:1::1')] }],
    want: [exact(flow('fd00::10', 53, 'fd00:1::2'), 6)],
    report: { examined: 3, stale: 1, live: 1, notOurs: 1 },
  },
  {
    name: 'truncated lists are counted',
    snap: snapshot([[dns, [ep('10.0.1.1')]]]),
    lists: [udp4([toLive], true)],
    want: [],
    report: { examined: 1, live: 1, truncatedLists: 1 },
  },
];

for (const c of cases) {
  test(`planStartupStaleFlows: ${c.name}`, () => {
    const plan = planStartupStaleFlows(c.snap, c.lists);
    assert.deepEqual(keys(plan.filters), keys(c.want));
    assert.deepEqual(plan.report, { ...zero, ...c.report });
  });
}

test('planStartupStaleFlows: maxEntries bounds the flows examined, over all lists', () => {
  const many = Array.from({ length: 10 }, (_, i) => flow('10.96.0.10', 53, `10.0.1.${100 + i}`));
  const plan = planStartupStaleFlows(snapshot([[dns, [ep('10.0.1.1')]]]), [udp4(many.slice(0, 6)), udp4(many.slice(6))], { maxEntries: 7 });
  assert.equal(plan.filters.length, 7);
  assert.deepEqual(plan.report, { ...zero, examined: 7, stale: 7, skippedEntries: 3 });
});

test('planStartupStaleFlows: maxFilters bounds the filters; the stale flows left over are counted', () => {
  const many = Array.from({ length: 10 }, (_, i) => flow('10.96.0.10', 53, `10.0.1.${100 + i}`));
  const plan = planStartupStaleFlows(snapshot([[dns, [ep('10.0.1.1')]]]), [udp4([...many, many[0]])], { maxFilters: 4 });
  assert.deepEqual(keys(plan.filters), keys(many.slice(0, 4).map((f) => exact(f))));
  assert.deepEqual(plan.report, { ...zero, examined: 11, stale: 11, skippedStale: 6 });
});

test('planStartupStaleFlows: unparsable addresses in the snapshot are ignored, never matched', () => {
  const bad = sp({ key: 'ns/bad:x/UDP', clusterIP: 'not-an-ip', externalIPs: ['10.96.0.10'], port: 53 });
  const plan = planStartupStaleFlows({ ...snapshot([[bad, [ep('nonsense'), ep('10.0.1.1')]]]), serviceCIDRs: ['bogus', '10.96.0.0/40'] }, [udp4([toLive, toGone])]);
  assert.deepEqual(keys(plan.filters), keys([exact(toGone)]));
  assert.deepEqual(plan.report, { ...zero, examined: 2, stale: 1, live: 1 });
});

test('planStartupStaleFlows: an empty list reads nothing of the snapshot (a truncated one is still counted)', () => {
  let reads = 0;
  const services = new Map([[dns.key, dns]]);
  const counted = Object.assign(Object.create(services) as Map<string, ServicePort>, {
    values: () => {
      reads++;
      return services.values();
    },
  });
  const snap: StartupSnapshot = { ...snapshot([[dns, [ep('10.0.1.1')]]]), services: counted };
  const empty = planStartupStaleFlows(snap, [udp4([]), { family: 6, protocol: 'sctp', flows: [], truncated: true }]);
  assert.deepEqual(empty.filters, []);
  assert.deepEqual(empty.report, { ...zero, truncatedLists: 1 });
  assert.equal(reads, 0);
  const one = planStartupStaleFlows(snap, [udp4([]), udp4([toGone])]);
  assert.deepEqual(keys(one.filters), keys([exact(toGone)]));
  assert.equal(reads, 1);
});
