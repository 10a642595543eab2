// Elements more than one claim wants, on the fake kernel: the state keeps who claims them but not
// their values, so a partial sync recompiles the ServicePorts involved (elements-of.ts). What it
// writes must be what a full sync writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changed, ep, snapshot, sp } from './fixtures';
import { elementsOf, freshFullSync, lastCommit, opsOf, proxierOnFake, ruleset } from './fake-helpers';
import type { Endpoint, ServicePort } from '../../../src/core/types';

test('two ServicePorts on one external IP and port: the first claimant is written; when it goes, the other takes over', async () => {
  const a = sp('a', { clusterIP: '172.30.0.41', externalIPs: ['5.6.7.8'] });
  const b = sp('b', { clusterIP: '172.30.0.42', externalIPs: ['5.6.7.8'] });
  const both: [ServicePort, Endpoint[]][] = [[a, [ep('10.180.0.1'), ep('10.180.0.2')]], [b, [ep('10.180.1.1'), ep('10.180.1.2')]]];
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot(both), changed(), true);
  const external = () => elementsOf(kernel, 'endpoints-2').filter((e) => e.startsWith('5.6.7.8 '));
  assert.deepEqual(external(), ['5.6.7.8 . tcp . 80 . 0 : 10.180.0.1 . 80', '5.6.7.8 . tcp . 80 . 1 : 10.180.0.2 . 80']);

  const onlyB = both.slice(1);
  assert.deepEqual(await proxier.sync(snapshot(onlyB), changed(a.key), false), { full: false, ok: true });
  assert.deepEqual(external(), ['5.6.7.8 . tcp . 80 . 0 : 10.180.1.1 . 80', '5.6.7.8 . tcp . 80 . 1 : 10.180.1.2 . 80']);
  assert.ok(opsOf(lastCommit(nft)).some((o) => /^add element ip kube-proxy endpoints-2 \{ 5\.6\.7\.8 \. tcp \. 80 \. 0 : 10\.180\.1\.1 \. 80/.test(o)));
  assert.equal(ruleset(kernel), await freshFullSync(onlyB));

  assert.deepEqual(await proxier.sync(snapshot(both), changed(a.key), false), { full: false, ok: true });
  assert.deepEqual(external(), ['5.6.7.8 . tcp . 80 . 0 : 10.180.1.1 . 80', '5.6.7.8 . tcp . 80 . 1 : 10.180.1.2 . 80'], 'b claimed it first now');
});

test('a ServicePort that lists its ClusterIP as an external IP has one element for it, its ClusterIP\'s, by full and partial syncs alike', async () => {
  // With IPv6 session affinity, the ClusterIP goes to the service chain and an external IP to the
  // external chain: the same key in service-ips when the external IP is the ClusterIP. It is
  // claimed once, as a ClusterIP (core/address-ownership), so only the ClusterIP's verdict is written.
  const s = sp('dup', { key: 'ns1/dup:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::41', affinityTimeoutSeconds: 60, externalIPs: ['fd00:30::41'] });
  const entries: [ServicePort, Endpoint[]][] = [[s, [ep('fd00:10::1'), ep('fd00:10::2')]]];
  const full = proxierOnFake();
  await full.proxier.sync(snapshot(entries), changed(), true);
  assert.deepEqual(elementsOf(full.kernel, 'service-ips', 'ip6').map((e) => e.replace(/-[A-Z0-9]{8}-.*/, '')), ['fd00:30::41 . tcp . 80 : goto service']);
  assert.deepEqual(await full.proxier.sync(snapshot(entries), changed(s.key), false), { full: false, ok: true });
  assert.equal(full.nft.commits.length, 1, 'nothing to change');

  const partial = proxierOnFake();
  await partial.proxier.sync(snapshot([]), changed(), true);
  assert.deepEqual(await partial.proxier.sync(snapshot(entries), changed(s.key), false), { full: false, ok: true });
  assert.equal(ruleset(partial.kernel), ruleset(full.kernel));
});

test('IPv4 session affinity with its ClusterIP as an external IP: the key\'s pairs are the ClusterIP\'s, by full and partial syncs alike', async () => {
  const s = sp('dup', { affinityTimeoutSeconds: 60, externalIPs: ['172.30.0.41'], internalPolicyLocal: true });
  const entries: [ServicePort, Endpoint[]][] = [[s, [ep('10.180.0.1', 80, { isLocal: true }), ep('10.180.0.2')]]];
  const full = proxierOnFake();
  await full.proxier.sync(snapshot(entries), changed(), true);
  assert.deepEqual(elementsOf(full.kernel, 'affinity-endpoints-60'), ['172.30.0.41 . tcp . 80 . 10.180.0.1 . 80'], 'the internal policy\'s endpoint only');
  const partial = proxierOnFake();
  await partial.proxier.sync(snapshot([]), changed(), true);
  assert.deepEqual(await partial.proxier.sync(snapshot(entries), changed(s.key), false), { full: false, ok: true });
  assert.equal(ruleset(partial.kernel), ruleset(full.kernel));
});
