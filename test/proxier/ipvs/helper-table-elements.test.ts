// servicePortElements (pure): which sets a ServicePort lands in under each policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { familyContext, resolveOptions } from '../../../src/proxier/ipvs/helper-table-context';
import { elementText, servicePortElements } from '../../../src/proxier/ipvs/helper-table-elements';
import { FakeKernel } from '../../../src/native/testing/fake-kernel';
import type { ServicePort } from '../../../src/core/types';
import { ep, selected, snapshot, sp } from './helper-table-fixtures';

const opts = resolveOptions({ nft: new FakeKernel().open() });
const ctx = familyContext(opts, 'ip', snapshot([]), ['192.168.0.2']);

function sets(s: ServicePort, eps = [ep('10.0.2.5')], set?: string): string[] {
  return servicePortElements(s, selected(eps), ctx).map(elementText).filter((t) => !set || t.split(' ')[1] === set).map((t) => t.split(' ').slice(1).join(' '));
}

test('no endpoints anywhere: reject for every address and the NodePort, whatever the policy', () => {
  const s = sp('a', { nodePort: 30080, externalIPs: ['1.2.3.4'], externalPolicyLocal: true });
  assert.deepEqual([...sets(s, [], 'no-endpoint-services'), ...sets(s, [], 'no-endpoint-nodeports')], [
    'no-endpoint-services 172.30.0.41 . tcp . 80', 'no-endpoint-services 1.2.3.4 . tcp . 80', 'no-endpoint-nodeports tcp . 30080',
  ]);
  assert.deepEqual(sets(s, [], 'no-local-endpoint-services'), []);
});

test('Local policies without a local endpoint: drop the external addresses (or the ClusterIP for internal), no masquerade marks', () => {
  const ext = sp('a', { nodePort: 30080, loadBalancerIPs: ['5.6.7.8'], externalPolicyLocal: true });
  assert.deepEqual(sets(ext, undefined, 'no-local-endpoint-services'), ['no-local-endpoint-services 5.6.7.8 . tcp . 80']);
  assert.deepEqual(sets(ext, undefined, 'no-local-endpoint-nodeports'), ['no-local-endpoint-nodeports tcp . 30080']);
  assert.deepEqual([...sets(ext, undefined, 'external-ips'), ...sets(ext, undefined, 'nodeports')], []);
  const int = sp('b', { internalPolicyLocal: true });
  assert.deepEqual(sets(int, undefined, 'no-local-endpoint-services'), ['no-local-endpoint-services 172.30.0.41 . tcp . 80']);
  assert.deepEqual(sets(int, [ep('10.0.1.5', 80, { isLocal: true })], 'no-local-endpoint-services'), []);
});

test('source ranges: host bits cleared, nested ranges folded, other families and nonsense ignored; the LB IP itself when a range holds the node', () => {
  const s = sp('a', { loadBalancerIPs: ['5.6.7.8', 'fd00::8'], loadBalancerSourceRanges: ['10.1.2.3/8', '10.9.0.0/16', 'fd00::/64', 'nonsense', '192.168.0.0/24'] });
  assert.deepEqual(sets(s, undefined, 'firewall-sources'), [
    'firewall-sources 5.6.7.8 . tcp . 80 . 10.0.0.0/8', 'firewall-sources 5.6.7.8 . tcp . 80 . 192.168.0.0/24', 'firewall-sources 5.6.7.8 . tcp . 80 . 5.6.7.8/32',
  ]);
  assert.deepEqual(sets(s, undefined, 'firewall-ips'), ['firewall-ips 5.6.7.8 . tcp . 80']);
  const noNode = sp('b', { loadBalancerIPs: ['5.6.7.8'], loadBalancerSourceRanges: ['203.0.113.0/24'] });
  assert.deepEqual(sets(noNode, undefined, 'firewall-sources'), ['firewall-sources 5.6.7.8 . tcp . 80 . 203.0.113.0/24']);
  assert.deepEqual(sets(sp('c', { loadBalancerSourceRanges: ['203.0.113.0/24'] }), undefined, 'firewall-ips'), []);
});

test('addresses of the node are not bound to kube-ipvs0; the hairpin holds local endpoints only', () => {
  const s = sp('a', { externalIPs: ['192.168.0.2', '1.2.3.4'] });
  assert.deepEqual(sets(s, undefined, 'ipvs-ips'), ['ipvs-ips 172.30.0.41', 'ipvs-ips 1.2.3.4']);
  assert.deepEqual(sets(s, [ep('10.0.1.5', 8080, { isLocal: true }), ep('10.0.2.5')], 'hairpin'), ['hairpin 10.0.1.5 . tcp . 8080 . 10.0.1.5']);
});

test('a ServicePort of the other family, or with a ClusterIP of the other family, gives nothing here', () => {
  assert.deepEqual(sets(sp('v6', { family: 'IPv6', clusterIP: 'fd00::1' })), []);
  assert.deepEqual(sets(sp('odd', { clusterIP: 'fd00::1' })), []);
});

test('a refused ClusterIP (another ServicePort owns it and the port): none of its elements, even without endpoints; the rest kept', () => {
  const s = sp('a', { clusterIPRefused: true, externalIPs: ['1.2.3.4'], nodePort: 30080 });
  const all = sets(s, []);
  assert.deepEqual(all.filter((t) => t.includes('172.30.0.41')), [], all.join('\n'));
  assert.deepEqual(all.filter((t) => /^(cluster-ips|service-ips|ipvs-ips|no-endpoint-services|no-endpoint-nodeports) /.test(t)), [
    'service-ips 1.2.3.4 . tcp . 80', 'ipvs-ips 1.2.3.4', 'no-endpoint-services 1.2.3.4 . tcp . 80', 'no-endpoint-nodeports tcp . 30080',
  ]);
  const internalLocal = sp('b', { clusterIPRefused: true, internalPolicyLocal: true });
  assert.deepEqual(sets(internalLocal, [ep('10.0.2.5')]), [], 'no drop verdict on the owner\'s address either');
});

test('its own ClusterIP listed as an external or LB IP is served as the ClusterIP alone: no external mark, no external verdict on it', () => {
  const own = '172.30.0.41';
  const s = sp('a', { externalIPs: [own, '1.2.3.4'], loadBalancerIPs: [own], externalPolicyLocal: true, nodePort: 30080 });
  assert.equal(s.clusterIP, own);
  // Endpoints elsewhere only: the external policy (Local) has none here; ClusterIP traffic (Cluster) has one.
  assert.deepEqual(sets(s, undefined, 'no-local-endpoint-services'), ['no-local-endpoint-services 1.2.3.4 . tcp . 80'], 'the ClusterIP is not dropped');
  const cluster = sp('b', { clusterIP: own, externalIPs: [own] });
  assert.deepEqual(sets(cluster, undefined, 'external-ips'), [], 'ClusterIP traffic is not marked as external');
  assert.deepEqual(sets(cluster, undefined, 'service-ips'), [`service-ips ${own} . tcp . 80`]);
});
