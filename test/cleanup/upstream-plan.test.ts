// Which chains, rules and ipsets --cleanup takes as upstream kube-proxy's (pure): the names of
// upstream pkg/proxy/iptables/proxier.go (iptablesJumpChains, CleanupLeftovers, isServiceChainName)
// and pkg/proxy/ipvs/proxier.go (iptablesCleanupChains, ipsetInfo; ipset.go's "KUBE-6-" names),
// never kubelet's chains, and never a chain another owner's rule still jumps to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TableDump } from '../../src/native';
import { isUpstreamChain, UPSTREAM_IPSETS } from '../../src/cleanup/upstream-names';
import { planUpstreamTable } from '../../src/cleanup/upstream-plan';
import { planTransaction } from '../../src/cleanup/upstream-iptables';

type Dump = Pick<TableDump, 'chains' | 'rules'>;
let handle = 1;
const base = (name: string) => ({ name, handle: handle++, hook: 'prerouting' as const, priority: -100 });
const chain = (name: string) => ({ name, handle: handle++ });
const rule = (chainName: string, ...jumps: string[]) => ({ chain: chainName, handle: handle++, exprs: ['match', 'immediate'], jumps });

test('upstream chain names: fixed names per table, service chains in nat only, kubelet\'s never', () => {
  assert.ok(isUpstreamChain('nat', 'KUBE-SERVICES'));
  assert.ok(isUpstreamChain('nat', 'KUBE-SEP-IT2ZTR26TO4XFPTO'));
  assert.ok(isUpstreamChain('nat', 'KUBE-XLB-IT2ZTR26TO4XFPTO'));
  assert.ok(!isUpstreamChain('filter', 'KUBE-SEP-IT2ZTR26TO4XFPTO'));
  assert.ok(!isUpstreamChain('nat', 'KUBE-SEP-'), 'a bare prefix is nobody\'s service chain');
  assert.ok(isUpstreamChain('filter', 'KUBE-PROXY-FIREWALL'));
  assert.ok(isUpstreamChain('filter', 'KUBE-IPVS-OUT-FILTER'));
  assert.ok(isUpstreamChain('mangle', 'KUBE-PROXY-CANARY'));
  for (const t of ['nat', 'filter', 'mangle']) assert.ok(!isUpstreamChain(t, 'KUBE-KUBELET-CANARY'));
  assert.ok(!isUpstreamChain('filter', 'KUBE-FIREWALL'), 'filter KUBE-FIREWALL is kubelet\'s');
  assert.ok(!isUpstreamChain('nat', 'KUBE-MARK-DROP'), 'KUBE-MARK-DROP was kubelet\'s');
  assert.ok(!isUpstreamChain('raw', 'KUBE-SERVICES'));
});

test('upstream ipsets: the IPVS mode\'s IPv4 names and their "KUBE-6-" twins, cut to 31 bytes as NewIPSet does', () => {
  assert.ok(UPSTREAM_IPSETS.includes('KUBE-CLUSTER-IP'));
  assert.ok(UPSTREAM_IPSETS.includes('KUBE-6-CLUSTER-IP'));
  assert.ok(UPSTREAM_IPSETS.includes('KUBE-6-NODE-PORT-LOCAL-SCTP-HAS'));
  assert.equal(UPSTREAM_IPSETS.length, 34);
  assert.ok(UPSTREAM_IPSETS.every((n) => n.length <= 31));
});

test('plan: upstream chains with their rules, jumps from base chains; other rules and chains untouched', () => {
  const dump: Dump = {
    chains: [base('PREROUTING'), chain('DOCKER'), chain('KUBE-SERVICES'), chain('KUBE-SVC-A'), chain('KUBE-KUBELET-CANARY')],
    rules: [
      rule('PREROUTING', 'KUBE-SERVICES'), rule('PREROUTING', 'DOCKER'), rule('PREROUTING'),
      rule('KUBE-SERVICES', 'KUBE-SVC-A'), rule('KUBE-SVC-A'), rule('DOCKER'),
    ],
  };
  const p = planUpstreamTable('nat', dump);
  assert.deepEqual(p.chains, ['KUBE-SERVICES', 'KUBE-SVC-A']);
  assert.equal(p.rulesInChains, 2);
  assert.deepEqual(p.jumps, [{ chain: 'PREROUTING', handle: dump.rules[0].handle }]);
  assert.deepEqual(p.kept, []);
});

test('plan: a chain another owner\'s regular chain jumps to stays, with every upstream chain it reaches', () => {
  const dump: Dump = {
    chains: [base('POSTROUTING'), chain('CNI-NAT'), chain('KUBE-POSTROUTING'), chain('KUBE-MARK-MASQ'), chain('KUBE-SEP-X'), chain('KUBE-SERVICES')],
    rules: [
      rule('POSTROUTING', 'KUBE-POSTROUTING'), rule('POSTROUTING', 'KUBE-SERVICES'),
      rule('CNI-NAT', 'KUBE-SEP-X'), rule('KUBE-SEP-X', 'KUBE-MARK-MASQ'),
      rule('KUBE-SERVICES', 'KUBE-SEP-X'),
    ],
  };
  const p = planUpstreamTable('nat', dump);
  assert.deepEqual(p.chains, ['KUBE-POSTROUTING', 'KUBE-SERVICES']);
  assert.deepEqual(p.kept.map((k) => k.chain).sort(), ['KUBE-MARK-MASQ', 'KUBE-SEP-X']);
  assert.deepEqual(p.kept.find((k) => k.chain === 'KUBE-SEP-X')?.referencedBy, ['CNI-NAT']);
  assert.equal(p.jumps.length, 2, 'the base chain\'s jumps to removed chains go; none to a kept one');
});

test('plan: a base chain is never removed, even under an upstream name; nothing of ours: an empty plan', () => {
  const dump: Dump = { chains: [{ ...base('KUBE-SERVICES') }, chain('OTHER')], rules: [rule('OTHER', 'KUBE-SERVICES')] };
  assert.deepEqual(planUpstreamTable('nat', dump), { chains: [], rulesInChains: 0, jumps: [], kept: [] });
});

test('transaction: jumps deleted first, every flush before any delete', () => {
  const tx = planTransaction('ip', 'nat', { chains: ['KUBE-A', 'KUBE-B'], rulesInChains: 3, jumps: [{ chain: 'PREROUTING', handle: 7 }], kept: [] });
  assert.deepEqual(tx.opRecords().map((o) => o.op), ['deleteRule', 'flushChain', 'flushChain', 'deleteChain', 'deleteChain']);
});
