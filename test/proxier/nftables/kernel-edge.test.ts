// Edge cases of NftablesProxier on a real kernel: a refused element in a batched full sync, a
// ServicePort that fails validation, context changes that force a full sync, dual-stack moves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { serviceChainNames } from '../../../src/proxier/nftables/names';
import { ep, snapshot, sp, node } from './fixtures';
import { changed, chainNames, elementsOf, listOurTables, normalizedRuleset, proxierIn } from './kernel-helpers';

test('full sync: a refused element inside a batched op is traced to its ServicePort and left out', async () => {
  await withNetns(async (ns) => {
    const bad = sp('bad', { clusterIP: '172.30.0.50', affinityTimeoutSeconds: 60 });
    // A base chain where bad's service chain should be: the kernel refuses `goto` to a base chain,
    // and only bad's service-ips element points there.
    const t = 'kube-proxy';
    ns.exec('nft', ['-f', '-'], `add table ip ${t}\nadd chain ip ${t} ${serviceChainNames(bad).cluster} { type filter hook input priority 0; }\n`);
    const { proxier, nft } = proxierIn(ns);
    try {
      const snap = snapshot([[sp('svc1'), [ep('10.180.0.1')]], [bad, [ep('10.180.9.1')]], [sp('svc3', { clusterIP: '172.30.0.43' }), [ep('10.180.2.1')]]]);
      assert.deepEqual(await proxier.sync(snap, changed(), true), { full: true, ok: true });
      assert.deepEqual([...proxier.refusedServicePorts().keys()], [bad.key]);
      const ips = elementsOf(ns, 'cluster-ip-ports').join();
      assert.match(ips, /172\.30\.0\.41/);
      assert.match(ips, /172\.30\.0\.43/);
      assert.doesNotMatch(ips + elementsOf(ns, 'service-ips').join(), /172\.30\.0\.50/);
      // The clashing chain was in the start-up dump and is not wanted: it is gone.
      assert.ok(!chainNames(ns).includes(serviceChainNames(bad).cluster));
    } finally { nft.close(); }
  });
});

test('a ServicePort that fails validation is reported with the field and does not block others', async () => {
  await withNetns(async (ns) => {
    const warnings: string[] = [];
    const log = { info() {}, error() {}, warn: (o: object, m: string) => warnings.push(`${m} ${JSON.stringify(o)}`) };
    const { proxier, nft } = proxierIn(ns, { log });
    try {
      const bad = sp('bad', { clusterIP: 'fd00::50' });
      const snap = snapshot([[sp('svc1'), [ep('10.180.0.1')]], [bad, [ep('10.180.9.1')]]]);
      assert.deepEqual(await proxier.sync(snap, changed(), true), { full: true, ok: true });
      assert.match(proxier.refusedServicePorts().get(bad.key)!, /clusterIP: "fd00::50" is not an address of family ip/);
      assert.equal(warnings.length, 1);
      assert.match(warnings[0], /ns1\/bad/);
      assert.match(elementsOf(ns, 'cluster-ip-ports').join(), /172\.30\.0\.41/);
      // Fixed in a later partial sync: programmed and no longer reported.
      const fixed = snapshot([[sp('svc1'), [ep('10.180.0.1')]], [{ ...bad, clusterIP: '172.30.0.50' }, [ep('10.180.9.1')]]]);
      assert.deepEqual(await proxier.sync(fixed, changed(bad.key), false), { full: false, ok: true });
      assert.equal(proxier.refusedServicePorts().size, 0);
      assert.match(elementsOf(ns, 'cluster-ip-ports').join(), /172\.30\.0\.50/);
    } finally { nft.close(); }
  });
});

test('a change of the node (podCIDRs under NodeCIDR) turns a partial sync into a full one', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns, { localDetector: { mode: 'NodeCIDR', cidrs: [] } });
    try {
      const entries: Parameters<typeof snapshot>[0] = [[sp('svc1'), [ep('10.180.0.1')]]];
      await proxier.sync(snapshot(entries), changed(), true);
      assert.match(listOurTables(ns), /ip saddr != 10\.0\.1\.0\/24 jump mark-for-masquerade/);
      const moved = { ...node, podCIDRs: ['10.0.7.0/24'] };
      const r = await proxier.sync(snapshot(entries, moved), changed(), false);
      assert.deepEqual(r, { full: true, ok: true });
      assert.match(listOurTables(ns), /ip saddr != 10\.0\.7\.0\/24 jump mark-for-masquerade/);
    } finally { nft.close(); }
  });
});

test('a ServicePort that moves family leaves one table and enters the other', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      const v4 = sp('svc1');
      await proxier.sync(snapshot([[v4, [ep('10.180.0.1')]]]), changed(), true);
      const v6 = { ...v4, family: 'IPv6' as const, clusterIP: 'fd00:30::41' };
      assert.deepEqual(await proxier.sync(snapshot([[v6, [ep('fd00:10::1')]]]), changed(v4.key), false), { full: false, ok: true });
      assert.deepEqual(elementsOf(ns, 'cluster-ip-ports', 'ip'), []);
      assert.match(elementsOf(ns, 'cluster-ip-ports', 'ip6').join(), /fd00:30::41/);
      assert.match(elementsOf(ns, 'endpoints-1', 'ip6').join(), /fd00:10::1/);
      assert.deepEqual(elementsOf(ns, 'cluster-ips', 'ip'), []);
      assert.deepEqual(elementsOf(ns, 'hairpin', 'ip'), []);
    } finally { nft.close(); }
  });
});

test('periodic full syncs of an unchanged cluster leave the same ruleset', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns, { nodePortAddresses: ['192.168.0.0/24', 'primary'], serviceCIDRs: ['172.30.0.0/16'] });
    try {
      const snap = snapshot([[sp('svc1', { nodePort: 30080 }), [ep('10.180.0.1')]], [sp('aff', { clusterIP: '172.30.0.44', affinityTimeoutSeconds: 60 }), [ep('10.180.4.1')]]]);
      await proxier.sync(snap, changed(), true);
      const first = normalizedRuleset(ns);
      assert.match(elementsOf(ns, 'nodeport-ips').join(), /192\.168\.0\.0/);
      await proxier.sync(snap, changed(), true);
      assert.deepEqual(normalizedRuleset(ns), first);
      assert.equal(proxier.counters.fullSyncs, 2);
    } finally { nft.close(); }
  });
});

test('syncs started together run one after the other', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      const one = snapshot([[sp('svc1'), [ep('10.180.0.1')]]]);
      const two = snapshot([[sp('svc1'), [ep('10.180.0.1')]], [sp('svc2', { clusterIP: '172.30.0.42' }), [ep('10.180.1.1')]]]);
      const [a, b] = await Promise.all([proxier.sync(one, changed(), true), proxier.sync(two, changed(sp('svc2').key), false)]);
      assert.deepEqual([a, b], [{ full: true, ok: true }, { full: false, ok: true }]);
      assert.equal(elementsOf(ns, 'cluster-ip-ports').length, 2);
    } finally { nft.close(); }
  });
});

test('IPv6 session affinity fits the register file and commits', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      const s6 = sp('aff6', { key: 'ns1/aff6:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::46', affinityTimeoutSeconds: 10800 });
      assert.deepEqual(await proxier.sync(snapshot([[s6, [ep('fd00:10::1', 8080), ep('fd00:10::2', 8080)]]]), changed(), true), { full: true, ok: true });
      const text = listOurTables(ns, 'ip6');
      assert.match(text, /update @affinity \{ ip6 saddr \. fd00:30::46 \. 80 \. fd00:10::1 \. 8080 timeout 3h \}/);
      assert.equal((text.match(/@affinity goto endpoint-/g) ?? []).length, 2);
    } finally { nft.close(); }
  });
});
