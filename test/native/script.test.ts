// toNftScript() and describe(): the text nft -f takes and errors quote.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rule, Transaction } from '../../src/native';

test('script text for tables, chains, sets, elements and rules', () => {
  const tx = new Transaction();
  tx.addTable('ip', 'kube-proxy');
  tx.addTable('ip6', 'x', { create: true });
  tx.addChain('ip', 'kube-proxy', { name: 'nat-prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100, policy: 'accept' } });
  tx.addChain('ip', 'kube-proxy', { name: 'service-ULMVA6XW-ns1/svc1/tcp/p80' });
  tx.addChain('ip', 'kube-proxy', { name: 'ep-a' }, { create: true });
  tx.addSet('ip', 'kube-proxy', { name: 'service-ips', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' });
  tx.addSet('ip', 'kube-proxy', { name: 'aff', key: ['ipv4_addr'], timeout: true, dynamic: true, defaultTimeoutSeconds: 10800 });
  tx.addSet('ip', 'kube-proxy', { name: 'cidrs', key: ['ipv4_addr'], interval: true });
  tx.addElements('ip', 'kube-proxy', 'service-ips', [
    { key: ['10.0.0.1', 'tcp', 80], verdict: { kind: 'goto', chain: 'service-ULMVA6XW-ns1/svc1/tcp/p80' } },
    { key: ['10.0.0.2', 17, 53], verdict: { kind: 'jump', chain: 'ep-a' } },
  ]);
  tx.addElements('ip', 'kube-proxy', 'aff', [{ key: ['10.1.1.1'], timeoutSeconds: 60 }]);
  tx.addElements('ip', 'kube-proxy', 'cidrs', [{ key: ['10.0.0.0/8'] }]);
  tx.addRule('ip', 'kube-proxy', 'nat-prerouting', rule('ip').vmap(['daddr', 'l4proto', 'dport'], 'service-ips').build());
  tx.addRule('ip', 'kube-proxy', 'service-ULMVA6XW-ns1/svc1/tcp/p80', rule('ip')
    .saddr('10.0.0.0/8', true).l4proto('tcp').dport(80).ctState(['new', 'established']).markAnd(0x4000, 0x4000)
    .iifnamePrefix('veth').counter().comment('a comment').verdict({ kind: 'jump', chain: 'ep-a' }).build());
  tx.addRule('ip', 'kube-proxy', 'ep-a', rule('ip').l4proto('tcp').dnat('10.180.0.1', 8080).build());
  tx.flushChain('ip', 'kube-proxy', 'ep-a');
  tx.deleteElements('ip', 'kube-proxy', 'cidrs', [{ key: ['10.0.0.0/8'] }]);
  tx.flushSet('ip', 'kube-proxy', 'service-ips');
  tx.deleteSet('ip', 'kube-proxy', 'service-ips');
  tx.deleteRule('ip', 'kube-proxy', 'ep-a', 7);
  tx.deleteChain('ip', 'kube-proxy', 'ep-a');
  tx.flushTable('ip', 'kube-proxy');
  tx.deleteTable('ip6', 'x');
  assert.equal(tx.toNftScript(), [
    'add table ip kube-proxy',
    'create table ip6 x',
    'add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -100; policy accept; }',
    'add chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80',
    'create chain ip kube-proxy ep-a',
    'add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict; }',
    'add set ip kube-proxy aff { type ipv4_addr; flags timeout,dynamic; timeout 10800s; }',
    'add set ip kube-proxy cidrs { type ipv4_addr; flags interval; }',
    'add element ip kube-proxy service-ips { 10.0.0.1 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80, 10.0.0.2 . udp . 53 : jump ep-a }',
    'add element ip kube-proxy aff { 10.1.1.1 timeout 60s }',
    'add element ip kube-proxy cidrs { 10.0.0.0/8 }',
    'add rule ip kube-proxy nat-prerouting ip daddr . meta l4proto . th dport vmap @service-ips',
    'add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 ip saddr != 10.0.0.0/8 meta l4proto tcp th dport 80 ct state new,established meta mark & 0x4000 == 0x4000 iifname "veth*" counter jump ep-a comment "a comment"',
    'add rule ip kube-proxy ep-a meta l4proto tcp dnat to 10.180.0.1:8080',
    'flush chain ip kube-proxy ep-a',
    'delete element ip kube-proxy cidrs { 10.0.0.0/8 }',
    'flush map ip kube-proxy service-ips',
    'delete map ip kube-proxy service-ips',
    'delete rule ip kube-proxy ep-a handle 7',
    'delete chain ip kube-proxy ep-a',
    'flush table ip kube-proxy',
    'delete table ip6 x',
    '',
  ].join('\n'));
});

test('ip6 and inet rule text', () => {
  assert.equal(rule('ip6').daddr('fd00::1').l4proto('udp').dnat('fd00::2', 53).build().text,
    'ip6 daddr fd00::1 meta l4proto udp dnat to [fd00::2]:53');
  assert.equal(rule('ip6').dnat('fd00::2').build().text, 'dnat to fd00::2');
  assert.equal(rule('inet').daddr('1.2.3.4').l4proto('tcp').dnat('10.0.0.1', 80).build().text,
    'ip daddr 1.2.3.4 meta l4proto tcp dnat ip to 10.0.0.1:80');
  assert.equal(rule('inet').nfproto('ipv6').saddrInSet('s', true).reject().build().text, 'meta nfproto ipv6 ip6 saddr != @s reject');
  assert.equal(rule('ip').reject('tcp-reset').build().text, 'meta l4proto tcp reject with tcp reset');
  assert.equal(rule('ip').fibDaddrLocal(true).numgenMod(3, 1).masquerade(true).build().text,
    'fib daddr type != local numgen random mod 3 == 1 masquerade fully-random');
  assert.equal(rule('ip').dynsetUpdate(['saddr'], 'aff', 10800).markOr(0x4000).markXor(0x1).notrack().build().text,
    'update @aff { ip saddr timeout 10800s } meta mark set meta mark or 0x4000 meta mark set meta mark xor 0x1 notrack');
});

test('data maps: typeof or type declarations, key : data elements, dnat to a map', () => {
  const tx = new Transaction()
    .addSet('ip', 't', { name: 'ep', key: ['ipv4_addr', 'inet_proto', 'inet_service', 'integer'], map: ['ipv4_addr', 'inet_service'],
      typeof: 'ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport' })
    .addSet('ip6', 't', { name: 'a6', key: ['ipv6_addr'], map: 'ipv6_addr', comment: 'addresses' });
  tx.addElements('ip', 't', 'ep', [{ key: ['10.0.0.1', 6, 80, 1], data: ['10.1.0.2', 8080] }]);
  tx.addElements('ip6', 't', 'a6', [{ key: ['fd00::1'], data: ['fd00::2'] }]);
  tx.addRule('ip', 't', 'c', rule('ip').dnatMap(['daddr', 'l4proto', 'dport', { numgen: 2 }], 'ep').build());
  tx.addRule('ip6', 't', 'c', rule('ip6').dnatMap(['daddr'], 'a6').build());
  assert.equal(tx.toNftScript(), [
    'add map ip t ep { typeof ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport; }',
    'add map ip6 t a6 { type ipv6_addr : ipv6_addr; comment "addresses"; }',
    'add element ip t ep { 10.0.0.1 . tcp . 80 . 1 : 10.1.0.2 . 8080 }',
    'add element ip6 t a6 { fd00::1 : fd00::2 }',
    'add rule ip t c dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 2 map @ep',
    'add rule ip6 t c dnat ip6 to ip6 daddr map @a6',
    '',
  ].join('\n'));
  assert.equal(rule('inet').dnatMap(['ip6 daddr', 'dport'], 'm').build().text, 'dnat ip6 to ip6 daddr . th dport map @m');
});

test('describe names the op and shortens long element lists', () => {
  const tx = new Transaction().addSet('ip', 't', { name: 's', key: ['ipv4_addr'] });
  tx.addElements('ip', 't', 's', Array.from({ length: 10 }, (_, i) => ({ key: [`10.0.0.${i}`] })));
  tx.addRule('ip', 't', 'c', rule('ip').daddrInSet('s').verdict({ kind: 'drop' }).build());
  assert.equal(tx.describe(0), 'add set ip t s { type ipv4_addr; }');
  assert.equal(tx.describe(1), 'add element ip t s { 10.0.0.0, 10.0.0.1, 10.0.0.2, ... } (10 elements)');
  assert.equal(tx.describe(2), 'add rule ip t c ip daddr @s drop');
  assert.equal(tx.opCount, 3);
});

test('long element lists are split over several script lines', () => {
  const tx = new Transaction().addSet('ip', 't', { name: 's', key: ['inet_service'] });
  tx.addElements('ip', 't', 's', Array.from({ length: 2500 }, (_, i) => ({ key: [i] })));
  const lines = tx.toNftScript().trim().split('\n');
  assert.equal(lines.length, 4);
  assert.match(lines[3], /^add element ip t s \{ 2000, 2001, .* 2499 \}$/);
});
