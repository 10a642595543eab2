import { test } from 'node:test';
import assert from 'node:assert/strict';
import { staleFlowFilters } from '../../src/conntrack/stale-flows';
import { filterKey } from '../../src/conntrack/filter';
import type { ConntrackFilter } from '../../src/native';
import type { ChangeSet, Endpoint, ServicePort } from '../../src/core/types';

function sp(over: Partial<ServicePort> & { key: string }): ServicePort {
  return {
    namespace: 'ns', name: 'svc', portName: 'dns', protocol: 'UDP', family: 'IPv4', clusterIP: '10.96.0.10', port: 53,
    nodePort: 0, externalIPs: [], loadBalancerIPs: [], loadBalancerSourceRanges: [], affinityTimeoutSeconds: 0,
    externalPolicyLocal: false, internalPolicyLocal: false, healthCheckNodePort: 0, ...over,
  };
}

function ep(ip: string, port = 5353): Endpoint {
  return { ip, port, ready: true, serving: true, terminating: false, isLocal: false };
}

function changes(over: Partial<ChangeSet>): ChangeSet {
  return { services: new Set(), removedEndpoints: new Map(), ...over };
}

const sorted = (fs: ConntrackFilter[]): string[] => fs.map(filterKey).sort();

const dns = sp({ key: 'ns/dns:dns/UDP' });
const dnsNodePort = sp({ key: 'ns/np:p/UDP', clusterIP: '10.96.0.20', port: 80, nodePort: 30080, externalIPs: ['192.0.2.1'], loadBalancerIPs: ['198.51.100.7', '2001:db8::1'] });
const sctp = sp({ key: 'ns/s:s/SCTP', protocol: 'SCTP', clusterIP: '10.96.0.30', port: 9000 });
const tcp = sp({ key: 'ns/t:t/TCP', protocol: 'TCP', clusterIP: '10.96.0.40', port: 80 });
const v6 = sp({ key: 'ns/v6:dns/UDP', family: 'IPv6', clusterIP: 'fd00::10', port: 53 });

const cases: Array<{ name: string; services: ServicePort[]; changes: ChangeSet; want: ConntrackFilter[] }> = [
  {
    name: 'nothing changed: nothing to delete',
    services: [dns],
    changes: changes({}),
    want: [],
  },
  {
    name: 'removed UDP endpoint: flows to the cluster IP DNATed to it',
    services: [dns],
    changes: changes({ removedEndpoints: new Map([[dns.key, [ep('10.0.1.1')]]]) }),
    want: [{ family: 4, protocol: 'udp', origDst: '10.96.0.10', origDstPort: 53, replySrc: '10.0.1.1', replySrcPort: 5353 }],
  },
  {
    name: 'removed endpoint of a NodePort with external and LB IPs: every address, same-family only',
    services: [dnsNodePort],
    changes: changes({ removedEndpoints: new Map([[dnsNodePort.key, [ep('10.0.2.2', 8080)]]]) }),
    want: [
      { family: 4, protocol: 'udp', origDst: '10.96.0.20', origDstPort: 80, replySrc: '10.0.2.2', replySrcPort: 8080 },
      { family: 4, protocol: 'udp', origDst: '192.0.2.1', origDstPort: 80, replySrc: '10.0.2.2', replySrcPort: 8080 },
      { family: 4, protocol: 'udp', origDst: '198.51.100.7', origDstPort: 80, replySrc: '10.0.2.2', replySrcPort: 8080 },
      { family: 4, protocol: 'udp', origDstPort: 30080, replySrc: '10.0.2.2', replySrcPort: 8080 },
    ],
  },
  {
    name: 'two removed endpoints: one filter set each',
    services: [dns],
    changes: changes({ removedEndpoints: new Map([[dns.key, [ep('10.0.1.1'), ep('10.0.1.2')]]]) }),
    want: [
      { family: 4, protocol: 'udp', origDst: '10.96.0.10', origDstPort: 53, replySrc: '10.0.1.1', replySrcPort: 5353 },
      { family: 4, protocol: 'udp', origDst: '10.96.0.10', origDstPort: 53, replySrc: '10.0.1.2', replySrcPort: 5353 },
    ],
  },
  {
    name: 'SCTP is cleaned like UDP',
    services: [sctp],
    changes: changes({ removedEndpoints: new Map([[sctp.key, [ep('10.0.3.3', 9000)]]]) }),
    want: [{ family: 4, protocol: 'sctp', origDst: '10.96.0.30', origDstPort: 9000, replySrc: '10.0.3.3', replySrcPort: 9000 }],
  },
  {
    name: 'TCP is left alone',
    services: [tcp],
    changes: changes({ removedEndpoints: new Map([[tcp.key, [ep('10.0.4.4', 80)]]]), newlyActive: new Set([tcp.key]) }),
    want: [],
  },
  {
    name: 'IPv6 ServicePort: family 6, IPv4 endpoints ignored',
    services: [v6],
    changes: changes({ removedEndpoints: new Map([[v6.key, [ep('fd00:1::5'), ep('10.0.1.1')]]]) }),
    want: [{ family: 6, protocol: 'udp', origDst: 'fd00::10', origDstPort: 53, replySrc: 'fd00:1::5', replySrcPort: 5353 }],
  },
  {
    name: '0 -> N endpoints: the flows to the service addresses that no rule translated',
    services: [dnsNodePort],
    changes: changes({ newlyActive: new Set([dnsNodePort.key]) }),
    want: [
      { family: 4, protocol: 'udp', origDst: '10.96.0.20', origDstPort: 80, dnat: false },
      { family: 4, protocol: 'udp', origDst: '192.0.2.1', origDstPort: 80, dnat: false },
      { family: 4, protocol: 'udp', origDst: '198.51.100.7', origDstPort: 80, dnat: false },
      { family: 4, protocol: 'udp', origDstPort: 30080, dnat: false },
    ],
  },
  {
    name: 'newly active and a removed endpoint: both, neither covers the other',
    services: [dns],
    changes: changes({ newlyActive: new Set([dns.key]), removedEndpoints: new Map([[dns.key, [ep('10.0.1.1')]]]) }),
    want: [
      { family: 4, protocol: 'udp', origDst: '10.96.0.10', origDstPort: 53, replySrc: '10.0.1.1', replySrcPort: 5353 },
      { family: 4, protocol: 'udp', origDst: '10.96.0.10', origDstPort: 53, dnat: false },
    ],
  },
  {
    name: 'removed ServicePort: every flow to its addresses, using its previous state',
    services: [],
    changes: changes({ removedServices: new Map([[dns.key, dns]]), removedEndpoints: new Map([[dns.key, [ep('10.0.1.1')]]]) }),
    want: [{ family: 4, protocol: 'udp', origDst: '10.96.0.10', origDstPort: 53 }],
  },
  {
    name: 'removed endpoints of an unknown ServicePort: nothing (no addresses to name)',
    services: [],
    changes: changes({ removedEndpoints: new Map([['ns/gone:x/UDP', [ep('10.0.1.1')]]]) }),
    want: [],
  },
  {
    name: 'headless-like ServicePort without a cluster IP and no NodePort: nothing',
    services: [sp({ key: 'ns/h:h/UDP', clusterIP: '' })],
    changes: changes({ newlyActive: new Set(['ns/h:h/UDP']) }),
    want: [],
  },
];

for (const c of cases) {
  test(`staleFlowFilters: ${c.name}`, () => {
    const services = new Map(c.services.map((s) => [s.key, s]));
    assert.deepEqual(sorted(staleFlowFilters({ services }, c.changes)), sorted(c.want));
  });
}

test('staleFlowFilters: the same filter from two sources appears once', () => {
  const services = new Map([[dns.key, dns]]);
  const out = staleFlowFilters({ services }, changes({ removedEndpoints: new Map([[dns.key, [ep('10.0.1.1'), ep('10.0.1.1')]]]) }));
  assert.equal(out.length, 1);
});
