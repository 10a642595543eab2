// Bad input is refused while the transaction is built, with the argument named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rule, SetSpec, Transaction } from '../../src/native';

const SVC: SetSpec = { name: 'svc', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' };
const CIDRS: SetSpec = { name: 'cidrs', key: ['ipv4_addr'], interval: true };
const PLAIN: SetSpec = { name: 'plain', key: ['ipv4_addr'] };
const tx = () => new Transaction().addTable('ip', 't').declareSet('ip', 't', SVC).declareSet('ip', 't', CIDRS).declareSet('ip', 't', PLAIN);
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
  ['constant key part', () => rule('ip').lookup([{ port: 80 }], 'plain'), TypeError, /^parts\[0\]: constant key parts are only allowed in dynsetUpdate/],
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
  ['default timeout without timeout flag', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], defaultTimeoutSeconds: 5 }), RangeError, /^set.defaultTimeoutSeconds:/],
  ['non-verdict map', () => tx().addSet('ip', 't', { name: 's', key: ['ipv4_addr'], map: 'ipv4_addr' }), TypeError, /^set.map:/],
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
