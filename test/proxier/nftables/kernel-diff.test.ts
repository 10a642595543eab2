// planKernelDiff against a real kernel: the proxier syncs a namespace, the test changes the table
// behind its back, and the diff's script (loaded with nft -f) brings the table back to what the
// proxier wrote; it names only what changed. Services without affinity: nft cannot parse those
// lookups (script-summary.ts unreadableByNft), which dry-run.test.ts covers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileDesiredTables, planKernelDiff, TABLE } from '../../../src/proxier/nftables';
import { withNetns, type TestNetns } from '../../helpers/netns';
import { ep, proxierOptions, snapshot, sp } from './fixtures';
import { changed, normalizedRuleset, proxierIn } from './kernel-helpers';
import { hashAndTruncate, servicePortNameBase } from '../../../src/proxier/nftables/names';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import type { Nft } from '../../../src/native';
import type { NftablesProxierOptions } from '../../../src/proxier/nftables';

const entries: [ServicePort, Endpoint[]][] = [
  [sp('svc1', { nodePort: 30080 }), [ep('10.180.0.1'), ep('10.180.0.2')]],
  [sp('svc2', { clusterIP: '172.30.0.42', loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24'] }), [ep('10.180.1.1', 8080)]],
  [sp('svc6', { key: 'ns1/svc6:p80/TCP', family: 'IPv6', clusterIP: 'fd00:30::41' }), [ep('fd00:10::1')]],
];
/** NodePorts on two ranges: the interval set `nodeport-ips`. */
const over: Partial<NftablesProxierOptions> = { nodePortAddresses: ['192.168.0.0/24', '10.1.0.0/16'] };

/** The diff of each family, as one script (empty: no change). */
async function diffScript(nft: Nft): Promise<string> {
  const { tables } = compileDesiredTables(proxierOptions(nft, over), snapshot(entries));
  let out = '';
  for (const t of tables) {
    const dump = await nft.dumpTable(t.family, TABLE, { elements: true }).catch((e) => { if (e.code === 'ENOENT') return null; throw e; });
    const w = planKernelDiff(t, dump);
    if (w.tx.opCount > 0) out += w.tx.toNftScript();
  }
  return out;
}

/** Syncs, changes the table with `tamper` (nft -f text), checks the diff with `expect`, loads it, compares. */
async function repairs(tamper: string, expect: (lines: string[]) => void): Promise<void> {
  await withNetns(async (ns: TestNetns) => {
    const { proxier, nft } = proxierIn(ns, over);
    try {
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), true), { full: true, ok: true });
      const programmed = normalizedRuleset(ns);
      assert.equal(await diffScript(nft), '', 'nothing to change right after the sync');
      ns.exec('nft', ['-f', '-'], tamper);
      assert.notDeepEqual(normalizedRuleset(ns), programmed);
      const script = await diffScript(nft);
      expect(script.trimEnd().split('\n'));
      ns.exec('nft', ['-f', '-'], script);
      assert.deepEqual(normalizedRuleset(ns), programmed);
      assert.equal(await diffScript(nft), '', 'nothing left to change');
    } finally { nft.close(); }
  });
}

test('an interval set whose ranges changed is flushed and filled again', () => repairs(
  'delete element ip kube-proxy nodeport-ips { 10.1.0.0/16 }\nadd element ip kube-proxy nodeport-ips { 10.9.0.0/24 }\n',
  (lines) => assert.deepEqual(lines, [
    'flush set ip kube-proxy nodeport-ips',
    'add element ip kube-proxy nodeport-ips { 10.1.0.0/16 }',
    'add element ip kube-proxy nodeport-ips { 192.168.0.0/24 }',
  ])));

test('a base chain with another priority is deleted and added again with its rules', () => repairs(
  'delete chain ip kube-proxy nat-output\nadd chain ip kube-proxy nat-output { type nat hook output priority 0; }\n',
  (lines) => {
    assert.equal(lines[0], 'delete chain ip kube-proxy nat-output');
    assert.equal(lines[1], 'add chain ip kube-proxy nat-output { type nat hook output priority -100; }');
    assert.ok(lines.slice(2).length > 0 && lines.slice(2).every((l) => l.startsWith('add rule ip kube-proxy nat-output ')), lines.join('\n'));
  }));

test('a stray set goes; a set of ours with another type is replaced, and the chains whose rules name it are rewritten', () => repairs([
  'add set ip6 kube-proxy stray { type ipv6_addr; }',
  'flush chain ip kube-proxy cluster-ips-check',
  'delete set ip kube-proxy cluster-ips',
  'add set ip kube-proxy cluster-ips { type inet_service; }',
].join('\n') + '\n', (lines) => {
  assert.ok(lines.includes('delete set ip6 kube-proxy stray'), lines.join('\n'));
  assert.ok(lines.includes('delete set ip kube-proxy cluster-ips'), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('add set ip kube-proxy cluster-ips { type ipv4_addr;')), lines.join('\n'));
  assert.ok(lines.includes('add element ip kube-proxy cluster-ips { 172.30.0.41 }'), lines.join('\n'));
  assert.ok(lines.some((l) => l.startsWith('add rule ip kube-proxy cluster-ips-check ')), lines.join('\n'));
}));

test('a data map element with other data: deleted by its key, added with ours', () => repairs(
  'delete element ip kube-proxy endpoints-2 { 172.30.0.41 . tcp . 80 . 1 }\nadd element ip kube-proxy endpoints-2 { 172.30.0.41 . tcp . 80 . 1 : 10.180.0.9 . 80 }\n',
  (lines) => assert.deepEqual(lines, [
    'delete element ip kube-proxy endpoints-2 { 172.30.0.41 . tcp . 80 . 1 }',
    'add element ip kube-proxy endpoints-2 { 172.30.0.41 . tcp . 80 . 1 : 10.180.0.2 . 80 }',
  ])));

test('a firewall-allow range changed (a concatenated interval set): the set is flushed and filled again', () => repairs(
  'delete element ip kube-proxy firewall-allow { 5.6.7.8 . tcp . 80 . 203.0.113.0/24 }\nadd element ip kube-proxy firewall-allow { 5.6.7.8 . tcp . 80 . 203.0.112.0/23 }\n',
  (lines) => assert.deepEqual(lines, [
    'flush set ip kube-proxy firewall-allow',
    'add element ip kube-proxy firewall-allow { 5.6.7.8 . tcp . 80 . 203.0.113.0/24 }',
  ])));

const oldFirewallChain = `firewall-${hashAndTruncate(servicePortNameBase(entries[1][0]))}`;

test('the older firewall (a chain per ServicePort, firewall-ips a verdict map, no firewall-allow): the chain and the map go, the sets come', () => repairs([
  'flush chain ip kube-proxy firewall-check',
  'delete set ip kube-proxy firewall-ips',
  'delete set ip kube-proxy firewall-allow',
  'add map ip kube-proxy firewall-ips { type ipv4_addr . inet_proto . inet_service : verdict; }',
  `add chain ip kube-proxy ${oldFirewallChain}`,
  `add rule ip kube-proxy ${oldFirewallChain} ip saddr 203.0.113.0/24 return`,
  `add rule ip kube-proxy ${oldFirewallChain} drop`,
  'add rule ip kube-proxy firewall-check ip daddr . meta l4proto . th dport vmap @firewall-ips',
  `add element ip kube-proxy firewall-ips { 5.6.7.8 . tcp . 80 : goto ${oldFirewallChain} }`,
].join('\n') + '\n', (lines) => {
  for (const l of [`delete chain ip kube-proxy ${oldFirewallChain}`, 'delete map ip kube-proxy firewall-ips', 'flush chain ip kube-proxy firewall-check',
    'add element ip kube-proxy firewall-ips { 5.6.7.8 . tcp . 80 }', 'add element ip kube-proxy firewall-allow { 5.6.7.8 . tcp . 80 . 203.0.113.0/24 }']) {
    assert.ok(lines.includes(l), `${l} in:\n${lines.join('\n')}`);
  }
  assert.ok(lines.some((l) => l.startsWith('add set ip kube-proxy firewall-allow { type ipv4_addr . inet_proto . inet_service . ipv4_addr; flags interval;')), lines.join('\n'));
}));

test('a table the kernel does not hold: the whole table, as the desired script', async () => {
  await withNetns(async (ns) => {
    const { nft } = proxierIn(ns, over);
    try {
      const script = await diffScript(nft);
      assert.match(script, /^add table ip kube-proxy\n/);
      assert.match(script, /\nadd table ip6 kube-proxy\n/);
    } finally { nft.close(); }
  });
});
