// Repair on a real kernel after another tool (nft) changed our table: what nft leaves (a base chain
// with a drop policy, a set of its own, deleted elements and chains, a foreign rule) is read back
// and undone by one full sync. The repair logic runs on the fake kernel in repair.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { serviceChainNames } from '../../../src/proxier/nftables/names';
import { ep, snapshot, sp } from './fixtures';
import { changed, normalizedRuleset, proxierIn } from './kernel-helpers';

const svc1 = sp('svc1');
const aff = sp('aff', { clusterIP: '172.30.0.44', affinityTimeoutSeconds: 60 });
// IPv6 session affinity: chains of its own (affinity-chains.ts).
const aff6 = sp('aff6', { key: 'ns1/aff6:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::44', affinityTimeoutSeconds: 60 });
const entries: Parameters<typeof snapshot>[0] = [[svc1, [ep('10.180.0.1'), ep('10.180.0.2')]], [aff, [ep('10.180.4.1')]], [aff6, [ep('fd00:10::4:1')]]];

test('after markDirty, the full sync reads our table and undoes every foreign change', async () => {
  await withNetns(async (ns) => {
    const repairs: string[] = [];
    const { proxier, nft } = proxierIn(ns, { metrics: { repairs: { inc: ({ reason }) => repairs.push(reason) } } });
    try {
      await proxier.sync(snapshot(entries), changed(), true);
      const before = normalizedRuleset(ns);
      const t = 'kube-proxy';
      const affChain = serviceChainNames(aff6).cluster;
      ns.exec('nft', ['-f', '-'], [
        `add chain ip ${t} intruder { type filter hook prerouting priority -500; policy drop; }`,
        `add set ip ${t} foreign { type ipv4_addr; }`,
        `chain ip ${t} filter-forward { policy drop; }`,
        `delete element ip ${t} cluster-ip-ports { 172.30.0.41 . tcp . 80 }`,
        `delete element ip ${t} affinity-endpoints-60 { 172.30.0.44 . tcp . 80 . 10.180.4.1 . 80 }`,
        `delete element ip6 ${t} service-ips { fd00:30::44 . tcp . 80 }`,
        `flush chain ip6 ${t} ${affChain}`,
        `delete chain ip6 ${t} ${affChain}`,
        `add rule ip ${t} services ip daddr 172.30.0.41 drop`,
        '',
      ].join('\n'));
      assert.notDeepEqual(normalizedRuleset(ns), before);
      proxier.markDirty('foreign_change');
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
      assert.deepEqual(normalizedRuleset(ns), before);
      assert.match(ns.nft('list', 'chain', 'ip', t, 'filter-forward'), /policy accept/);
      assert.deepEqual(repairs, ['foreign_change']);
    } finally { nft.close(); }
  });
});

