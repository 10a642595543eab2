// Real packets through dnatMap: a client reaches pods through a virtual IP whose endpoint is
// picked by `numgen random` in a data map, over IPv4 and IPv6, with and without a port in the data.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Nft, rule, SetSpec, Transaction } from '../../src/native';
import { Topology } from '../helpers/topology';

const T = 'kpn-dnat-map';
const VIP = '100.100.0.10';
const VIP_ADDR_ONLY = '100.100.0.11';
const VIP6 = '2001:db8:100::10';
const typeofText = (ip: 'ip' | 'ip6') => `${ip} daddr . meta l4proto . th dport . numgen random mod 2 : ${ip} daddr . th dport`;
const EP: SetSpec = { name: 'ep', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'], typeof: typeofText('ip') };
const EP6: SetSpec = { ...EP, key: ['ipv6_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv6_addr', 'inet_service'], typeof: typeofText('ip6') };
const ADDR: SetSpec = { name: 'addr', key: ['ipv4_addr'], map: 'ipv4_addr' };

let topo: Topology;
before(async () => {
  topo = Topology.create(2, 'kpd');
  await topo.startServers([8080]);
  const [p0, p1] = topo.pods;
  const tx = new Transaction();
  for (const f of ['ip', 'ip6'] as const) {
    tx.addTable(f, T);
    tx.addChain(f, T, { name: 'pre', base: { type: 'nat', hook: 'prerouting', priority: -100 } });
  }
  tx.addSet('ip', T, EP).addSet('ip', T, ADDR).addSet('ip6', T, EP6);
  tx.addElements('ip', T, 'ep', [{ key: [VIP, 'tcp', 80, 0], data: [p0.ip, 8080] }, { key: [VIP, 'tcp', 80, 1], data: [p1.ip, 8080] }]);
  tx.addElements('ip', T, 'addr', [{ key: [VIP_ADDR_ONLY], data: [p1.ip] }]);
  tx.addElements('ip6', T, 'ep', [{ key: [VIP6, 'udp', 53, 0], data: [p0.ip6, 8080] }, { key: [VIP6, 'udp', 53, 1], data: [p1.ip6, 8080] }]);
  tx.addRule('ip', T, 'pre', rule('ip').dnatMap(['daddr', 'l4proto', 'dport', { numgen: 2 }], 'ep').build());
  tx.addRule('ip', T, 'pre', rule('ip').dnatMap(['daddr'], 'addr').build());
  tx.addRule('ip6', T, 'pre', rule('ip6').dnatMap(['daddr', 'l4proto', 'dport', { numgen: 2 }], 'ep').build());
  const nft = Nft.open({ netns: topo.node.path });
  try {
    await nft.commit(tx);
  } finally {
    nft.close();
  }
});
after(() => topo?.destroy());

const podsOf = (lines: string[]) => new Set(lines.map((l) => l.split(' ')[0]));

test('TCP to an IPv4 virtual IP is spread over both endpoints and NATed to their port', () => {
  assert.deepEqual([...podsOf(topo.probe('tcp', VIP, 80, 40))].sort(), ['pod0', 'pod1']);
});

test('UDP to an IPv6 virtual IP is spread over both endpoints too', () => {
  assert.deepEqual([...podsOf(topo.probe('udp', VIP6, 53, 40))].sort(), ['pod0', 'pod1']);
});

test('a map without a port changes the address and keeps the port', () => {
  assert.deepEqual([...podsOf(topo.probe('tcp', VIP_ADDR_ONLY, 8080, 5))], ['pod1']);
});
