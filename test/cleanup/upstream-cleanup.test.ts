// --cleanup against upstream kube-proxy's own leftovers, built with the real tools in a fresh
// netns: iptables-nft rules of the iptables mode's and the IPVS mode's shape (upstream
// pkg/proxy/iptables/proxier.go CleanupLeftovers, pkg/proxy/ipvs/proxier.go cleanupLeftovers),
// mixed with other owners' rules, and the IPVS mode's ipsets. After the cleanup iptables-nft-save
// (and nft's own listing) must equal a namespace built from the other owners' lines alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCleanup, cleanupSucceeded } from '../../src/cleanup';
import { withNetns, type TestNetns } from '../helpers/netns';
import { FOREIGN_IPSETS, IPTABLES_MODE, IPTABLES_MODE_FOREIGN, IPVS_MODE, IPVS_MODE_FOREIGN, IPVS_MODE_IPSETS } from './upstream-fixtures';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
/** No legacy tables: a /proc/net without ip_tables_names (the host's may list some). */
const NO_PROC_NET = '/nonexistent';

/** iptables-nft-save without its "# Generated/Completed" lines, which carry the time. */
function save(ns: TestNetns, tool: 'iptables' | 'ip6tables'): string {
  return ns.exec(`${tool}-nft-save`, []).split('\n').filter((l) => !l.startsWith('#')).join('\n');
}

function nftText(ns: TestNetns): string {
  return ns.nft('list', 'ruleset');
}

function restore(ns: TestNetns, v4: string, v6?: string): void {
  ns.exec('iptables-nft-restore', [], v4);
  if (v6) ns.exec('ip6tables-nft-restore', [], v6);
}

const kubeLines = (s: string) => s.split('\n').filter((l) => /KUBE-(?!KUBELET-CANARY|FIREWALL)/.test(l));

test('iptables mode (upstream CleanupLeftovers): every KUBE- chain and jump goes, other owners\' rules stay byte for byte', async () => {
  await withNetns(async (ref) => {
    restore(ref, IPTABLES_MODE_FOREIGN.v4, IPTABLES_MODE_FOREIGN.v6);
    await withNetns(async (ns) => {
      restore(ns, IPTABLES_MODE.v4, IPTABLES_MODE.v6);
      assert.ok(kubeLines(save(ns, 'iptables')).length > 50, 'the fixture holds upstream\'s rules');
      const r = await runCleanup({ netns: ns.path, log: quiet, procNet: NO_PROC_NET });
      assert.ok(cleanupSucceeded(r));
      assert.deepEqual(r.upstream.iptables.failed, []);
      const byTable = Object.fromEntries(r.upstream.iptables.tables.map((t) => [t.table, t]));
      assert.deepEqual(Object.keys(byTable).sort(), ['ip filter', 'ip mangle', 'ip nat', 'ip6 nat']);
      assert.equal(byTable['ip nat'].deletedChains.length, 13);
      assert.equal(byTable['ip nat'].deletedJumps, 3);
      assert.equal(byTable['ip nat'].deletedRulesInChains, 25);
      assert.equal(byTable['ip filter'].deletedChains.length, 6);
      assert.equal(byTable['ip filter'].deletedJumps, 9);
      assert.equal(byTable['ip filter'].deletedRulesInChains, 5);
      assert.deepEqual(byTable['ip mangle'].deletedChains, ['KUBE-PROXY-CANARY']);
      assert.equal(byTable['ip6 nat'].deletedChains.length, 3);
      assert.ok(!byTable['ip nat'].deletedChains.includes('KUBE-KUBELET-CANARY'));
      assert.deepEqual(kubeLines(save(ns, 'iptables')), []);
      assert.equal(save(ns, 'iptables'), save(ref, 'iptables'));
      assert.equal(save(ns, 'ip6tables'), save(ref, 'ip6tables'));
      assert.equal(nftText(ns), nftText(ref));

      const again = await runCleanup({ netns: ns.path, log: quiet, procNet: NO_PROC_NET });
      assert.deepEqual(again.upstream.iptables, { tables: [], failed: [] });
      assert.deepEqual(again.upstream.ipsets, { destroyed: [], inUse: [], failed: [] });
      assert.equal(nftText(ns), nftText(ref));
    }, 'kpn-upcl');
  }, 'kpn-upref');
});

test('IPVS mode (upstream cleanupLeftovers): its chains, then its ipsets; a set another owner\'s rule matches stays', async () => {
  await withNetns(async (ref) => {
    ref.exec('ipset', ['restore'], FOREIGN_IPSETS.join('\n') + '\n');
    restore(ref, IPVS_MODE_FOREIGN);
    await withNetns(async (ns) => {
      ns.exec('ipset', ['restore'], [...IPVS_MODE_IPSETS, ...FOREIGN_IPSETS].join('\n') + '\n');
      restore(ns, IPVS_MODE);
      const warnings: string[] = [];
      const log = { ...quiet, warn: (o: { ipset?: string }, msg: string) => { warnings.push(`${o.ipset ?? ''} ${msg}`); } };
      const r = await runCleanup({ netns: ns.path, log, procNet: NO_PROC_NET });
      assert.ok(cleanupSucceeded(r), JSON.stringify(r.upstream));
      assert.deepEqual(r.upstream.ipsets.destroyed.sort(), [
        'KUBE-6-CLUSTER-IP', 'KUBE-CLUSTER-IP', 'KUBE-HEALTH-CHECK-NODE-PORT', 'KUBE-IPVS-IPS', 'KUBE-LOAD-BALANCER',
        'KUBE-LOOP-BACK', 'KUBE-NODE-PORT-TCP',
      ]);
      assert.deepEqual(r.upstream.ipsets.inUse, ['KUBE-EXTERNAL-IP']);
      assert.ok(warnings.some((w) => w.startsWith('KUBE-EXTERNAL-IP Kept')));
      const byTable = Object.fromEntries(r.upstream.iptables.tables.map((t) => [t.table, t]));
      assert.equal(byTable['ip nat'].deletedChains.length, 5);
      assert.equal(byTable['ip filter'].deletedChains.length, 6);
      assert.equal(byTable['ip filter'].deletedJumps, 6);
      assert.deepEqual(ns.exec('ipset', ['list', '-n']).trim().split('\n').sort(), ['KUBE-EXTERNAL-IP', 'other-set']);
      assert.equal(save(ns, 'iptables'), save(ref, 'iptables'));
      assert.equal(nftText(ns), nftText(ref));
    }, 'kpn-upcl');
  }, 'kpn-upref');
});
