// Bad input is refused while the transaction is built, with the argument named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rule, SetSpec, Transaction } from '../../src/native';

const SVC: SetSpec = { name: 'svc', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' };
const CIDRS: SetSpec = { name: 'cidrs', key: ['ipv4_addr'], interval: true };
const PLAIN: SetSpec = { name: 'plain', key: ['ipv4_addr'] };
const EP: SetSpec = { name: 'ep', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'] };
const EP6: SetSpec = { name: 'ep6', key: ['ipv4_addr'], map: ['ipv6_addr', 'inet_service'] };
const PROTO_DATA: SetSpec = { name: 'proto-data', key: ['ipv4_addr'], map: ['ipv4_addr', 'inet_proto'] };
const tx = () => new Transaction().addTable('ip', 't').declareSet('ip', 't', SVC).declareSet('ip', 't', CIDRS).declareSet('ip', 't', PLAIN)
  .declareSet('ip', 't', EP).declareSet('ip', 't', EP6).declareSet('ip', 't', PROTO_DATA);
const epRule = (parts: unknown[], map = 'ep') => rule('ip').dnatMap(any(parts), map).build();
const EP_KEY = ['daddr', 'l4proto', 'dport', { numgen: 2 }];
const any = (v: unknown) => v as never;

const cases: [string, () => unknown, ErrorConstructor, RegExp][] = [
  ['unknown family', () => tx().addTable(any('arp'), 'x'), TypeError, /^family:/],
  ['empty table name', () => tx().addTable('ip', ''), RangeError, /^table: name must not be empty/],
  ['table name too long', () => tx().addTable('ip', 'x'.repeat(256)), RangeError, /^table: .*longer than 255/],
  ['table name with a quote', () => tx().addTable('ip', 'a"b'), RangeError, /^table:/],
  ['chain name that is an nft keyword', () => tx().addChain('ip', 't', { name: 'accept' }), RangeError, /^chain.name: name 'accept' is an nft keyword/],
  ['chain name starting with a digit', () => tx().addChain('ip', 't', { name: '1abc' }), RangeError, /^chain.name:/],
  ['table name not a string', () => tx().addTable('ip', any(5)), TypeError, /^table:/],
  ['empty chain name', () => tx().addChain('ip', 't', { name: '' }), RangeError, /^chain.name:/],
  ['bad hook', () => tx().addChain('ip', 't', { name: 'c', base: { type: 'nat', hook: any('ingress'), priority: 0 } }), TypeError, /^chain.base.hook:/],
  ['bad chain type', () => tx().addChain('ip', 't', { name: 'c', base: { type: any('mangle'), hook: 'input', priority: 0 } }), TypeError, /^chain.base.type:/],
  ['fractional priority', () => tx().addChain('ip', 't', { name: 'c', base: { type: 'filter', hook: 'input', priority: 1.5 } }), RangeError, /^chain.base.priority:/],
  ['bad policy', () => tx().addChain('ip', 't', { name: 'c', base: { type: 'filter', hook: 'input', priority: 0, policy: any('reject') } }), TypeError, /^chain.base.policy:/],
  ['nat at forward', () => tx().addChain('ip', 't', { name: 'c', base: { type: 'nat', hook: 'forward', priority: 0 } }), RangeError, /^chain.base.hook:/],
  ['jump to an empty chain name', () => rule('ip').verdict({ kind: 'jump', chain: '' }), RangeError, /^v.chain: name must not be empty/],
  ['unknown verdict', () => rule('ip').verdict(any({ kind: 'reject' })), TypeError, /^v.kind:/],
  ['bad IPv4 address', () => rule('ip').daddr('10.0.0.256'), RangeError, /^addrOrCidr: '10.0.0.256' is not an IP address/],
  ['IPv6 in an ip rule', () => rule('ip').daddr('fd00::1'), RangeError, /^addrOrCidr: .*not an IPv4/],
  ['bad prefix', () => rule('ip').saddr('10.0.0.0/33'), RangeError, /^addrOrCidr: .*prefix length/],
  ['host bits in a CIDR', () => rule('ip').saddr('10.0.0.1/8'), RangeError, /^addrOrCidr: .*host bits/],
  ['port out of range', () => rule('ip').dport(65536), RangeError, /^port: port 65536/],
  ['port not an integer', () => rule('ip').dport(8.5), TypeError, /^port:/],
  ['bad protocol', () => rule('ip').l4proto(any('icmp')), RangeError, /^proto:/],
  ['two protocols', () => rule('ip').l4proto('tcp').l4proto('udp'), RangeError, /^proto: this rule already matches tcp/],
  ['dnat port without a protocol', () => rule('ip').dnat('10.0.0.1', 80), RangeError, /^port: dnat to a port needs l4proto/],
  ['dnat to an IPv6 address in ip', () => rule('ip').dnat('fd00::1'), RangeError, /^addr:/],
  ['statement after a verdict', () => rule('ip').verdict({ kind: 'accept' }).counter(), RangeError, /nothing may follow 'accept'/],
  ['numgen value never matches', () => rule('ip').numgenMod(2, 2), RangeError, /^equals:/],
  ['numgen mod 0', () => rule('ip').numgenMod(0, 0), RangeError, /^(mod|equals):/],
  ['bad ct state', () => rule('ip').ctState([any('untracked')]), RangeError, /^states\[0\]:/],
  ['empty ct states', () => rule('ip').ctState([]), TypeError, /^states:/],
  ['interface name too long', () => rule('ip').iifname('a'.repeat(16)), RangeError, /^name:/],
  ['wildcard in exact interface name', () => rule('ip').oifname('veth*'), RangeError, /^name:/],
  ['mark value outside mask', () => rule('ip').markAnd(0x4000, 0x8000), RangeError, /^value:/],
  ['mark mask not 32-bit', () => rule('ip').markAnd(2 ** 32, 0), RangeError, /^mask:/],
  ['comment with a quote', () => rule('ip').counter().comment('a"b'), RangeError, /^text:/],
  ['empty rule', () => rule('ip').build(), RangeError, /^build:/],
  ['constant key part in a vmap', () => rule('ip').vmap([{ port: 80 }], 'svc'), TypeError, /^parts\[0\]: constant key parts are only allowed in lookup and dynsetUpdate/],
  ['bad constant address in a lookup key', () => rule('ip').lookup(['saddr', { ip: 'fd00::1' }], 'aff'), RangeError, /^parts\[1\].ip:/],
  ['jump to a bad chain name', () => rule('ip').jump('a b'), RangeError, /^chain:/],
  ['goto without a chain', () => rule('ip').goto(undefined as never), TypeError, /^chain:/],
  ['bad constant port in a dynset key', () => rule('ip').dynsetUpdate(['saddr', { port: 70000 }], 'aff', 10), RangeError, /^parts\[1\].port:/],
  ['saddr key in inet without a version', () => rule('inet').lookup(['saddr'], 'plain'), TypeError, /^parts\[0\]:/],
  ['unknown set in a rule', () => tx().addRule('ip', 't', 'c', rule('ip').daddrInSet('nope').build()), RangeError, /^set: unknown set 'nope'/],
  ['wrong key arity in a lookup', () => tx().addRule('ip', 't', 'c', rule('ip').lookup(['daddr', 'dport'], 'plain').build()), RangeError, /^set: 'plain' has key ipv4_addr/],
  ['vmap on a plain set', () => tx().addRule('ip', 't', 'c', rule('ip').vmap(['daddr'], 'plain').build()), RangeError, /^map: 'plain' is not a verdict map/],
  ['lookup on a map', () => tx().addRule('ip', 't', 'c', rule('ip').lookup(['daddr', 'l4proto', 'dport'], 'svc').build()), RangeError, /^set: 'svc' is a map/],
  ['dynset on a static set', () => tx().addRule('ip', 't', 'c', rule('ip').dynsetUpdate(['saddr'], 'plain', 10).build()), RangeError, /^set: 'plain' is not dynamic/],
  ['ip6 rule into an ip table', () => tx().addRule('ip', 't', 'c', rule('ip6').counter().build()), RangeError, /^rule: built for family ip6/],
  ['elements for an unknown set', () => tx().addElements('ip', 't', 'nope', [{ key: ['1.2.3.4'] }]), RangeError, /^set: unknown set 'nope'/],
  ['wrong element key arity', () => tx().addElements('ip', 't', 'svc', [{ key: ['1.2.3.4', 'tcp'], verdict: { kind: 'accept' } }]), RangeError, /^elements\[0\].key: set 'svc' has 3 key part/],
  ['map element without a verdict', () => tx().addElements('ip', 't', 'svc', [{ key: ['1.2.3.4', 'tcp', 80] }]), TypeError, /^elements\[0\].verdict:/],
  ['verdict on a plain set', () => tx().addElements('ip', 't', 'plain', [{ key: ['1.2.3.4'], verdict: { kind: 'drop' } }]), TypeError, /^elements\[0\].verdict:/],
  ['element port out of range', () => tx().addElements('ip', 't', 'svc', [{ key: ['1.2.3.4', 'tcp', 70000], verdict: { kind: 'accept' } }]), RangeError, /^elements\[0\].key\[2\]: port 70000/],
  ['element bad address', () => tx().addElements('ip', 't', 'plain', [{ key: ['1.2.3'] }]), RangeError, /^elements\[0\].key\[0\]:/],
  ['CIDR in a plain set', () => tx().addElements('ip', 't', 'plain', [{ key: ['10.0.0.0/8'] }]), RangeError, /^elements\[0\].key\[0\]:/],
  ['overlapping CIDRs', () => tx().addElements('ip', 't', 'cidrs', [{ key: ['10.0.0.0/8'] }, { key: ['10.1.0.0/16'] }]), RangeError, /^elements\[1\]: '10.1.0.0\/16' overlaps '10.0.0.0\/8'/],
  ['element timeout without timeout flag', () => tx().addElements('ip', 't', 'plain', [{ key: ['1.2.3.4'], timeoutSeconds: 5 }]), RangeError, /^elements\[0\].timeoutSeconds:/],
  ['set key type unknown', () => tx().addSet('ip', 't', { name: 's', key: [any('ether_addr')] }), TypeError, /^set.key\[0\]:/],
  ['set without key', () => tx().addSet('ip', 't', { name: 's', key: [] }), TypeError, /^set.key:/],
  ['set name with a slash', () => tx().addSet('ip', 't', { name: 'a/b', key: ['ipv4_addr'] }), RangeError, /^set.name:/],
  ['interval on ifname', () => tx().addSet('ip', 't', { name: 's', key: ['ifname'], interval: true }), RangeError, /^set.key\[0\]:/],
  ['set size zero', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], size: 0 }), RangeError, /^set.size: 0 is not an element count/],
  ['set size fractional', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], size: 2.5 }), RangeError, /^set.size:/],
  ['set size above u32', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], size: 2 ** 32 }), RangeError, /^set.size:/],
  ['default timeout without timeout flag', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], defaultTimeoutSeconds: 5 }), RangeError, /^set.defaultTimeoutSeconds:/],
  ['map to an unknown type', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], map: any('ether_addr') }), TypeError, /^set.map: 'ether_addr' is not a data type/],
  ['verdict inside a data concatenation', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], map: ['ipv4_addr', 'verdict'] }), TypeError, /^set.map\[1\]:/],
  ['empty data type list', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], map: [] }), TypeError, /^set.map:/],
  ['data longer than a register file', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], map: ['ipv6_addr', 'ipv6_addr', 'ipv6_addr', 'ipv6_addr', 'inet_service'] }), RangeError, /^set.map: the data is longer than 64 bytes/],
  ['integer key without typeof', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr', 'integer'] }), RangeError, /^set.typeof: a set with an 'integer' part needs typeof/],
  ['integer data without typeof', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], map: 'integer' }), RangeError, /^set.typeof:/],
  ['typeof of another type', () => tx().addSet('ip', 't', { ...EP, typeof: 'ip6 daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport' }), RangeError, /^set.typeof: the key expressions give ipv6_addr/],
  ['typeof with an expression nft udata is not written for', () => tx().addSet('ip', 't', { name: 's', key: ['inet_service'], typeof: 'tcp dport' }), RangeError, /^set.typeof: 'tcp dport' is not one of/],
  ['typeof of a map without its data', () => tx().addSet('ip', 't', { ...EP, typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2' }), RangeError, /^set.typeof: .* needs a ': <data>' part/],
  ['typeof with data for a plain set', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], typeof: 'ip daddr : ip daddr' }), RangeError, /^set.typeof: .* must not have/],
  ['typeof numgen modulus 0', () => tx().addSet('ip', 't', { name: 's', key: ['integer'], typeof: 'numgen random mod 0' }), RangeError, /^set.typeof:/],
  ['typeof not a string', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], typeof: any(7) }), TypeError, /^set.typeof:/],
  ['typeof and comment over 256 bytes of userdata', () => tx().addSet('ip', 't', { ...EP, name: 's', comment: 'x'.repeat(128),
    typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport' }), RangeError, /^set: .* more than nft's 256/],
  ['data map element without data', () => tx().addElements('ip', 't', 'ep', [{ key: ['1.2.3.4', 'tcp', 80, 0] }]), TypeError, /^elements\[0\].data: map 'ep' needs an array of data parts \(ipv4_addr . inet_service\)/],
  ['data map element with too few data parts', () => tx().addElements('ip', 't', 'ep', [{ key: ['1.2.3.4', 'tcp', 80, 0], data: ['10.0.0.1'] }]), RangeError, /^elements\[0\].data: map 'ep' has 2 data part\(s\) \(ipv4_addr . inet_service\), got 1/],
  ['data port out of range', () => tx().addElements('ip', 't', 'ep', [{ key: ['1.2.3.4', 'tcp', 80, 0], data: ['10.0.0.1', 70000] }]), RangeError, /^elements\[0\].data\[1\]: port 70000/],
  ['IPv4 address in IPv6 data', () => tx().addElements('ip', 't', 'ep6', [{ key: ['1.2.3.4'], data: ['10.0.0.1', 80] }]), RangeError, /^elements\[0\].data\[0\]:/],
  ['data not an array', () => tx().addElements('ip', 't', 'ep', [{ key: ['1.2.3.4', 'tcp', 80, 0], data: any('10.0.0.1') }]), TypeError, /^elements\[0\].data:/],
  ['bad data in a delete', () => tx().deleteElements('ip', 't', 'ep', [{ key: ['1.2.3.4', 'tcp', 80, 0], data: ['10.0.0.1', -1] }]), RangeError, /^elements\[0\].data\[1\]:/],
  ['data in a verdict map', () => tx().addElements('ip', 't', 'svc', [{ key: ['1.2.3.4', 'tcp', 80], verdict: { kind: 'accept' }, data: [1] }]), TypeError, /^elements\[0\].data: set 'svc' is a verdict map/],
  ['data in a plain set', () => tx().addElements('ip', 't', 'plain', [{ key: ['1.2.3.4'], data: ['1.2.3.4'] }]), TypeError, /^elements\[0\].data: set 'plain' is not a map/],
  ['verdict in a data map', () => tx().addElements('ip', 't', 'ep', [{ key: ['1.2.3.4', 'tcp', 80, 0], verdict: { kind: 'accept' } }]), TypeError, /^elements\[0\].verdict: set 'ep' is a data map/],
  ['integer key part over 32 bits', () => tx().addElements('ip', 't', 'ep', [{ key: ['1.2.3.4', 'tcp', 80, 2 ** 32], data: ['10.0.0.1', 80] }]), RangeError, /^elements\[0\].key\[3\]: 4294967296 is outside/],
  ['integer key part not a number', () => tx().addElements('ip', 't', 'ep', [{ key: ['1.2.3.4', 'tcp', 80, '1'], data: ['10.0.0.1', 80] }]), TypeError, /^elements\[0\].key\[3\]:/],
  ['numgen modulus 0', () => rule('ip').lookup([{ numgen: 0 }], 'x'), RangeError, /^parts\[0\].numgen: 0 is outside 1..2147483648/],
  ['numgen modulus over 2^31', () => rule('ip').dnatMap(['daddr', { numgen: 2 ** 31 + 1 }], 'x'), RangeError, /^parts\[1\].numgen:/],
  ['numgen modulus not an integer', () => rule('ip').vmap([{ numgen: 1.5 }], 'x'), TypeError, /^parts\[0\].numgen:/],
  ['numgen in a dynset key', () => rule('ip').dynsetUpdate(['saddr', { numgen: 2 }], 'aff', 10), TypeError, /^parts\[1\]: numgen key parts are only allowed in lookup, vmap and dnatMap/],
  ['constant in a dnatMap key', () => rule('ip').dnatMap([{ port: 80 }], 'ep'), TypeError, /^parts\[0\]: constant key parts/],
  ['dnatMap in inet without a version', () => rule('inet').dnatMap(['l4proto', 'dport'], 'ep'), TypeError, /^parts: in an inet rule say which IP version/],
  ['dnatMap to a bad map name', () => rule('ip').dnatMap(['daddr'], 'a b'), RangeError, /^map:/],
  ['statement after dnatMap', () => rule('ip').dnatMap(['daddr'], 'ep').counter(), RangeError, /nothing may follow 'dnat'/],
  ['dnatMap on a verdict map', () => tx().addRule('ip', 't', 'c', epRule(['daddr', 'l4proto', 'dport'], 'svc')), RangeError, /^map: 'svc' is not a data map/],
  ['dnatMap on a plain set', () => tx().addRule('ip', 't', 'c', epRule(['daddr'], 'plain')), RangeError, /^map: 'plain' is not a data map/],
  ['dnatMap with the wrong key', () => tx().addRule('ip', 't', 'c', epRule(['daddr', 'l4proto', 'dport'])), RangeError, /^map: 'ep' has key ipv4_addr . inet_proto . inet_service . integer, the rule gives ipv4_addr . inet_proto . inet_service$/],
  ['dnatMap of an ip rule to IPv6 data', () => tx().addRule('ip', 't', 'c', epRule(['daddr'], 'ep6')), RangeError, /^map: 'ep6' maps to ipv6_addr . inet_service; this dnat needs ipv4_addr or ipv4_addr . inet_service/],
  ['dnatMap to address . protocol data', () => tx().addRule('ip', 't', 'c', epRule(['daddr'], 'proto-data')), RangeError, /^map: 'proto-data' maps to ipv4_addr . inet_proto/],
  ['lookup on a data map', () => tx().addRule('ip', 't', 'c', rule('ip').lookup(EP_KEY as never, 'ep').build()), RangeError, /^set: 'ep' is a map; use dnatMap\(\)/],
  ['vmap on a data map', () => tx().addRule('ip', 't', 'c', rule('ip').vmap(EP_KEY as never, 'ep').build()), RangeError, /^map: 'ep' is not a verdict map/],
  ['rule handle 0', () => tx().deleteRule('ip', 't', 'c', 0), RangeError, /^handle:/],
  ['describe out of range', () => tx().describe(5), RangeError, /^opIndex:/],
];

for (const [what, fn, type, message] of cases) {
  test(`refused: ${what}`, () => {
    assert.throws(fn, (e: unknown) => {
      assert.ok(e instanceof type, `expected ${type.name}, got ${String(e)}`);
      assert.match((e as Error).message, message);
      return true;
    });
  });
}

test('a refused op leaves the transaction as it was', () => {
  const t = tx();
  const before = Buffer.from(t.serialize());
  assert.throws(() => t.addElements('ip', 't', 'svc', [{ key: ['1.2.3.4', 'tcp', 80], verdict: { kind: 'accept' } }, { key: ['x', 'tcp', 80], verdict: { kind: 'accept' } }]));
  assert.equal(t.opCount, 1);
  assert.deepEqual(t.serialize(), before);
});

test('an inet key that fails half-way does not lose the nfproto dependency of a later match', () => {
  const b = rule('inet');
  assert.throws(() => b.dynsetUpdate(['ip saddr', { port: 70000 }], 'aff', 10), RangeError);
  const r = b.daddr('10.0.0.1').verdict({ kind: 'accept' }).build();
  assert.deepEqual(r.exprs.slice(0, 2).map((e) => e.type), ['meta', 'cmp']);
  assert.equal(r.text, 'ip daddr 10.0.0.1 accept');
});

test('a builder builds one rule', () => {
  const b = rule('ip').counter();
  b.build();
  assert.throws(() => b.counter(), /already built/);
  assert.throws(() => b.build(), /already built/);
});
