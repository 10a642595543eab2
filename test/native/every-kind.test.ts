// Every kind of object, committed over netlink into a fresh namespace, as `nft -j` prints it back.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Nft } from '../../src/native';
import { createNetns, TestNetns } from '../helpers/netns';
import { everyKind, T4, T6, TI } from './fixtures';
import { NftJson, normalizeRuleset, objectsOf } from './ruleset-json';

let ns: TestNetns;
let json: NftJson;

before(async () => {
  ns = createNetns();
  const nft = Nft.open({ netns: ns.path });
  try {
    await nft.commit(everyKind());
  } finally {
    nft.close();
  }
  json = normalizeRuleset(ns.nftJson());
});
after(() => ns?.destroy());

const rulesOf = (family: string, table: string, chain: string) =>
  objectsOf(json, 'rule').filter((r) => r.family === family && r.table === table && r.chain === chain).map((r) => r.expr);
const setNamed = (name: string) => [...objectsOf(json, 'set'), ...objectsOf(json, 'map')].find((s) => s.name === name);
const ip = (field: string) => ({ payload: { protocol: 'ip', field } });
const l4 = { meta: { key: 'l4proto' } };
const thDport = { payload: { protocol: 'th', field: 'dport' } };

test('tables of each family', () => {
  assert.deepEqual(objectsOf(json, 'table'), [
    { family: 'ip', name: T4 }, { family: 'ip6', name: T6 }, { family: 'inet', name: TI },
  ]);
});

test('base chains carry type, hook, priority and policy; regular chains none', () => {
  const chains = objectsOf(json, 'chain').filter((c) => c.table === T4);
  const byName = new Map(chains.map((c) => [c.name, c]));
  assert.deepEqual(byName.get('nat-prerouting'), { family: 'ip', table: T4, name: 'nat-prerouting', type: 'nat', hook: 'prerouting', prio: -100, policy: 'accept' });
  assert.deepEqual(byName.get('filter-forward'), { family: 'ip', table: T4, name: 'filter-forward', type: 'filter', hook: 'forward', prio: 0, policy: 'drop' });
  assert.equal(byName.get('mangle-output').type, 'route');
  assert.equal(byName.get('raw-prerouting').prio, -300);
  assert.equal(byName.get('nat-postrouting').hook, 'postrouting');
  assert.equal(byName.get('filter-input').hook, 'input');
  assert.deepEqual(byName.get('service-ULMVA6XW-ns1/svc1/tcp/p80'), { family: 'ip', table: T4, name: 'service-ULMVA6XW-ns1/svc1/tcp/p80' });
  assert.equal(chains.length, 12);
});

test('verdict map with concatenated key and jump/goto/drop elements', () => {
  const m = setNamed('service-ips');
  assert.deepEqual(m.type, ['ipv4_addr', 'inet_proto', 'inet_service']);
  assert.equal(m.map, 'verdict');
  assert.equal(m.comment, 'ClusterIP'); // stored in the set userdata, as nft does
  assert.deepEqual(new Set(m.elem.map((e: unknown) => JSON.stringify(e))), new Set([
    [{ concat: ['172.30.0.41', 'tcp', 80] }, { goto: { target: 'service-ULMVA6XW-ns1/svc1/tcp/p80' } }],
    [{ concat: ['172.30.0.42', 'udp', 53] }, { jump: { target: 'endpoint-B' } }],
    [{ concat: ['172.30.0.43', 'sctp', 9] }, { drop: null }],
  ].map((e) => JSON.stringify(e))));
});

test('interval sets hold CIDRs, single addresses and ranges ending at the top of the space', () => {
  const s = setNamed('pod-cidrs');
  assert.deepEqual(s.flags, ['interval']);
  assert.deepEqual(s.elem, [
    { prefix: { addr: '10.0.0.0', len: 8 } }, { prefix: { addr: '172.16.0.0', len: 12 } }, '192.168.1.1',
    { prefix: { addr: '255.255.255.0', len: 24 } },
  ]);
  assert.deepEqual(setNamed('cidr-map').elem, [
    [{ prefix: { addr: '10.0.0.0', len: 16 } }, { accept: null }], [{ prefix: { addr: '128.0.0.0', len: 1 } }, { drop: null }],
  ]);
  assert.deepEqual(setNamed('nets6').elem, [
    { prefix: { addr: '::ffff:0.0.0.0', len: 96 } }, { prefix: { addr: '2001:db8::', len: 32 } }, { prefix: { addr: 'fd00::', len: 64 } },
  ]);
});

test('concatenated interval set (firewall source ranges)', () => {
  const s = setNamed('firewall-allow');
  assert.deepEqual(s.type, ['ipv4_addr', 'inet_proto', 'inet_service', 'ipv4_addr']);
  assert.deepEqual(s.flags, ['interval']);
  assert.deepEqual(s.elem, [
    { concat: ['5.6.7.8', 'tcp', 443, { prefix: { addr: '203.0.113.0', len: 24 } }] },
    { concat: ['5.6.7.8', 'udp', 53, { prefix: { addr: '0.0.0.0', len: 0 } }] },
  ]);
});

test('timeout and dynamic sets; per-element timeout', () => {
  const d = setNamed('affinity-x');
  assert.deepEqual(d.flags, ['timeout']);
  assert.equal(d.timeout, 10800);
  const t = setNamed('timed');
  assert.deepEqual(t.elem, [{ elem: { val: '10.1.1.1', timeout: 3600 } }, '10.1.1.2']);
});

test('rules: lookups, vmaps, reject, nat, numgen, dynset', () => {
  assert.deepEqual(rulesOf('ip', T4, 'services'), [
    [{ match: { op: '==', left: { concat: [ip('daddr'), l4, thDport] }, right: '@no-endpoint-services' } },
      { reject: { type: 'icmp', expr: 'port-unreachable' } }],
    [{ vmap: { key: { concat: [ip('daddr'), l4, thDport] }, data: '@service-ips' } }],
  ]);
  const svc = rulesOf('ip', T4, 'service-ULMVA6XW-ns1/svc1/tcp/p80');
  assert.deepEqual(svc[0], [
    { match: { op: '==', left: ip('daddr'), right: '172.30.0.41' } },
    { match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: 80 } },
    { match: { op: '!=', left: ip('saddr'), right: { prefix: { addr: '10.0.0.0', len: 8 } } } },
    { jump: { target: 'mark-for-masquerade' } },
  ]);
  assert.deepEqual(svc[1], [
    { match: { op: '==', left: { numgen: { mode: 'random', mod: 2, offset: 0 } }, right: 0 } },
    { goto: { target: 'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80' } },
  ]);
  const ep = rulesOf('ip', T4, 'endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80');
  assert.deepEqual(ep[1], [{ set: { op: 'update', elem: { elem: { val: ip('saddr'), timeout: 10800 } }, set: '@affinity-x' } }]);
  assert.deepEqual(ep[2], [{ match: { op: '==', left: l4, right: 'tcp' } }, { dnat: { addr: '10.180.0.1', port: 80 } }]);
  assert.deepEqual(rulesOf('ip', T4, 'endpoint-B'), [[{ dnat: { addr: '10.180.0.2' } }]]);
});

test('rules: marks, masquerade, snat, fib, ct, ifname, notrack, counter, comment', () => {
  const mark = { meta: { key: 'mark' } };
  assert.deepEqual(rulesOf('ip', T4, 'mark-for-masquerade'), [[{ mangle: { key: mark, value: { '|': [mark, 16384] } } }]]);
  const post = rulesOf('ip', T4, 'nat-postrouting');
  assert.deepEqual(post[1], [{ mangle: { key: mark, value: { '^': [mark, 16384] } } }]);
  assert.deepEqual(post[2], [{ match: { op: '==', left: { '&': [mark, 16384] }, right: 16384 } }, { masquerade: { flags: 'fully-random' } }]);
  assert.deepEqual(post[3], [{ match: { op: '==', left: { meta: { key: 'oifname' } }, right: 'lo' } }, { masquerade: null }]);
  assert.deepEqual(post[4][1], { snat: { addr: '192.0.2.1' } });
  const fib = { fib: { result: 'type', flags: ['daddr'] } };
  assert.deepEqual(rulesOf('ip', T4, 'nat-output'), [
    [{ match: { op: '==', left: fib, right: 'local' } }, { jump: { target: 'services' } }],
    [{ match: { op: '!=', left: fib, right: 'local' } }, { continue: null }],
  ]);
  const input = rulesOf('ip', T4, 'filter-input');
  const ct = (key: string) => ({ ct: { key } });
  assert.deepEqual(input[0], [{ match: { op: 'in', left: ct('state'), right: ['established', 'related'] } }, { accept: null }]);
  assert.deepEqual(input[1], [
    { match: { op: '!=', left: ct('state'), right: 'invalid' } }, { match: { op: 'in', left: ct('status'), right: 'dnat' } },
    { counter: { packets: 0, bytes: 0 } }, { accept: null },
  ]);
  assert.deepEqual(input[2][1], { match: { op: '!=', left: ip('daddr'), right: '@pod-cidrs' } });
  assert.deepEqual(input[4], [{ vmap: { key: ip('saddr'), data: '@cidr-map' } }]);
  const fwd = rulesOf('ip', T4, 'filter-forward');
  assert.deepEqual(fwd[0], [
    { match: { op: '==', left: { meta: { key: 'iifname' } }, right: 'veth*' } },
    { match: { op: '!=', left: { meta: { key: 'iifname' } }, right: 'eth0' } },
    { reject: { type: 'tcp reset' } },
  ]);
  assert.deepEqual(rulesOf('ip', T4, 'raw-prerouting'), [[
    { match: { op: '==', left: { payload: { protocol: 'udp', field: 'dport' } }, right: 53 } }, { notrack: null },
  ]]);
  const commented = objectsOf(json, 'rule').find((r) => r.comment);
  assert.equal(commented.comment, 'masked prefixes');
  assert.deepEqual(commented.expr[0], { match: { op: '==', left: ip('daddr'), right: { prefix: { addr: '10.16.0.0', len: 12 } } } });
});

test('ip6 and inet rules: dnat with address and port, icmpv6 and icmpx reject', () => {
  const ip6 = (field: string) => ({ payload: { protocol: 'ip6', field } });
  assert.deepEqual(rulesOf('ip6', T6, 'nat-output')[0], [
    { match: { op: '==', left: ip6('daddr'), right: 'fd00::1' } },
    { match: { op: '==', left: { payload: { protocol: 'tcp', field: 'dport' } }, right: 80 } },
    { dnat: { addr: 'fd00::2', port: 8080 } },
  ]);
  assert.deepEqual(rulesOf('ip6', T6, 'filter-input')[0][1], { reject: { type: 'icmpv6', expr: 'port-unreachable' } });
  const inet = rulesOf('inet', TI, 'nat');
  assert.deepEqual(inet[0][1], { dnat: { family: 'ip', addr: '10.0.0.2', port: 80 } });
  assert.deepEqual(inet[1][1], { dnat: { family: 'ip6', addr: 'fd00::2', port: 53 } });
  assert.deepEqual(rulesOf('inet', TI, 'input')[3], [{ match: { op: '==', left: { meta: { key: 'nfproto' } }, right: 'ipv6' } }, { drop: null }]);
});
