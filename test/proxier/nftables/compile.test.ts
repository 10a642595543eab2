// The ruleset compiler against expected nft text, one case per feature.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileBase, setNamesOf } from '../../../src/proxier/nftables/compile-base';
import { compileService } from '../../../src/proxier/nftables/compile-service';
import { SELECT_RULES_MAX, hashAndTruncate, serviceChainNames } from '../../../src/proxier/nftables/names';
import { renderDesiredScript } from '../../../src/proxier/nftables/render-script';
import { ctx, ep, selected, sp } from './fixtures';
import { contextKey, type ContextInputs } from '../../../src/proxier/nftables/context';
import type { Endpoint, ServicePort } from '../../../src/core/types';

function script(s: ServicePort, eps: Endpoint[], over: Partial<ContextInputs> = {}, family: 'ip' | 'ip6' = 'ip'): string {
  const c = ctx(over, family);
  const objs = [compileService(s, selected(eps), c)];
  return renderDesiredScript(compileBase(c, setNamesOf(objs)), objs);
}

function has(text: string, line: string): void {
  assert.ok(text.split('\n').includes(line), `missing line:\n  ${line}\nin:\n${text}`);
}
function lacks(text: string, fragment: string): void {
  assert.ok(!text.includes(fragment), `unexpected ${fragment} in:\n${text}`);
}

const svc = serviceChainNames(sp('svc1'));

test('chain names match upstream (hash of ns/name/proto/port)', () => {
  assert.equal(svc.cluster, 'service-ULMVA6XW-ns1/svc1/tcp/p80');
  assert.ok(hashAndTruncate('x'.repeat(400)).endsWith('...'));
  assert.equal(hashAndTruncate('x'.repeat(400)).length, 240);
});

test('base chains, hooks and the shared dispatch maps', () => {
  const t = renderDesiredScript(compileBase(ctx()), []);
  has(t, 'add chain ip kube-proxy filter-prerouting { type filter hook prerouting priority -110; }');
  lacks(t, 'filter-output-post-dnat');
  has(t, 'add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -100; }');
  has(t, 'add chain ip kube-proxy nat-postrouting { type nat hook postrouting priority 100; }');
  const rulesOf = (chain: string) => t.split('\n').filter((l) => l.startsWith(`add rule ip kube-proxy ${chain} `)).map((l) => l.slice(`add rule ip kube-proxy ${chain} `.length));
  // The filter hooks hold the firewall (before DNAT), the checks for a flow no Service took that
  // conntrack confirmed already, and the INVALID drop; no input hook at all.
  // (What arrives on lo was sent here: the output hook checked it.)
  assert.deepEqual(rulesOf('filter-output'), ['ct state != new return', 'jump firewall-check', 'ct status & (confirmed | dnat) == confirmed jump no-service-checks']);
  assert.deepEqual(rulesOf('filter-prerouting'),
    ['ct state != new return', 'jump firewall-check', 'ct status & (confirmed | dnat) == confirmed iifname != "lo" jump no-service-checks']);
  assert.deepEqual(rulesOf('filter-forward'), ['ct state invalid drop']);
  lacks(t, 'filter-input');
  // The nat hooks: the dispatch, then (a DNAT ends the hook) the checks for connections no Service took.
  for (const chain of ['nat-prerouting', 'nat-output']) assert.deepEqual(rulesOf(chain), ['jump services', 'jump no-service-checks']);
  assert.deepEqual(rulesOf('no-service-checks'), ['jump service-endpoints-check', 'jump nodeport-endpoints-check', 'jump cluster-ips-check']);
  // The order a connection meets them in: ClusterIPs first, then one union set per rarer kind; a
  // NodePort asks the FIB in one rule only.
  assert.deepEqual(rulesOf('services'), [
    'ip daddr . meta l4proto . th dport @cluster-ip-ports goto cluster-ip-traffic',
    'ip daddr . meta l4proto . th dport @other-service-ports goto other-services',
    'meta l4proto . th dport @all-nodeports ip daddr != 127.0.0.0/8 fib daddr type local goto nodeport-services',
  ]);
  assert.deepEqual(rulesOf('other-services'), [
    'ip daddr . meta l4proto . th dport @external-ports goto external-traffic',
    'ip daddr . meta l4proto . th dport @external-local-ports goto external-local-traffic',
  ]);
  assert.deepEqual(rulesOf('nodeport-services'), [
    'meta l4proto . th dport @nodeports goto nodeport-traffic',
    'meta l4proto . th dport @nodeports-local goto nodeport-local-traffic',
  ]);
  assert.deepEqual(rulesOf('service-endpoints-check'), [
    'ip daddr . meta l4proto . th dport != @no-endpoint-services return',
    'ip daddr . meta l4proto . th dport @no-local-endpoint-services drop',
    'goto reject-chain',
  ]);
  assert.deepEqual(rulesOf('nodeport-endpoints-check'), [
    'meta l4proto . th dport != @no-endpoint-nodeports return',
    'ip daddr 127.0.0.0/8 return',
    'fib daddr type != local return',
    'meta l4proto . th dport @no-local-endpoint-nodeports drop',
    'goto reject-chain',
  ]);
  has(t, 'add rule ip kube-proxy nat-postrouting ct status dnat meta mark & 0x4000 == 0x0 ip saddr . ip daddr @hairpin jump mark-for-masquerade comment "hairpin: an endpoint reached itself through a Service"');
  has(t, 'add rule ip kube-proxy cluster-ip-traffic ip saddr != 10.0.0.0/16 jump mark-for-masquerade');
  has(t, 'add rule ip kube-proxy cluster-ip-traffic goto select-endpoint');
  has(t, 'add rule ip kube-proxy external-traffic jump mark-for-masquerade');
  has(t, 'add rule ip kube-proxy external-local-traffic ip saddr 10.0.0.0/16 jump select-endpoint comment "short-circuit pod traffic"');
  has(t, 'add rule ip kube-proxy external-local-traffic fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"');
  has(t, 'add rule ip kube-proxy external-local-traffic goto select-local-endpoint');
  has(t, 'add rule ip kube-proxy nodeport-local-traffic goto select-nodeport-local-endpoint');
  has(t, 'add chain ip kube-proxy select-endpoint');
  // No endpoint count in use: the select chains are empty, and no verdict map serves endpoint counts.
  has(t, 'add chain ip kube-proxy select-nodeport-local-endpoint');
  assert.equal(t.split('\n').filter((l) => l.startsWith('add rule ip kube-proxy select-')).length, 0);
  lacks(t, 'endpoint-chains');
  lacks(t, 'over-4-bit');
  lacks(t, 'add map ip kube-proxy endpoints-');
  has(t, 'add rule ip kube-proxy mark-for-masquerade meta mark set meta mark or 0x4000');
  has(t, 'add rule ip kube-proxy masquerading meta mark & 0x4000 == 0x0 return');
  has(t, 'add rule ip kube-proxy masquerading meta mark set meta mark xor 0x4000');
  has(t, 'add rule ip kube-proxy masquerading masquerade fully-random');
  has(t, 'add rule ip kube-proxy cluster-ips-check ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"');
  has(t, 'add set ip kube-proxy firewall-ips { type ipv4_addr . inet_proto . inet_service; comment "destinations that are subject to LoadBalancerSourceRanges"; }');
  has(t, 'add set ip kube-proxy firewall-allow { type ipv4_addr . inet_proto . inet_service . ipv4_addr; flags interval; comment "destination . source range that LoadBalancerSourceRanges allow"; }');
  has(t, 'add rule ip kube-proxy firewall-check ip daddr . meta l4proto . th dport @firewall-ips ip daddr . meta l4proto . th dport . ip saddr != @firewall-allow drop');
  lacks(t, 'add map ip kube-proxy firewall-ips');
  has(t, 'add set ip kube-proxy hairpin { type ipv4_addr . ipv4_addr; comment "endpoint IP . endpoint IP: traffic an endpoint sent to itself"; }');
  // No Service has affinity: no records, no pairs, no lookup of them, nothing in nat postrouting.
  lacks(t, 'affinity');
  lacks(t, 'record-affinity');
  lacks(t, 'nodeport-ips');
});

test('ClusterIP: elements only, one endpoint map per endpoint count, a select rule per map', () => {
  const t = script(sp('svc1'), [ep('10.180.0.2'), ep('10.180.0.1')]);
  has(t, 'add element ip kube-proxy cluster-ip-ports { 172.30.0.41 . tcp . 80 }');
  has(t, 'add element ip kube-proxy cluster-ips { 172.30.0.41 }');
  has(t, 'add map ip kube-proxy endpoints-2 { typeof ip daddr . meta l4proto . th dport . numgen random mod 2 : ip daddr . th dport; }');
  has(t, 'add element ip kube-proxy endpoints-2 { 172.30.0.41 . tcp . 80 . 0 : 10.180.0.1 . 80 }');
  has(t, 'add element ip kube-proxy endpoints-2 { 172.30.0.41 . tcp . 80 . 1 : 10.180.0.2 . 80 }');
  has(t, 'add rule ip kube-proxy select-endpoint dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 2 map @endpoints-2');
  has(t, 'add element ip kube-proxy hairpin { 10.180.0.1 . 10.180.0.1 }');
  lacks(t, 'ns1/svc1');
  lacks(t, 'add element ip kube-proxy service-ips');
  lacks(t, 'vmap {');
});

test('endpoint maps follow the counts in use, fewest endpoints first, after the tests of larger counts', () => {
  const c = ctx();
  const objs = [
    compileService(sp('a', { clusterIP: '172.30.0.1' }), selected([ep('10.1.0.1'), ep('10.1.0.2'), ep('10.1.0.3')]), c),
    compileService(sp('b', { clusterIP: '172.30.0.2' }), selected([ep('10.1.0.4')]), c),
    compileService(sp('c', { clusterIP: '172.30.0.3' }), selected([ep('10.1.0.5')]), c),
  ];
  const t = renderDesiredScript(compileBase(c, setNamesOf(objs)), objs);
  const select = t.split('\n').filter((l) => l.startsWith('add rule ip kube-proxy select-endpoint '));
  assert.deepEqual(select.map((l) => l.split('@')[1]), ['endpoints-1', 'endpoints-3']);
  const base = compileBase(c, ['endpoints-7', 'cluster-ips', 'nodeport-local-endpoints-2']);
  // 7 - 4 = 0b11: the sets of bits 0 and 1 come with the map of 7.
  assert.deepEqual(base.sets.filter((s) => /endpoints-/.test(s.name)).map((s) => s.name),
    ['nodeport-local-endpoints-2', 'endpoints-7', 'endpoints-over-4-bit-0', 'endpoints-over-4-bit-1']);
});

test('more than SELECT_RULES_MAX endpoints: plain-set tests of count - 4 lead to the count\'s rule, no verdict map', () => {
  assert.equal(SELECT_RULES_MAX, 4);
  const c = ctx();
  const eps = (n: number, third: number) => Array.from({ length: n }, (_, i) => ep(`10.${third}.0.${i + 1}`));
  const objs = [1, 2, 3, 4, 5, 6, 9].map((n) => compileService(sp(`s${n}`, { clusterIP: `172.30.0.${n}`, nodePort: 30000 + n }), selected(eps(n, n)), c));
  const t = renderDesiredScript(compileBase(c, setNamesOf(objs)), objs);
  const rules = (chain: string) => t.split('\n').filter((l) => l.startsWith(`add rule ip kube-proxy ${chain} `)).map((l) => l.slice(`add rule ip kube-proxy ${chain} `.length));
  // Codes 0 (the rules of 1..4), 1, 2 and 5 (0b101): bit 2 tells 5 from the rest, then bit 1, then bit 0.
  const test = (bit: number, to: string) => `ip daddr . meta l4proto . th dport @endpoints-over-4-bit-${bit} goto ${to}`;
  assert.deepEqual(rules('select-endpoint'), [test(2, 'select-endpoint-9'), test(1, 'select-endpoint-6'), test(0, 'select-endpoint-5')]
    .concat([1, 2, 3, 4].map((n) => `dnat ip to ip daddr . meta l4proto . th dport . numgen random mod ${n} map @endpoints-${n}`)));
  assert.deepEqual(rules('select-endpoint-5'), ['dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 5 map @endpoints-5']);
  assert.deepEqual(rules('select-endpoint-9'), ['dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 9 map @endpoints-9']);
  assert.deepEqual(rules('select-nodeport-endpoint-6'), ['dnat ip to meta l4proto . th dport . numgen random mod 6 map @nodeport-endpoints-6']);
  assert.equal(rules('select-nodeport-endpoint').length, 7);
  has(t, 'add chain ip kube-proxy select-endpoint-6');
  lacks(t, 'select-endpoint-4');
  lacks(t, 'select-endpoint-1');
  lacks(t, 'endpoint-chains');
  assert.deepEqual(t.split('\n').filter((l) => / select-\S* .*vmap/.test(l)), []);
  // A destination is in the set of each bit of its count - 4; its slots stay in the count's map.
  has(t, 'add element ip kube-proxy endpoints-over-4-bit-0 { 172.30.0.5 . tcp . 80 }');
  has(t, 'add element ip kube-proxy endpoints-over-4-bit-1 { 172.30.0.6 . tcp . 80 }');
  has(t, 'add element ip kube-proxy endpoints-over-4-bit-0 { 172.30.0.9 . tcp . 80 }');
  has(t, 'add element ip kube-proxy endpoints-over-4-bit-2 { 172.30.0.9 . tcp . 80 }');
  has(t, 'add element ip kube-proxy nodeport-endpoints-over-4-bit-1 { tcp . 30006 }');
  has(t, 'add element ip kube-proxy endpoints-9 { 172.30.0.9 . tcp . 80 . 8 : 10.9.0.9 . 80 }');
  has(t, 'add set ip kube-proxy endpoints-over-4-bit-2 { type ipv4_addr . inet_proto . inet_service; comment "destinations with more than 4 endpoints whose count - 4 has bit 2 set"; }');
  lacks(t, 'over-4-bit-0 { 172.30.0.4 ');
  assert.equal(t.split('\n').filter((l) => /^add element ip kube-proxy endpoints-over-4-bit-\d /.test(l)).length, 4);
});

test('counts whose codes share higher bits: a range chain tests the lower bit, then goes to the zero side\'s own chain', () => {
  const c = ctx();
  const eps = (n: number, third: number) => Array.from({ length: n }, (_, i) => ep(`10.${third}.0.${i + 1}`));
  const objs = [2, 5, 6, 7, 8, 12].map((n) => compileService(sp(`s${n}`, { clusterIP: `172.30.0.${n}` }), selected(eps(n, n)), c));
  const t = renderDesiredScript(compileBase(c, setNamesOf(objs)), objs);
  const rules = (chain: string) => t.split('\n').filter((l) => l.startsWith(`add rule ip kube-proxy ${chain} `)).map((l) => l.slice(`add rule ip kube-proxy ${chain} `.length));
  const test = (bit: number, to: string) => `ip daddr . meta l4proto . th dport @endpoints-over-4-bit-${bit} goto ${to}`;
  const pick = (n: number) => `dnat ip to ip daddr . meta l4proto . th dport . numgen random mod ${n} map @endpoints-${n}`;
  // Codes 0, 1, 2, 3, 4, 8: 6 and 7 (0b10, 0b11) share bit 1 and part at bit 0 in their own chain.
  assert.deepEqual(rules('select-endpoint'), [test(3, 'select-endpoint-12'), test(2, 'select-endpoint-8'), test(1, 'select-endpoint-6-7'), test(0, 'select-endpoint-5'), pick(2)]);
  // 6's rule stays in its own chain (a map looked up from a new chain is walked whole by the kernel).
  assert.deepEqual(rules('select-endpoint-6-7'), [test(0, 'select-endpoint-7'), 'goto select-endpoint-6']);
  assert.deepEqual(rules('select-endpoint-6'), [pick(6)]);
  assert.deepEqual(rules('select-endpoint-7'), [pick(7)]);
});

test('a count new to the cluster never moves another count\'s rule to another chain (every pair of count sets up to 24)', () => {
  const c = ctx();
  const eps = (n: number) => Array.from({ length: n }, (_, i) => ep(`10.${n}.0.${i + 1}`));
  const compiled = new Map([...Array(24).keys()].map((i) => {
    const n = i + 1;
    return [n, compileService(sp(`s${n}`, { clusterIP: `172.30.0.${n}` }), selected(eps(n)), c)] as const;
  }));
  const chainsOf = (counts: number[]): Map<number, string> => {
    const t = renderDesiredScript(compileBase(c, setNamesOf(counts.map((n) => compiled.get(n)!))), []);
    const out = new Map<number, string>();
    for (const m of t.matchAll(/^add rule ip kube-proxy (\S+) dnat .* mod (\d+) map @endpoints-\d+$/gm)) out.set(Number(m[2]), m[1]);
    return out;
  };
  // Every set of counts from 5..16 in use (the larger ones, where the tree has branches), one count added.
  for (let mask = 0; mask < 1 << 12; mask += 7) {
    const counts = [...Array(12).keys()].filter((b) => mask & (1 << b)).map((b) => b + 5);
    const before = chainsOf(counts);
    for (const added of [5, 9, 13, 17, 24].filter((n) => !counts.includes(n))) {
      const after = chainsOf([...counts, added]);
      for (const [n, chain] of before) assert.equal(after.get(n), chain, `counts ${counts} + ${added}: ${n}'s rule moved`);
    }
  }
});

test('more than SELECT_RULES_MAX endpoints, Local policy and IPv6: the local families have their own count-bit sets and chains', () => {
  const c = ctx({}, 'ip6');
  const local = Array.from({ length: 5 }, (_, i) => ep(`fd00::1:${i + 1}`, 80, { isLocal: true }));
  const s = sp('svc6', { family: 'IPv6', clusterIP: 'fd00::30', externalIPs: ['fd00::99'], nodePort: 30100, externalPolicyLocal: true });
  const objs = [compileService(s, selected(local), c)];
  const t = renderDesiredScript(compileBase(c, setNamesOf(objs)), objs);
  has(t, 'add element ip6 kube-proxy local-endpoints-over-4-bit-0 { fd00::99 . tcp . 80 }');
  has(t, 'add element ip6 kube-proxy nodeport-local-endpoints-over-4-bit-0 { tcp . 30100 }');
  has(t, 'add element ip6 kube-proxy endpoints-over-4-bit-0 { fd00::30 . tcp . 80 }');
  has(t, 'add rule ip6 kube-proxy select-local-endpoint-5 dnat ip6 to ip6 daddr . meta l4proto . th dport . numgen random mod 5 map @local-endpoints-5');
  has(t, 'add rule ip6 kube-proxy select-local-endpoint ip6 daddr . meta l4proto . th dport @local-endpoints-over-4-bit-0 goto select-local-endpoint-5');
});

test('NodePort, Cluster policy: nodeports set and nodeport endpoint map; the chain masquerades', () => {
  const t = script(sp('svc1', { nodePort: 30080 }), [ep('10.180.0.1')]);
  has(t, 'add element ip kube-proxy nodeports { tcp . 30080 }');
  has(t, 'add map ip kube-proxy nodeport-endpoints-1 { typeof meta l4proto . th dport . numgen random mod 1 : ip daddr . th dport; }');
  has(t, 'add element ip kube-proxy nodeport-endpoints-1 { tcp . 30080 . 0 : 10.180.0.1 . 80 }');
  has(t, 'add rule ip kube-proxy select-nodeport-endpoint dnat ip to meta l4proto . th dport . numgen random mod 1 map @nodeport-endpoints-1');
  has(t, 'add rule ip kube-proxy nodeport-traffic jump mark-for-masquerade');
  has(t, 'add rule ip kube-proxy nodeport-traffic goto select-nodeport-endpoint');
});

test('nodePortAddresses: CIDRs and primary go into the nodeport-ips interval set', () => {
  const t = script(sp('svc1', { nodePort: 30080 }), [ep('10.180.0.1')], { nodePortAddresses: ['192.168.0.0/24', 'primary', 'fd00::/64'], nodeIPs: ['192.168.0.2', '192.168.1.2'] });
  has(t, 'add set ip kube-proxy nodeport-ips { type ipv4_addr; flags interval; comment "IPs that accept NodePort traffic"; }');
  has(t, 'add element ip kube-proxy nodeport-ips { 192.168.0.0/24 }');
  has(t, 'add element ip kube-proxy nodeport-ips { 192.168.1.2/32 }');
  lacks(t, '192.168.0.2/32'); // inside 192.168.0.0/24: an interval set refuses overlaps
  has(t, 'add rule ip kube-proxy services meta l4proto . th dport @all-nodeports ip daddr != 127.0.0.0/8 ip daddr @nodeport-ips fib daddr type local goto nodeport-services');
  has(t, 'add rule ip kube-proxy nodeport-endpoints-check ip daddr 127.0.0.0/8 return');
  has(t, 'add rule ip kube-proxy nodeport-endpoints-check ip daddr != @nodeport-ips return');
  has(t, 'add element ip kube-proxy all-nodeports { tcp . 30080 }');
  lacks(t, 'fd00::');
});

test('externalIP, Cluster policy: external-ports and the cluster endpoint map under the external address', () => {
  const t = script(sp('svc1', { externalIPs: ['192.168.99.11'] }), [ep('10.180.0.1')]);
  has(t, 'add element ip kube-proxy external-ports { 192.168.99.11 . tcp . 80 }');
  has(t, 'add element ip kube-proxy other-service-ports { 192.168.99.11 . tcp . 80 }');
  has(t, 'add element ip kube-proxy endpoints-1 { 192.168.99.11 . tcp . 80 . 0 : 10.180.0.1 . 80 }');
  lacks(t, 'add element ip kube-proxy no-endpoint-services');
});

test('LoadBalancer IP with source ranges: firewall-ips and firewall-allow elements, no chain; node IP in range allows the LB IP', () => {
  const s = sp('svc1', { loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['192.168.0.0/24', '203.0.113.7/32', 'fd00::/8'] });
  const t = script(s, [ep('10.180.0.1')]);
  has(t, 'add element ip kube-proxy external-ports { 5.6.7.8 . tcp . 80 }');
  has(t, 'add element ip kube-proxy firewall-ips { 5.6.7.8 . tcp . 80 }');
  const allow = (src: string) => `add element ip kube-proxy firewall-allow { 5.6.7.8 . tcp . 80 . ${src} }`;
  has(t, allow('192.168.0.0/24'));
  has(t, allow('203.0.113.7/32'));
  has(t, allow('5.6.7.8'));
  assert.equal(t.split('\n').filter((l) => l.startsWith('add element ip kube-proxy firewall-allow')).length, 3);
  lacks(t, 'firewall-DK');
  assert.deepEqual(t.split('\n').filter((l) => l.startsWith('add chain ip kube-proxy firewall-')), ['add chain ip kube-proxy firewall-check']);
  lacks(t, 'goto firewall');
  const noNode = script({ ...s, loadBalancerSourceRanges: ['203.0.113.0/24'] }, [ep('10.180.0.1')]);
  lacks(noNode, allow('5.6.7.8'));
  has(noNode, allow('203.0.113.0/24'));
  lacks(script({ ...s, loadBalancerSourceRanges: [] }, [ep('10.180.0.1')]), 'add element ip kube-proxy firewall-');
});

test('source ranges: host bits cleared, nested and repeated ranges folded into the outer one (an interval set refuses overlaps), every LB IP', () => {
  const s = sp('svc1', { loadBalancerIPs: ['5.6.7.8', '5.6.7.9', 'fd00::9'],
    loadBalancerSourceRanges: ['10.1.2.3/16', '10.0.0.0/8', '10.0.0.0/8', '203.0.113.0/24', '203.0.113.128/25'] });
  const t = script(s, [ep('10.180.0.1')]);
  const lines = t.split('\n').filter((l) => l.startsWith('add element ip kube-proxy firewall-allow'));
  assert.deepEqual(lines.map((l) => l.replace('add element ip kube-proxy firewall-allow ', '')), [
    '{ 5.6.7.8 . tcp . 80 . 10.0.0.0/8 }', '{ 5.6.7.8 . tcp . 80 . 203.0.113.0/24 }',
    '{ 5.6.7.9 . tcp . 80 . 10.0.0.0/8 }', '{ 5.6.7.9 . tcp . 80 . 203.0.113.0/24 }',
  ]);
  has(t, 'add element ip kube-proxy firewall-ips { 5.6.7.9 . tcp . 80 }');
  lacks(t, 'fd00::9');
});

test('source ranges of IPv6: the ip6 table gets its own elements, the LB IP allowed when a range holds a node IP', () => {
  const s = sp('svc1', { clusterIP: 'fd00:30::41', loadBalancerIPs: ['2001:db8::7', '5.6.7.8'],
    loadBalancerSourceRanges: ['2001:db8:1::/48', '2001:db8:1:2::/64', 'fd00:1::/32', '203.0.113.0/24'] });
  const t = script(s, [ep('fd00:10::1')], { nodeIPs: ['fd00:1::2'] }, 'ip6');
  has(t, 'add set ip6 kube-proxy firewall-allow { type ipv6_addr . inet_proto . inet_service . ipv6_addr; flags interval; comment "destination . source range that LoadBalancerSourceRanges allow"; }');
  has(t, 'add rule ip6 kube-proxy firewall-check ip6 daddr . meta l4proto . th dport @firewall-ips ip6 daddr . meta l4proto . th dport . ip6 saddr != @firewall-allow drop');
  has(t, 'add element ip6 kube-proxy firewall-ips { 2001:db8::7 . tcp . 80 }');
  const lines = t.split('\n').filter((l) => l.startsWith('add element ip6 kube-proxy firewall-allow'));
  assert.deepEqual(lines.map((l) => l.replace('add element ip6 kube-proxy firewall-allow ', '')), [
    '{ 2001:db8::7 . tcp . 80 . 2001:db8:1::/48 }', '{ 2001:db8::7 . tcp . 80 . 2001:db8::7 }', '{ 2001:db8::7 . tcp . 80 . fd00:1::/32 }',
  ]);
  lacks(t, '5.6.7.8');
});

test('session affinity: the shared path, a record looked up first, the pick recorded after the DNAT; no chain of its own', () => {
  const t = script(sp('svc1', { affinityTimeoutSeconds: 10800, nodePort: 30080 }), [ep('10.180.0.1'), ep('10.180.0.2')]);
  const rulesOf = (chain: string) => t.split('\n').filter((l) => l.startsWith(`add rule ip kube-proxy ${chain} `)).map((l) => l.slice(`add rule ip kube-proxy ${chain} `.length));
  // Served as any ClusterIP and NodePort: dispatch sets and endpoint maps.
  has(t, 'add element ip kube-proxy cluster-ip-ports { 172.30.0.41 . tcp . 80 }');
  has(t, 'add element ip kube-proxy endpoints-2 { 172.30.0.41 . tcp . 80 . 0 : 10.180.0.1 . 80 }');
  has(t, 'add element ip kube-proxy nodeports { tcp . 30080 }');
  assert.deepEqual(t.split('\n').filter((l) => /^add chain ip kube-proxy (service|external|local)-[A-Z2-7]{8}-/.test(l)), []);
  lacks(t, 'vmap @service-');
  // The destination . endpoint pairs a record may name, in the set of the Service's timeout.
  has(t, 'add element ip kube-proxy affinity-endpoints-10800 { 172.30.0.41 . tcp . 80 . 10.180.0.1 . 80 }');
  has(t, 'add element ip kube-proxy affinity-endpoints-10800 { 172.30.0.41 . tcp . 80 . 10.180.0.2 . 80 }');
  has(t, 'add element ip kube-proxy affinity-nodeport-endpoints-10800 { tcp . 30080 . 10.180.0.2 . 80 }');
  has(t, 'add map ip kube-proxy affinity-records { type ipv4_addr . ipv4_addr . inet_proto . inet_service : ipv4_addr . inet_service; flags timeout,dynamic; size 262144; comment "ClientIP session affinity: client . destination -> the endpoint it was sent to"; }');
  // A record first; without one the count's rule picks.
  assert.deepEqual(rulesOf('select-endpoint'), [
    'dnat ip to ip saddr . ip daddr . meta l4proto . th dport map @affinity-records comment "session affinity"',
    'dnat ip to ip daddr . meta l4proto . th dport . numgen random mod 2 map @endpoints-2',
  ]);
  assert.equal(rulesOf('select-nodeport-endpoint')[0], 'dnat ip to ip saddr . meta l4proto . th dport map @affinity-nodeport-records comment "session affinity"');
  // After the DNAT: a connection to one of the pairs records it, with the pair set's timeout.
  assert.equal(rulesOf('nat-postrouting')[0], 'ct status dnat jump record-affinity comment "session affinity: what a connection was sent to"');
  const record = rulesOf('record-affinity');
  assert.equal(record.length, 6, record.join('\n'));
  assert.equal(record[0], 'meta l4proto tcp ct original ip daddr . meta l4proto . ct original proto-dst . ct reply ip saddr . ct reply proto-src @affinity-endpoints-10800 ' +
    'update @affinity-records { ip saddr . ct original ip daddr . meta l4proto . ct original proto-dst timeout 10800s : ct reply ip saddr . ct reply proto-src }');
  assert.equal(record[3], 'meta l4proto tcp meta l4proto . ct original proto-dst . ct reply ip saddr . ct reply proto-src @affinity-nodeport-endpoints-10800 ' +
    'update @affinity-nodeport-records { ip saddr . meta l4proto . ct original proto-dst timeout 10800s : ct reply ip saddr . ct reply proto-src }');
  has(t, 'add element ip kube-proxy hairpin { 10.180.0.1 . 10.180.0.1 }');
});

test('session affinity: one pair set and one record rule per timeout in use; none for a Service without endpoints', () => {
  const c = ctx();
  const objs = [
    compileService(sp('a', { clusterIP: '172.30.0.41', affinityTimeoutSeconds: 60 }), selected([ep('10.180.0.1')]), c),
    compileService(sp('b', { clusterIP: '172.30.0.42', affinityTimeoutSeconds: 600 }), selected([ep('10.180.0.2')]), c),
    compileService(sp('c', { clusterIP: '172.30.0.43', affinityTimeoutSeconds: 900 }), selected([]), c),
  ];
  const t = renderDesiredScript(compileBase(c, setNamesOf(objs)), objs);
  has(t, 'add element ip kube-proxy affinity-endpoints-60 { 172.30.0.41 . tcp . 80 . 10.180.0.1 . 80 }');
  has(t, 'add element ip kube-proxy affinity-endpoints-600 { 172.30.0.42 . tcp . 80 . 10.180.0.2 . 80 }');
  lacks(t, 'affinity-endpoints-900');
  lacks(t, 'affinity-nodeport');
  const timeouts = t.split('\n').filter((l) => l.startsWith('add rule ip kube-proxy record-affinity')).map((l) => /timeout (\d+)s/.exec(l)![1]);
  assert.deepEqual(timeouts, ['60', '60', '60', '600', '600', '600']);
});

test('no endpoints: reject for every address of the Service, nothing to dispatch', () => {
  const s = sp('svc1', { nodePort: 30080, externalIPs: ['192.168.99.11'], loadBalancerIPs: ['5.6.7.8'] });
  const t = script(s, []);
  has(t, 'add element ip kube-proxy no-endpoint-services { 172.30.0.41 . tcp . 80 }');
  has(t, 'add element ip kube-proxy no-endpoint-services { 192.168.99.11 . tcp . 80 }');
  has(t, 'add element ip kube-proxy no-endpoint-services { 5.6.7.8 . tcp . 80 }');
  has(t, 'add element ip kube-proxy no-endpoint-nodeports { tcp . 30080 }');
  has(t, 'add element ip kube-proxy cluster-ips { 172.30.0.41 }');
  for (const set of ['service-ips', 'cluster-ip-ports', 'external-ports', 'nodeports']) lacks(t, `add element ip kube-proxy ${set} `);
  lacks(t, 'ns1/svc1');
});

test('Local external policy: local endpoints for outside clients, every endpoint for pods and the node', () => {
  const s = sp('svc1', { nodePort: 30080, loadBalancerIPs: ['5.6.7.8'], externalPolicyLocal: true });
  const t = script(s, [ep('10.180.0.1', 80, { isLocal: true }), ep('10.180.0.2')]);
  has(t, 'add element ip kube-proxy external-local-ports { 5.6.7.8 . tcp . 80 }');
  has(t, 'add element ip kube-proxy endpoints-2 { 5.6.7.8 . tcp . 80 . 1 : 10.180.0.2 . 80 }');
  has(t, 'add element ip kube-proxy local-endpoints-1 { 5.6.7.8 . tcp . 80 . 0 : 10.180.0.1 . 80 }');
  has(t, 'add element ip kube-proxy nodeports-local { tcp . 30080 }');
  has(t, 'add element ip kube-proxy nodeport-endpoints-2 { tcp . 30080 . 1 : 10.180.0.2 . 80 }');
  has(t, 'add element ip kube-proxy nodeport-local-endpoints-1 { tcp . 30080 . 0 : 10.180.0.1 . 80 }');
  has(t, 'add element ip kube-proxy endpoints-2 { 172.30.0.41 . tcp . 80 . 0 : 10.180.0.1 . 80 }');
  lacks(t, 'add element ip kube-proxy external-ports ');
  lacks(t, 'add element ip kube-proxy nodeports {');
});

test('Local external policy without local endpoints: external traffic dropped, internal still served', () => {
  const s = sp('svc1', { nodePort: 30080, loadBalancerIPs: ['5.6.7.8'], externalPolicyLocal: true });
  const t = script(s, [ep('10.180.0.2')]);
  has(t, 'add element ip kube-proxy no-local-endpoint-nodeports { tcp . 30080 }');
  has(t, 'add element ip kube-proxy no-local-endpoint-services { 5.6.7.8 . tcp . 80 }');
  // Their twins in the sets of every destination without a usable endpoint (one lookup for the others).
  has(t, 'add element ip kube-proxy no-endpoint-nodeports { tcp . 30080 }');
  has(t, 'add element ip kube-proxy no-endpoint-services { 5.6.7.8 . tcp . 80 }');
  has(t, 'add element ip kube-proxy cluster-ip-ports { 172.30.0.41 . tcp . 80 }');
  lacks(t, 'local-endpoints-');
});

test('Local internal policy: ClusterIP served by local endpoints only, or dropped without them', () => {
  const t = script(sp('svc1', { internalPolicyLocal: true }), [ep('10.180.0.2')]);
  has(t, 'add element ip kube-proxy no-local-endpoint-services { 172.30.0.41 . tcp . 80 }');
  lacks(t, 'add element ip kube-proxy cluster-ip-ports');
  const withLocal = script(sp('svc1', { internalPolicyLocal: true }), [ep('10.180.0.1', 80, { isLocal: true }), ep('10.180.0.2')]);
  has(withLocal, 'add element ip kube-proxy endpoints-1 { 172.30.0.41 . tcp . 80 . 0 : 10.180.0.1 . 80 }');
  lacks(withLocal, '10.180.0.2 . 80 }');
});

test('its own ClusterIP listed as an external or LB IP is served as the ClusterIP only: one key, one path', () => {
  // Internal policy Local, 1 local endpoint of 3: the external path would have put all 3 under the same key.
  const eps = [ep('10.180.0.1', 80, { isLocal: true }), ep('10.180.0.2'), ep('10.180.0.3')];
  const own = { externalIPs: ['172.30.0.41'], loadBalancerIPs: ['172.30.0.41'], internalPolicyLocal: true };
  const t = script(sp('svc1', own), eps);
  has(t, 'add element ip kube-proxy cluster-ip-ports { 172.30.0.41 . tcp . 80 }');
  has(t, 'add element ip kube-proxy endpoints-1 { 172.30.0.41 . tcp . 80 . 0 : 10.180.0.1 . 80 }');
  lacks(t, 'endpoints-3');
  lacks(t, 'add element ip kube-proxy external-ports');
  // Session affinity: the key's pairs are the internal policy's endpoints only.
  const a = script(sp('svc1', { ...own, affinityTimeoutSeconds: 60 }), eps);
  has(a, 'add element ip kube-proxy affinity-endpoints-60 { 172.30.0.41 . tcp . 80 . 10.180.0.1 . 80 }');
  lacks(a, '172.30.0.41 . tcp . 80 . 10.180.0.2 . 80');
  // Without a local endpoint the ClusterIP is dropped, not served by the external path's endpoints.
  const none = script(sp('svc1', own), [ep('10.180.0.2')]);
  has(none, 'add element ip kube-proxy no-local-endpoint-services { 172.30.0.41 . tcp . 80 }');
  lacks(none, 'endpoints-1');
  // Another external address of the same Service keeps its external path.
  const other = script(sp('svc1', { ...own, externalIPs: ['172.30.0.41', '192.168.99.11'] }), eps);
  has(other, 'add element ip kube-proxy external-ports { 192.168.99.11 . tcp . 80 }');
  has(other, 'add element ip kube-proxy endpoints-3 { 192.168.99.11 . tcp . 80 . 2 : 10.180.0.3 . 80 }');
});

test('masqueradeAll masquerades all ClusterIP traffic; a custom masqueradeBit changes the mark', () => {
  const t = script(sp('svc1'), [ep('10.180.0.1')], { masqueradeAll: true, masqueradeBit: 5 });
  has(t, 'add rule ip kube-proxy cluster-ip-traffic jump mark-for-masquerade');
  has(t, 'add rule ip kube-proxy mark-for-masquerade meta mark set meta mark or 0x20');
});

test('detect-local modes', () => {
  const line = (over: Partial<ContextInputs>) => script(sp('svc1'), [ep('10.180.0.1')], over).split('\n')
    .find((l) => l.startsWith('add rule ip kube-proxy cluster-ip-traffic ') && l.includes('mark-for-masquerade'));
  assert.match(line({})!, / ip saddr != 10\.0\.0\.0\/16 jump/);
  assert.match(line({ localDetector: { mode: 'NodeCIDR', cidrs: [] } })!, / ip saddr != 10\.0\.1\.0\/24 jump/);
  assert.match(line({ localDetector: { mode: 'BridgeInterface', interface: 'cbr0' } })!, / iifname != "cbr0" jump/);
  assert.match(line({ localDetector: { mode: 'InterfaceNamePrefix', prefix: 'veth' } })!, / iifname != "veth\*" jump/);
  assert.equal(line({ localDetector: { mode: 'None' } }), undefined);
  // A CIDR mode without a CIDR of the family detects nothing in that family.
  assert.equal(line({ localDetector: { mode: 'ClusterCIDR', cidrs: ['fd00:10::/48'] } }), undefined);
});

test('IPv6: ip6 syntax in maps and rules, ::1 excluded from NodePorts', () => {
  const s = sp('svc6', { family: 'IPv6', clusterIP: 'fd00:30::41', nodePort: 30081 });
  const t = script(s, [ep('fd00:10::5', 8080)], {}, 'ip6');
  has(t, 'add element ip6 kube-proxy endpoints-1 { fd00:30::41 . tcp . 80 . 0 : fd00:10::5 . 8080 }');
  has(t, 'add map ip6 kube-proxy endpoints-1 { typeof ip6 daddr . meta l4proto . th dport . numgen random mod 1 : ip6 daddr . th dport; }');
  has(t, 'add rule ip6 kube-proxy select-endpoint dnat ip6 to ip6 daddr . meta l4proto . th dport . numgen random mod 1 map @endpoints-1');
  has(t, 'add rule ip6 kube-proxy cluster-ip-traffic ip6 saddr != fd00:10::/48 jump mark-for-masquerade');
  has(t, 'add rule ip6 kube-proxy services meta l4proto . th dport @all-nodeports ip6 daddr != ::1 fib daddr type local goto nodeport-services');
  has(t, 'add rule ip6 kube-proxy nodeport-endpoints-check ip6 daddr ::1 return');
  has(t, 'add rule ip6 kube-proxy nodeport-endpoints-check fib daddr type != local return');
  has(t, 'add element ip6 kube-proxy hairpin { fd00:10::5 . fd00:10::5 }');
  const aff = script({ ...s, affinityTimeoutSeconds: 60 }, [ep('fd00:10::5', 8080)], {}, 'ip6');
  // IPv6 affinity keeps per-Service chains (affinity-chains.ts: nft 1.0.6 cannot read back the records map's rule for IPv6).
  has(aff, `add rule ip6 kube-proxy ${serviceChainNames(s).cluster} meta l4proto tcp dnat to [fd00:10::5]:8080`);
  has(aff, `add element ip6 kube-proxy service-ips { fd00:30::41 . tcp . 80 : goto ${serviceChainNames(s).cluster} }`);
  lacks(aff, 'affinity-records');
  has(aff, 'add element ip6 kube-proxy hairpin { fd00:10::5 . fd00:10::5 }');
});

test('serviceCIDRs: drop traffic to unallocated ClusterIPs', () => {
  const t = renderDesiredScript(compileBase(ctx({ serviceCIDRs: ['172.30.0.0/16', 'fd00:30::/112', 'not-a-cidr', '172.30.0.0/16'] })), []);
  assert.equal(t.split('\n').filter((l) => l.includes('Drop traffic to unallocated ClusterIPs')).length, 1, 'duplicates and garbage left out');
  has(t, 'add rule ip kube-proxy cluster-ips-check ip daddr 172.30.0.0/16 drop comment "Drop traffic to unallocated ClusterIPs"');
  lacks(t, 'fd00:30::');
});

test("INVALID packets dropped in filter-forward unless nf_conntrack_tcp_be_liberal is set (upstream's kubernetes#74839 rule)", () => {
  for (const family of ['ip', 'ip6'] as const) {
    const strict = renderDesiredScript(compileBase(ctx({}, family)), []);
    has(strict, `add rule ${family} kube-proxy filter-forward ct state invalid drop`);
    assert.equal(strict.split('\n').filter((l) => l.includes('ct state invalid')).length, 1, 'forward path only');
    const liberal = ctx({ conntrackTCPLiberal: true }, family);
    lacks(renderDesiredScript(compileBase(liberal), []), 'ct state invalid');
    lacks(renderDesiredScript(compileBase(liberal), []), 'filter-forward');
    assert.notEqual(contextKey(liberal), contextKey(ctx({}, family)), 'a different context key: a full sync');
  }
});

test('bad input names the field', () => {
  assert.throws(() => compileService(sp('bad', { clusterIP: 'fd00::1' }), selected([]), ctx()), /clusterIP: "fd00::1" is not an address of family ip/);
  assert.throws(() => compileService(sp('bad', { port: 70000 }), selected([]), ctx()), /port: invalid port 70000/);
  assert.throws(() => compileService(sp('bad'), selected([ep('10.0.0.1', 0)]), ctx()), /endpoints\[0\]\.port: invalid port 0/);
});

test('an invalid endpoint is named by its place in allReachable, cluster and local taken as one list', () => {
  const good = ep('10.180.0.1');
  const bad = ep('fd00:10::1');
  const late = { cluster: [good, bad], local: [], allReachable: [good], hasAny: true };
  assert.throws(() => compileService(sp('svc1'), late, ctx()), /ServicePort ns1\/svc1:p80\/TCP: endpoints\[2\]\.ip: "fd00:10::1" is not an address of family ip/);
  const port = ep('10.180.0.2', 0);
  const inLocal = { cluster: [good], local: [good, port], allReachable: [good], hasAny: true };
  assert.throws(() => compileService(sp('svc1'), inLocal, ctx()), /endpoints\[3\]\.port: invalid port 0/);
  assert.doesNotThrow(() => compileService(sp('svc1'), { cluster: [good], local: [good], allReachable: [good], hasAny: true }, ctx()));
});
