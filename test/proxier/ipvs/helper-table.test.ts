// The helper table on the fake kernel: what a full sync writes, in nft's words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeKernel } from '../../../src/native/fake-kernel';
import { IpvsHelperTable } from '../../../src/proxier/ipvs/helper-table';
import { ep, fullInput, sp } from './helper-table-fixtures';

test('probe: print the table', async () => {
  const kernel = new FakeKernel();
  const table = new IpvsHelperTable({ nft: kernel.open(), localDetector: { mode: 'ClusterCIDR', cidrs: ['10.0.0.0/16'] } });
  await table.sync(fullInput([
    [sp('a', { nodePort: 30080, loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.7/24', '192.168.0.0/16'] }), [ep('10.0.1.5', 8080, { isLocal: true })]],
    [sp('b', { clusterIP: '172.30.0.42', externalPolicyLocal: true, healthCheckNodePort: 31000, nodePort: 30081, externalIPs: ['192.168.0.2'] }), [ep('10.0.2.5')]],
    [sp('c', { clusterIP: 'fd00:30::1', family: 'IPv6', key: 'ns1/c:p80/TCP/IPv6' }), []],
  ]));
  console.log(kernel.listRuleset());
  assert.ok(table.lastSync?.full);
});
