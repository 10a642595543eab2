import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { formatIpvsListing } from '../../../src/proxier/ipvs';
import type { IpvsServiceState } from '../../../src/native/ipvs/ipvs-types';

const dest = (address: string, weight: number, activeConns = 0, inactiveConns = 0) => ({
  family: (address.includes(':') ? 6 : 4) as 4 | 6, address, port: 8080, weight, forward: 'masq' as const, activeConns, inactiveConns, persistConns: 0,
});

test('formatIpvsListing prints services and real servers as ipvsadm -Ln does, sorted', () => {
  const services: IpvsServiceState[] = [
    { family: 4, protocol: 'UDP', address: '10.96.0.10', port: 53, scheduler: 'rr', flags: 2, timeout: 0, prefixLength: 32, destinations: [dest('10.244.0.3', 1)] },
    { family: 4, protocol: 'TCP', address: '10.96.0.10', port: 80, scheduler: 'rr', flags: 3, timeout: 10800, prefixLength: 32,
      destinations: [dest('10.244.0.3', 0, 1, 2), dest('10.244.0.2', 1)] },
    { family: 6, protocol: 'TCP', address: 'fd00::10', port: 80, scheduler: 'wrr', flags: 2, timeout: 0, prefixLength: 128, destinations: [dest('fd00:1::2', 1)] },
  ];
  assert.equal(formatIpvsListing(services), [
    'Prot LocalAddress:Port Scheduler Flags',
    '  -> RemoteAddress:Port           Forward Weight ActiveConn InActConn',
    'TCP  10.96.0.10:80 rr persistent 10800',
    '  -> 10.244.0.2:8080              Masq    1      0          0',
    '  -> 10.244.0.3:8080              Masq    0      1          2',
    'TCP  [fd00::10]:80 wrr',
    '  -> [fd00:1::2]:8080             Masq    1      0          0',
    'UDP  10.96.0.10:53 rr',
    '  -> 10.244.0.3:8080              Masq    1      0          0',
  ].join('\n'));
});
