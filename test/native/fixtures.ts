// A transaction holding every kind of object the builder can make, shared by the kernel tests.
import { rule, SetSpec, Transaction } from '../../src/native';

export const T4 = 'kpn-test';
export const T6 = 'kpn-test6';
export const TI = 'kpn-testi';

export const SETS: Record<string, SetSpec> = {
  services: { name: 'service-ips', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict', comment: 'ClusterIP' },
  noEndpoints: { name: 'no-endpoint-services', key: ['ipv4_addr', 'inet_proto', 'inet_service'] },
  cidrs: { name: 'pod-cidrs', key: ['ipv4_addr'], interval: true },
  firewall: { name: 'firewall-allow', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'ipv4_addr'], interval: true },
  affinity: { name: 'affinity-x', key: ['ipv4_addr'], timeout: true, dynamic: true, defaultTimeoutSeconds: 10800 },
  timed: { name: 'timed', key: ['ipv4_addr'], timeout: true },
  cidrMap: { name: 'cidr-map', key: ['ipv4_addr'], interval: true, map: 'verdict' },
  timedIntervals: { name: 'timed-intervals', key: ['ipv4_addr'], interval: true, timeout: true },
  ports: { name: 'ports', key: ['inet_service'], interval: true },
  protos: { name: 'protos', key: ['inet_proto'] },
  sharedAffinity: { name: 'affinity-shared', key: ['ipv4_addr', 'ipv4_addr', 'inet_service', 'ipv4_addr', 'inet_service'], timeout: true, dynamic: true, size: 65536 },
};

export function everyKind(): Transaction {
  const tx = new Transaction();
  const f = 'ip';
  tx.addTable(f, T4);
  tx.addChain(f, T4, { name: 'nat-prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100 } });
  tx.addChain(f, T4, { name: 'nat-output', base: { type: 'nat', hook: 'output', priority: -100, policy: 'accept' } });
  tx.addChain(f, T4, { name: 'nat-postrouting', base: { type: 'nat', hook: 'postrouting', priority: 100 } });
  tx.addChain(f, T4, { name: 'filter-input', base: { type: 'filter', hook: 'input', priority: 0, policy: 'accept' } });
  tx.addChain(f, T4, { name: 'filter-forward', base: { type: 'filter', hook: 'forward', priority: 0, policy: 'drop' } });
  tx.addChain(f, T4, { name: 'raw-prerouting', base: { type: 'filter', hook: 'prerouting', priority: -300 } });
  tx.addChain(f, T4, { name: 'mangle-output', base: { type: 'route', hook: 'output', priority: -150 } });
  tx.addChain(f, T4, { name: 'services' });
  tx.addChain(f, T4, { name: 'service-ULMVA6XW-ns1/svc1/tcp/p80' });
  tx.addChain(f, T4, { name: 'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80' });
  tx.addChain(f, T4, { name: 'endpoint-B' });
  tx.addChain(f, T4, { name: 'mark-for-masquerade' });
  for (const s of Object.values(SETS)) tx.addSet(f, T4, s);

  const svc = 'service-ULMVA6XW-ns1/svc1/tcp/p80';
  const ep = 'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80';
  tx.addElements(f, T4, SETS.services.name, [
    { key: ['172.30.0.41', 'tcp', 80], verdict: { kind: 'goto', chain: svc } },
    { key: ['172.30.0.42', 17, 53], verdict: { kind: 'jump', chain: 'endpoint-B' } },
    { key: ['172.30.0.43', 'sctp', 9], verdict: { kind: 'drop' } },
  ]);
  tx.addElements(f, T4, SETS.noEndpoints.name, [{ key: ['172.30.0.44', 'tcp', 8080] }]);
  tx.addElements(f, T4, SETS.cidrs.name, [
    { key: ['10.0.0.0/8'] }, { key: ['192.168.1.1'] }, { key: ['172.16.0.0/12'] }, { key: ['255.255.255.0/24'] },
  ]);
  tx.addElements(f, T4, SETS.firewall.name, [
    { key: ['5.6.7.8', 'tcp', 443, '203.0.113.0/24'] }, { key: ['5.6.7.8', 'udp', 53, '0.0.0.0/0'] },
  ]);
  tx.addElements(f, T4, SETS.timed.name, [{ key: ['10.1.1.1'], timeoutSeconds: 3600 }, { key: ['10.1.1.2'] }]);
  tx.addElements(f, T4, SETS.timedIntervals.name, [{ key: ['10.0.0.0/8'], timeoutSeconds: 100 }, { key: ['192.168.0.1'] }]);
  tx.addElements(f, T4, SETS.ports.name, [{ key: [80] }, { key: [65535] }, { key: [0] }]);
  tx.addElements(f, T4, SETS.protos.name, [{ key: ['tcp'] }, { key: [1] }]);
  tx.addElements(f, T4, SETS.cidrMap.name, [{ key: ['10.0.0.0/16'], verdict: { kind: 'accept' } }, { key: ['128.0.0.0/1'], verdict: { kind: 'drop' } }]);

  const r = () => rule(f);
  tx.addRule(f, T4, 'nat-prerouting', r().jump('services').build());
  tx.addRule(f, T4, 'nat-output', r().fibDaddrLocal().verdict({ kind: 'jump', chain: 'services' }).build());
  tx.addRule(f, T4, 'nat-output', r().fibDaddrLocal(true).verdict({ kind: 'continue' }).build());
  tx.addRule(f, T4, 'services', r().lookup(['daddr', 'l4proto', 'dport'], SETS.noEndpoints.name).reject().build());
  tx.addRule(f, T4, 'services', r().vmap(['daddr', 'l4proto', 'dport'], SETS.services.name).build());
  tx.addRule(f, T4, svc, r().daddr('172.30.0.41').l4proto('tcp').dport(80).saddr('10.0.0.0/8', true)
    .verdict({ kind: 'jump', chain: 'mark-for-masquerade' }).build());
  tx.addRule(f, T4, svc, r().numgenMod(2, 0).goto(ep).build());
  tx.addRule(f, T4, svc, r().numgenMod(2, 1).verdict({ kind: 'goto', chain: 'endpoint-B' }).build());
  tx.addRule(f, T4, svc, r().saddrInSet(SETS.affinity.name).verdict({ kind: 'goto', chain: ep }).build());
  tx.addRule(f, T4, ep, r().saddr('10.180.0.1').verdict({ kind: 'jump', chain: 'mark-for-masquerade' }).build());
  tx.addRule(f, T4, ep, r().dynsetUpdate(['saddr'], SETS.affinity.name, 10800).build());
  tx.addRule(f, T4, ep, r().l4proto('tcp').dnat('10.180.0.1', 80).build());
  tx.addRule(f, T4, 'endpoint-B', r().dnat('10.180.0.2').build());
  tx.addRule(f, T4, 'mark-for-masquerade', r().markOr(0x4000).build());
  tx.addRule(f, T4, 'nat-postrouting', r().markAnd(0x4000, 0, false).verdict({ kind: 'return' }).build());
  tx.addRule(f, T4, 'nat-postrouting', r().markXor(0x4000).build());
  tx.addRule(f, T4, 'nat-postrouting', r().markAnd(0x4000, 0x4000).masquerade(true).build());
  tx.addRule(f, T4, 'nat-postrouting', r().oifname('lo').masquerade().build());
  tx.addRule(f, T4, 'nat-postrouting', r().saddr('10.99.0.0/16').snat('192.0.2.1').build());
  tx.addRule(f, T4, 'filter-input', r().ctState(['established', 'related']).verdict({ kind: 'accept' }).build());
  tx.addRule(f, T4, 'filter-input', r().ctState(['invalid'], true).ctStatusDnat().counter().verdict({ kind: 'accept' }).build());
  tx.addRule(f, T4, 'filter-input', r().ctState(['new']).daddrInSet(SETS.cidrs.name, true).verdict({ kind: 'drop' }).build());
  tx.addRule(f, T4, 'filter-input', r().lookup(['daddr', 'l4proto', 'dport', 'saddr'], SETS.firewall.name).verdict({ kind: 'accept' }).build());
  tx.addRule(f, T4, 'filter-input', r().vmap(['saddr'], SETS.cidrMap.name).build());
  tx.addRule(f, T4, 'filter-forward', r().iifnamePrefix('veth').iifname('eth0', true).l4proto('tcp').reject('tcp-reset').build());
  tx.addRule(f, T4, 'filter-forward', r().reject('tcp-reset').build());
  tx.addRule(f, T4, 'filter-forward', r().daddr('10.16.0.0/12').daddr('0.0.0.0/0').comment('masked prefixes').verdict({ kind: 'accept' }).build());
  tx.addRule(f, T4, 'raw-prerouting', r().l4proto('udp').dport(53).notrack().build());
  tx.addRule(f, T4, 'mangle-output', r().markAnd(0x1, 0x1, true).counter().build());
  tx.addRule(f, T4, 'mangle-output', r().fibSaddrLocal().fibDaddrLocal(true).verdict({ kind: 'accept' }).build());
  tx.addRule(f, T4, 'mangle-output', r().dynsetUpdate(['saddr', { ip: '172.30.0.41' }, { port: 80 }, { ip: '10.180.0.1' }, { port: 8080 }], SETS.sharedAffinity.name, 10800).build());
  // The same key looked up: its constants as typed expressions (rule-key.ts), which nft can read.
  tx.addRule(f, T4, 'mangle-output', r().lookup(['saddr', { ip: '172.30.0.41' }, { port: 80 }, { ip: '10.180.0.1' }, { port: 8080 }], SETS.sharedAffinity.name).verdict({ kind: 'accept' }).build());

  // ip6 and inet tables
  tx.addTable('ip6', T6);
  tx.addChain('ip6', T6, { name: 'nat-output', base: { type: 'nat', hook: 'output', priority: -100 } });
  tx.addChain('ip6', T6, { name: 'filter-input', base: { type: 'filter', hook: 'input', priority: 0 } });
  tx.addSet('ip6', T6, { name: 'svc6', key: ['ipv6_addr', 'inet_proto', 'inet_service'] });
  tx.addSet('ip6', T6, { name: 'nets6', key: ['ipv6_addr'], interval: true });
  tx.addElements('ip6', T6, 'svc6', [{ key: ['fd00::1', 'tcp', 80] }]);
  tx.addElements('ip6', T6, 'nets6', [{ key: ['fd00::/64'] }, { key: ['2001:db8::/32'] }, { key: ['::ffff:0:0/96'] }]);
  tx.addRule('ip6', T6, 'nat-output', rule('ip6').daddr('fd00::1').l4proto('tcp').dport(80).dnat('fd00::2', 8080).build());
  tx.addRule('ip6', T6, 'nat-output', rule('ip6').daddr('fd00::/48').dnat('fd00::3').build());
  tx.addRule('ip6', T6, 'filter-input', rule('ip6').lookup(['daddr', 'l4proto', 'dport'], 'svc6').reject().build());
  tx.addRule('ip6', T6, 'filter-input', rule('ip6').saddrInSet('nets6').saddr('fd00::/60').verdict({ kind: 'accept' }).build());

  tx.addTable('inet', TI);
  tx.addChain('inet', TI, { name: 'input', base: { type: 'filter', hook: 'input', priority: 10 } });
  tx.addChain('inet', TI, { name: 'nat', base: { type: 'nat', hook: 'prerouting', priority: -90 } });
  tx.addSet('inet', TI, { name: 'v4', key: ['ipv4_addr', 'inet_proto', 'inet_service'] });
  tx.addRule('inet', TI, 'input', rule('inet').daddr('1.2.3.4').verdict({ kind: 'accept' }).build());
  tx.addRule('inet', TI, 'input', rule('inet').saddr('fd00::/64').reject().build());
  tx.addRule('inet', TI, 'input', rule('inet').lookup(['ip daddr', 'l4proto', 'dport'], 'v4').reject('tcp-reset').build());
  tx.addRule('inet', TI, 'input', rule('inet').nfproto('ipv6').verdict({ kind: 'drop' }).build());
  // Constant key parts of every kind in inet: each address part needs its IP version (meta nfproto, once).
  tx.addSet('inet', TI, { name: 'consts4', key: ['ipv4_addr', 'ipv4_addr', 'inet_service', 'inet_proto'] });
  tx.addSet('inet', TI, { name: 'consts6', key: ['ipv6_addr', 'ipv6_addr', 'inet_service'] });
  tx.addRule('inet', TI, 'input', rule('inet').lookup(['ip saddr', { ip: '10.0.0.1' }, { port: 80 }, { proto: 'udp' }], 'consts4').verdict({ kind: 'accept' }).build());
  tx.addRule('inet', TI, 'input', rule('inet').lookup([{ ip: 'fd00::1' }, 'ip6 saddr', { port: 65535 }], 'consts6').verdict({ kind: 'accept' }).build());
  tx.addRule('inet', TI, 'nat', rule('inet').l4proto('tcp').dnat('10.0.0.2', 80).build());
  tx.addRule('inet', TI, 'nat', rule('inet').l4proto('udp').dnat('fd00::2', 53).build());
  return tx;
}

// Data maps (dnat to a map's address or address . port), numgen key parts, in every family.
export const TD = 'kpn-data';

export const DATA_SETS: Record<string, SetSpec> = {
  endpoints: { name: 'endpoints-2', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'],
    typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport' },
  addrOnly: { name: 'addr-only', key: ['ipv4_addr'], map: 'ipv4_addr' },
  ports: { name: 'port-map', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: ['ipv4_addr', 'inet_service'], comment: 'by port' },
  byNumgen: { name: 'by-numgen', key: ['integer'], map: 'verdict', typeof: 'numgen random mod 3 : verdict' },
  picked: { name: 'picked', key: ['ipv4_addr', 'integer'], typeof: 'ip saddr . numgen random mod 4' },
  marks: { name: 'marks', key: ['ipv4_addr'], map: 'mark', timeout: true },
  ranges: { name: 'ranges', key: ['ipv4_addr'], interval: true, map: ['ipv4_addr'] },
  typed: { name: 'typed', key: ['ipv4_addr', 'inet_service'], map: ['ipv4_addr'], typeof: 'ip saddr . th sport : ip daddr', comment: 'typeof and comment' },
};
export const DATA_SETS6: Record<string, SetSpec> = {
  endpoints: { name: 'endpoints-3', key: ['ipv6_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv6_addr', 'inet_service'],
    typeof: 'ip6 daddr . meta l4proto . th dport . numgen random mod 3 : ip6 daddr . th dport' },
  addrOnly: { name: 'addr-only', key: ['ipv6_addr'], map: 'ipv6_addr' },
};
export const DATA_SETS_INET: Record<string, SetSpec> = {
  v4: { name: 'v4', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'],
    typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport' },
  v6: { name: 'v6', key: ['inet_proto', 'inet_service'], map: ['ipv6_addr', 'inet_service'], typeof: 'meta l4proto . th dport : ip6 daddr . th dport' },
};

export function dataMapKinds(): Transaction {
  const tx = new Transaction();
  const nat = { type: 'nat', hook: 'prerouting', priority: -100 } as const;
  tx.addTable('ip', TD);
  tx.addChain('ip', TD, { name: 'pre', base: nat });
  tx.addChain('ip', TD, { name: 'other' });
  tx.addChain('ip', TD, { name: 'filter', base: { type: 'filter', hook: 'input', priority: 0 } });
  for (const s of Object.values(DATA_SETS)) tx.addSet('ip', TD, s);
  tx.addElements('ip', TD, DATA_SETS.endpoints.name, [
    { key: ['10.0.0.1', 'tcp', 80, 0], data: ['10.1.0.1', 8080] }, { key: ['10.0.0.1', 'tcp', 80, 1], data: ['10.1.0.2', 8080] },
  ]);
  tx.addElements('ip', TD, DATA_SETS.addrOnly.name, [{ key: ['10.0.0.2'], data: ['10.1.0.3'] }]);
  tx.addElements('ip', TD, DATA_SETS.ports.name, [{ key: ['10.0.0.3', 17, 53], data: ['10.1.0.4', 5353] }, { key: ['10.0.0.3', 'tcp', 53], data: ['10.1.0.4', 53] }]);
  tx.addElements('ip', TD, DATA_SETS.byNumgen.name, [{ key: [0], verdict: { kind: 'accept' } }, { key: [2], verdict: { kind: 'jump', chain: 'other' } }]);
  tx.addElements('ip', TD, DATA_SETS.picked.name, [{ key: ['10.2.0.1', 3] }, { key: ['10.2.0.2', 0xffffffff] }]);
  tx.addElements('ip', TD, DATA_SETS.marks.name, [{ key: ['10.3.0.1'], data: [0x4000], timeoutSeconds: 3600 }, { key: ['10.3.0.2'], data: [1] }]);
  tx.addElements('ip', TD, DATA_SETS.ranges.name, [{ key: ['10.0.0.0/8'], data: ['192.168.0.1'] }, { key: ['172.16.0.1'], data: ['192.168.0.2'] }]);
  tx.addElements('ip', TD, DATA_SETS.typed.name, [{ key: ['10.4.0.1', 1234], data: ['10.4.0.2'] }]);
  tx.addRule('ip', TD, 'pre', rule('ip').dnatMap(['daddr', 'l4proto', 'dport', { numgen: 2 }], DATA_SETS.endpoints.name).build());
  tx.addRule('ip', TD, 'pre', rule('ip').daddr('10.0.0.0/24').dnatMap(['daddr'], DATA_SETS.addrOnly.name).build());
  tx.addRule('ip', TD, 'pre', rule('ip').counter().dnatMap(['daddr', 'l4proto', 'dport'], DATA_SETS.ports.name).build());
  tx.addRule('ip', TD, 'pre', rule('ip').dnatMap(['saddr', 'sport'], DATA_SETS.typed.name).build());
  tx.addRule('ip', TD, 'filter', rule('ip').lookup(['saddr', { numgen: 4 }], DATA_SETS.picked.name).verdict({ kind: 'drop' }).build());
  tx.addRule('ip', TD, 'filter', rule('ip').vmap([{ numgen: 3 }], DATA_SETS.byNumgen.name).build());

  tx.addTable('ip6', TD);
  tx.addChain('ip6', TD, { name: 'pre', base: nat });
  for (const s of Object.values(DATA_SETS6)) tx.addSet('ip6', TD, s);
  tx.addElements('ip6', TD, DATA_SETS6.endpoints.name, [
    { key: ['fd00::1', 'tcp', 80, 0], data: ['fd00:1::1', 8080] }, { key: ['fd00::1', 'udp', 80, 2], data: ['fd00:1::2', 8081] },
  ]);
  tx.addElements('ip6', TD, DATA_SETS6.addrOnly.name, [{ key: ['fd00::2'], data: ['fd00:1::3'] }]);
  tx.addRule('ip6', TD, 'pre', rule('ip6').dnatMap(['daddr', 'l4proto', 'dport', { numgen: 3 }], DATA_SETS6.endpoints.name).build());
  tx.addRule('ip6', TD, 'pre', rule('ip6').dnatMap(['daddr'], DATA_SETS6.addrOnly.name).build());

  tx.addTable('inet', TD);
  tx.addChain('inet', TD, { name: 'pre', base: nat });
  for (const s of Object.values(DATA_SETS_INET)) tx.addSet('inet', TD, s);
  tx.addElements('inet', TD, DATA_SETS_INET.v4.name, [{ key: ['10.0.0.1', 'tcp', 80, 1], data: ['10.1.0.1', 80] }]);
  tx.addElements('inet', TD, DATA_SETS_INET.v6.name, [{ key: ['tcp', 443], data: ['fd00::5', 8443] }]);
  tx.addRule('inet', TD, 'pre', rule('inet').dnatMap(['ip daddr', 'l4proto', 'dport', { numgen: 2 }], DATA_SETS_INET.v4.name).build());
  tx.addRule('inet', TD, 'pre', rule('inet').nfproto('ipv6').dnatMap(['l4proto', 'dport'], DATA_SETS_INET.v6.name).build());
  return tx;
}
