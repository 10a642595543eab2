// The helper table on the fake kernel: what a full sync writes, and what a partial sync's
// transaction holds (only the changed ServicePorts' elements, shared ones refcounted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeKernel } from '../../../src/native/testing/fake-kernel';
import { IpvsHelperTable } from '../../../src/proxier/ipvs/helper-table';
import type { HelperTableOptions } from '../../../src/proxier/ipvs/helper-table-context';
import { ep, fullInput, partialInput, sp, type Entry } from './helper-table-fixtures';

function setup(over: Partial<HelperTableOptions> = {}) {
  const kernel = new FakeKernel();
  const nft = kernel.open();
  const table = new IpvsHelperTable({ nft, localDetector: { mode: 'ClusterCIDR', cidrs: ['10.0.0.0/16', 'fd00:10::/48'] }, ...over });
  const lines = (family: 'ip' | 'ip6' = 'ip') => kernel.listRuleset({ family, table: 'kube-proxy-ipvs' }).split('\n');
  const elements = (set: string, family: 'ip' | 'ip6' = 'ip') => {
    const prefix = `add element ${family} kube-proxy-ipvs ${set} { `;
    return lines(family).filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length, -2));
  };
  const rules = (chain: string, family: 'ip' | 'ip6' = 'ip') => {
    const prefix = `add rule ${family} kube-proxy-ipvs ${chain} `;
    return lines(family).filter((l) => l.startsWith(prefix)).map((l) => l.slice(prefix.length));
  };
  return { kernel, nft, table, elements, rules };
}

test('full sync: both tables with the fixed chains, hooks and rules', async () => {
  const { table, rules, kernel } = setup();
  await table.sync(fullInput([]));
  assert.deepEqual(kernel.listTables().map((t) => `${t.family} ${t.name}`).sort(), ['ip kube-proxy-ipvs', 'ip6 kube-proxy-ipvs']);
  assert.deepEqual(rules('services'), [
    'ip saddr 127.0.0.0/8 return',
    'ip saddr != 10.0.0.0/16 ip daddr . meta l4proto . th dport @cluster-ips jump mark-for-masquerade',
    'ip daddr . meta l4proto . th dport @external-ips jump mark-for-masquerade',
    'ip daddr @nodeport-ips meta l4proto . th dport @nodeports jump mark-for-masquerade',
  ]);
  assert.deepEqual(rules('masquerading'), [
    'meta mark & 0x4000 == 0x0 return', 'meta mark set meta mark xor 0x4000',
    'masquerade fully-random comment "kubernetes service traffic requiring SNAT"',
  ]);
  assert.deepEqual(rules('filter-input'), ['ct state new jump firewall-check', 'ct state new jump endpoints-check', 'ct state new jump ipvs-filter']);
  assert.deepEqual(rules('filter-forward').slice(2), [
    'ct state invalid drop',
    'meta mark & 0x4000 == 0x4000 accept comment "kubernetes forwarding rules"',
    'ct state established,related accept comment "kubernetes forwarding conntrack rule"',
  ]);
  assert.equal(rules('services', 'ip6')[0], 'ip6 saddr ::1 return');
  // Local-policy drops: a ClusterIP (internal policy) for everyone, external addresses and NodePorts not for pods.
  assert.deepEqual(rules('endpoints-check').slice(2), [
    'ip daddr . meta l4proto . th dport @cluster-ips ip daddr . meta l4proto . th dport @no-local-endpoint-services drop',
    'ip saddr != 10.0.0.0/16 ip daddr . meta l4proto . th dport @no-local-endpoint-services drop',
    'ip saddr != 10.0.0.0/16 ip daddr @nodeport-ips meta l4proto . th dport @no-local-endpoint-nodeports drop',
  ]);
});

test('masquerade choices: masqueradeAll, no detector (the VIP as source, as upstream), another bit', async () => {
  const all = setup({ masqueradeAll: true });
  await all.table.sync(fullInput([]));
  assert.equal(all.rules('services')[1], 'ip daddr . meta l4proto . th dport @cluster-ips jump mark-for-masquerade');
  const none = setup({ localDetector: { mode: 'None' }, masqueradeBit: 3 });
  await none.table.sync(fullInput([]));
  assert.equal(none.rules('services')[1], 'ip saddr . meta l4proto . th dport @cluster-ips jump mark-for-masquerade');
  assert.deepEqual(none.rules('mark-for-masquerade'), ['meta mark set meta mark or 0x8']);
  assert.deepEqual(none.rules('endpoints-check').slice(2), [
    'ip daddr . meta l4proto . th dport @no-local-endpoint-services drop',
    'ip daddr @nodeport-ips meta l4proto . th dport @no-local-endpoint-nodeports drop',
  ], 'no detector: no source is known to be a pod');
  const bridge = setup({ localDetector: { mode: 'BridgeInterface', interface: 'cbr0' } });
  await bridge.table.sync(fullInput([]));
  assert.equal(bridge.rules('services')[1], 'iifname != "cbr0" ip daddr . meta l4proto . th dport @cluster-ips jump mark-for-masquerade');
});

test('nf_conntrack_tcp_be_liberal set: no INVALID drop rule in either family, as upstream\'s KUBE-FORWARD', async () => {
  const liberal = setup({ conntrackTCPLiberal: true });
  await liberal.table.sync(fullInput([]));
  for (const f of ['ip', 'ip6'] as const) {
    assert.ok(!liberal.rules('filter-forward', f).some((r) => r.includes('invalid')), f);
    assert.equal(liberal.rules('filter-forward', f).length, 4, f);
  }
  const strict = setup({ conntrackTCPLiberal: false });
  await strict.table.sync(fullInput([]));
  assert.equal(strict.rules('filter-forward', 'ip6').filter((r) => r === 'ct state invalid drop').length, 1);
});

test('options are checked', () => {
  const nft = new FakeKernel().open();
  assert.throws(() => new IpvsHelperTable({ nft, conntrackTCPLiberal: 1 as unknown as boolean }), /conntrackTCPLiberal: expected a boolean/);
  assert.throws(() => new IpvsHelperTable({ nft, masqueradeBit: 32 }), /masqueradeBit: must be an integer in 0..31, got 32/);
  assert.throws(() => new IpvsHelperTable({ nft, families: ['inet' as 'ip'] }), /families: unknown family 'inet'/);
  assert.throws(() => new IpvsHelperTable({} as HelperTableOptions), /nft: expected a handle/);
});

const shared = () => {
  // Two ports of one Service: the same ClusterIP in ipvs-ips, the same endpoint IP in two hairpin elements.
  const p80 = sp('web', { nodePort: 30080, healthCheckNodePort: 0 });
  const p443 = sp('web', { key: 'ns1/web:p443/TCP/IPv4', portName: 'p443', port: 443, nodePort: 30443 });
  const other = sp('other', { clusterIP: '172.30.0.50' });
  const entries: Entry[] = [
    [p80, [ep('10.0.1.5', 8080, { isLocal: true })]],
    [p443, [ep('10.0.1.5', 8443, { isLocal: true })]],
    [other, [ep('10.0.2.5')]],
  ];
  return { p80, p443, other, entries };
};

test('full sync content: per-ServicePort elements, shared ones once', async () => {
  const { table, elements } = setup();
  await table.sync(fullInput(shared().entries));
  assert.deepEqual(elements('ipvs-ips'), ['172.30.0.41', '172.30.0.50']);
  assert.deepEqual(elements('cluster-ips'), ['172.30.0.41 . tcp . 80', '172.30.0.41 . tcp . 443', '172.30.0.50 . tcp . 80']);
  assert.deepEqual(elements('nodeports'), ['tcp . 30080', 'tcp . 30443']);
  assert.deepEqual(elements('hairpin'), ['10.0.1.5 . tcp . 8080 . 10.0.1.5', '10.0.1.5 . tcp . 8443 . 10.0.1.5']);
  assert.deepEqual(elements('nodeport-ips'), ['192.168.0.2']);
  assert.deepEqual(elements('nodeport-ips', 'ip6'), ['fd00::2']);
  assert.deepEqual(elements('no-endpoint-services'), []);
});

test('partial sync: only the changed ServicePort\'s elements, a shared VIP stays while another port holds it', async () => {
  const { table, nft, elements } = setup();
  const { p80, p443, other, entries } = shared();
  await table.sync(fullInput(entries));
  const fullOps = nft.commits[0].tx.opCount;

  // p443 goes: its cluster-ips, service-ips, nodeports and hairpin elements go; the ClusterIP stays in ipvs-ips (p80's).
  await table.sync(partialInput([entries[0], entries[2]], [], [p443]));
  const tx = nft.commits[1].tx;
  assert.deepEqual(table.lastSync, { full: false, ops: 4, elementsAdded: 0, elementsDeleted: 4 });
  assert.ok(tx.opCount < fullOps / 10, `partial ${tx.opCount} ops vs full ${fullOps}`);
  assert.deepEqual(elements('ipvs-ips'), ['172.30.0.41', '172.30.0.50']);
  assert.deepEqual(elements('cluster-ips'), ['172.30.0.41 . tcp . 80', '172.30.0.50 . tcp . 80']);
  assert.match(tx.toNftScript(), /delete element ip kube-proxy-ipvs hairpin \{ 10\.0\.1\.5 \. tcp \. 8443 \. 10\.0\.1\.5 \}/);
  assert.doesNotMatch(tx.toNftScript(), /ipvs-ips/);

  // other loses its endpoints: one add into no-endpoint-services, nothing else.
  await table.sync(partialInput([entries[0], [other, []]], [other.key]));
  assert.deepEqual(table.lastSync, { full: false, ops: 1, elementsAdded: 1, elementsDeleted: 0 });
  assert.deepEqual(elements('no-endpoint-services'), ['172.30.0.50 . tcp . 80']);

  // An unchanged ServicePort reported as changed: no commit at all.
  const commits = nft.commits.length;
  await table.sync(partialInput([entries[0], [other, []]], [p80.key]));
  assert.equal(nft.commits.length, commits);
  assert.equal(table.lastSync?.ops, 0);

  // The last port of the ClusterIP goes: now it leaves ipvs-ips.
  await table.sync(partialInput([[other, []]], [], [p80]));
  assert.deepEqual(elements('ipvs-ips'), ['172.30.0.50']);
});

test('partial sync of many Services: the transaction is as small as the change', async () => {
  const { table, nft } = setup();
  const entries: Entry[] = [];
  for (let i = 0; i < 500; i++) {
    entries.push([sp(`s${i}`, { clusterIP: `172.30.${i >> 8}.${i & 255}`, nodePort: 30000 + i }), [ep(`10.0.${i >> 8}.${i & 255}`)]]);
  }
  await table.sync(fullInput(entries));
  const [s7] = entries[7];
  const next = entries.map((e, i): Entry => (i === 7 ? [s7, []] : e));
  await table.sync(partialInput(next, [s7.key]));
  // no-endpoint-services and no-endpoint-nodeports gain one element each.
  assert.deepEqual(table.lastSync, { full: false, ops: 2, elementsAdded: 2, elementsDeleted: 0 });
  assert.ok(nft.commits[1].tx.byteLength < 1024, `${nft.commits[1].tx.byteLength} bytes`);
});

test('a change of node or NodePort addresses makes the sync full; the first sync is full whatever it is asked', async () => {
  const { table, elements } = setup();
  const { entries } = shared();
  await table.sync({ ...fullInput(entries), full: false });
  assert.equal(table.lastSync?.full, true);
  await table.sync(partialInput(entries, [], [], ['192.168.0.2', '192.168.0.3']));
  assert.equal(table.lastSync?.full, true);
  assert.deepEqual(elements('nodeport-ips'), ['192.168.0.2', '192.168.0.3']);
});

test('a refused commit leaves the table and the claims as they were; the next sync is full', async () => {
  const { table, nft, elements } = setup();
  const { p443, entries } = shared();
  await table.sync(fullInput(entries));
  nft.inject({ errno: 'ENOMEM', at: 0 });
  await assert.rejects(table.sync(partialInput([entries[0], entries[2]], [], [p443])), (e: Error & { code?: string }) => e.code === 'ENOMEM');
  assert.deepEqual(elements('cluster-ips'), ['172.30.0.41 . tcp . 80', '172.30.0.41 . tcp . 443', '172.30.0.50 . tcp . 80']);
  await table.sync(partialInput([entries[0], entries[2]], [], [p443]));
  assert.equal(table.lastSync?.full, true);
  assert.deepEqual(elements('cluster-ips'), ['172.30.0.41 . tcp . 80', '172.30.0.50 . tcp . 80']);
});

test('a full sync replaces whatever the table held (a foreign rule, a stale element)', async () => {
  const { kernel, table, elements, rules } = setup();
  await table.sync(fullInput(shared().entries));
  const other = kernel.open();
  const { Transaction } = await import('../../../src/native/txn/transaction');
  const { rule } = await import('../../../src/native/txn/rule-builder');
  await other.commit(new Transaction().addChain('ip', 'kube-proxy-ipvs', { name: 'foreign' })
    .addRule('ip', 'kube-proxy-ipvs', 'services', rule('ip').verdict({ kind: 'accept' }).build()));
  await table.sync(fullInput([]));
  assert.deepEqual(elements('cluster-ips'), []);
  assert.equal(rules('services').length, 4);
  assert.doesNotMatch(kernel.listRuleset(), /foreign/);
});

test('IPv6 ServicePorts go to the ip6 table only; dual-stack ServicePorts each to their own', async () => {
  const { table, elements } = setup();
  const v6 = sp('v6', { key: 'ns1/v6:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::1', loadBalancerIPs: ['2001:db8::5', '5.6.7.8'] });
  await table.sync(fullInput([[v6, [ep('fd00:10::5')]]]));
  assert.deepEqual(elements('external-ips', 'ip6'), ['2001:db8::5 . tcp . 80']);
  assert.deepEqual(elements('cluster-ips'), []);
  assert.deepEqual(elements('ipvs-ips', 'ip6'), ['2001:db8::5', 'fd00:30::1']);
});

test('two ServicePorts of one LB address with nested source ranges: the kernel gets their folded union, kept right as either changes', async () => {
  const { table, elements } = setup();
  const outer = sp('outer', { loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.0.0/16'] });
  const inner = sp('inner', { clusterIP: '172.30.0.42', loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24', '198.51.100.0/24'] });
  const entries: Entry[] = [[outer, [ep('10.0.2.5')]], [inner, [ep('10.0.2.6')]]];
  await table.sync(fullInput(entries));
  assert.deepEqual(elements('firewall-allow'), ['5.6.7.8 . tcp . 80 . 198.51.100.0/24', '5.6.7.8 . tcp . 80 . 203.0.0.0/16']);
  // The outer range goes: the inner one appears.
  await table.sync(partialInput([entries[1]], [], [outer]));
  assert.deepEqual(elements('firewall-allow'), ['5.6.7.8 . tcp . 80 . 198.51.100.0/24', '5.6.7.8 . tcp . 80 . 203.0.113.0/24']);
  // outer's ClusterIP in cluster-ips, service-ips, ipvs-ips, and 203.0.0.0/16 go; 203.0.113.0/24 comes.
  assert.deepEqual(table.lastSync, { full: false, ops: 5, elementsAdded: 1, elementsDeleted: 4 });
  // It comes back: folded again; then the inner one goes and only the outer stays.
  await table.sync(partialInput(entries, [outer.key]));
  assert.deepEqual(elements('firewall-allow'), ['5.6.7.8 . tcp . 80 . 198.51.100.0/24', '5.6.7.8 . tcp . 80 . 203.0.0.0/16']);
  await table.sync(partialInput([entries[0]], [], [inner]));
  assert.deepEqual(elements('firewall-allow'), ['5.6.7.8 . tcp . 80 . 203.0.0.0/16']);
  assert.deepEqual(elements('firewall-ips'), ['5.6.7.8 . tcp . 80']);
});
