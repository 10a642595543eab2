// The helper table on a real kernel in a fresh netns: what full and partial syncs leave, as
// `nft -j list table` shows it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Nft } from '../../../src/native/nft/nft';
import { IpvsHelperTable } from '../../../src/proxier/ipvs/helper-table';
import { withNetns } from '../../helpers/netns';
import { ep, fullInput, partialInput, sp, type Entry } from './helper-table-fixtures';
import { readTable } from './helper-table-kernel-helpers';

function services(): Entry[] {
  return [
    [sp('a', { nodePort: 30080, loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.7/24', '192.168.0.0/16'] }), [ep('10.0.1.5', 8080, { isLocal: true })]],
    [sp('b', { clusterIP: '172.30.0.42', externalPolicyLocal: true, healthCheckNodePort: 31000, nodePort: 30081, externalIPs: ['192.168.0.2'] }), [ep('10.0.2.5')]],
    [sp('c', { clusterIP: 'fd00:30::1', family: 'IPv6', key: 'ns1/c:p80/TCP/IPv6' }), []],
  ];
}

test('kernel: a full sync makes both tables; a partial sync changes only the changed ServicePort\'s elements', () => withNetns(async (ns) => {
  const nft = Nft.open({ netns: ns.path });
  try {
    const table = new IpvsHelperTable({ nft, localDetector: { mode: 'ClusterCIDR', cidrs: ['10.0.0.0/16'] } });
    const entries = services();
    await table.sync(fullInput(entries));
    const v4 = readTable(ns, 'ip');
    assert.deepEqual(v4.chains.get('nat-prerouting'), { hook: 'prerouting', prio: -100, type: 'nat' });
    assert.deepEqual(v4.chains.get('filter-input'), { hook: 'input', prio: -110, type: 'filter' });
    assert.deepEqual(v4.chains.get('nat-postrouting'), { hook: 'postrouting', prio: 100, type: 'nat' });
    assert.deepEqual(v4.sets.get('cluster-ips'), ['172.30.0.41 . tcp . 80', '172.30.0.42 . tcp . 80']);
    assert.deepEqual(v4.sets.get('ipvs-ips'), ['172.30.0.41', '172.30.0.42', '5.6.7.8']);
    assert.deepEqual(v4.sets.get('firewall-allow'), ['5.6.7.8 . tcp . 80 . 192.168.0.0/16', '5.6.7.8 . tcp . 80 . 203.0.113.0/24', '5.6.7.8 . tcp . 80 . 5.6.7.8']);
    assert.deepEqual(v4.sets.get('hairpin'), ['10.0.1.5 . tcp . 8080 . 10.0.1.5']);
    assert.deepEqual(v4.sets.get('nodeports'), ['tcp . 30080']);
    assert.deepEqual(v4.sets.get('no-local-endpoint-nodeports'), ['tcp . 30081']);
    assert.deepEqual(v4.sets.get('health-check-ports'), ['31000']);
    const v6 = readTable(ns, 'ip6');
    assert.deepEqual(v6.sets.get('no-endpoint-services'), ['fd00:30::1 . tcp . 80']);

    // b gets a local endpoint; c gets one; a is removed.
    const [a, b, c] = entries.map(([s]) => s);
    const next: Entry[] = [[b, [ep('10.0.1.9', 80, { isLocal: true })]], [c, [ep('fd00:10::5')]]];
    await table.sync(partialInput(next, [b.key, c.key], [a]));
    assert.equal(table.lastSync?.full, false);
    const after = readTable(ns, 'ip');
    assert.deepEqual(after.sets.get('cluster-ips'), ['172.30.0.42 . tcp . 80']);
    assert.deepEqual(after.sets.get('ipvs-ips'), ['172.30.0.42']);
    assert.deepEqual(after.sets.get('firewall-allow'), []);
    assert.deepEqual(after.sets.get('hairpin'), ['10.0.1.9 . tcp . 80 . 10.0.1.9']);
    assert.deepEqual(after.sets.get('no-local-endpoint-nodeports'), []);
    assert.deepEqual(after.sets.get('nodeports'), []);
    assert.deepEqual(readTable(ns, 'ip6').sets.get('no-endpoint-services'), []);

    // A full sync over what is there gives the same as a fresh one.
    await table.sync(fullInput(next));
    assert.deepEqual(readTable(ns, 'ip').sets, after.sets);
  } finally {
    nft.close();
  }
}));

test('kernel: nested source ranges of two ServicePorts on one LB address are folded, and unfolded in one partial sync', () => withNetns(async (ns) => {
  const nft = Nft.open({ netns: ns.path });
  try {
    const table = new IpvsHelperTable({ nft, families: ['ip'] });
    const outer = sp('outer', { loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.0.0/16'] });
    const inner = sp('inner', { clusterIP: '172.30.0.42', loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24'] });
    const entries: Entry[] = [[outer, [ep('10.0.2.5')]], [inner, [ep('10.0.2.6')]]];
    await table.sync(fullInput(entries));
    assert.deepEqual(readTable(ns, 'ip').sets.get('firewall-allow'), ['5.6.7.8 . tcp . 80 . 203.0.0.0/16']);
    await table.sync(partialInput([entries[1]], [], [outer]));
    assert.deepEqual(readTable(ns, 'ip').sets.get('firewall-allow'), ['5.6.7.8 . tcp . 80 . 203.0.113.0/24']);
    await table.sync(partialInput(entries, [outer.key]));
    assert.deepEqual(readTable(ns, 'ip').sets.get('firewall-allow'), ['5.6.7.8 . tcp . 80 . 203.0.0.0/16']);
  } finally {
    nft.close();
  }
}));
