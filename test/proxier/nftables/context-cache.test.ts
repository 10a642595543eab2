// The family contexts kept between syncs (context-cache.ts): reused while the snapshot's Node IPs,
// podCIDRs and Service CIDRs are the same, rebuilt as soon as one differs, however it changed
// (a new snapshot, or the old one's lists changed in place); and a rebuilt context still turns the
// next partial sync into the full sync it needs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { NodeInfo } from '../../../src/core/types';
import { buildContext, contextKey, type ContextInputs } from '../../../src/proxier/nftables/context';
import { ContextCache } from '../../../src/proxier/nftables/context-cache';
import { changed, defaultInputs, ep, node, snapshot, sp } from './fixtures';
import { elementsOf, proxierOnFake, rulesOf } from './fake-helpers';

const inputs: ContextInputs = { ...defaultInputs, localDetector: { mode: 'NodeCIDR', cidrs: [] }, nodePortAddresses: ['primary'], serviceCIDRs: ['172.30.0.0/16'] };
const fresh = (n: NodeInfo, serviceCIDRs: string[] = []) => {
  const merged = { ...inputs, serviceCIDRs: [...new Set([...inputs.serviceCIDRs, ...serviceCIDRs])].sort() };
  return (['ip', 'ip6'] as const).map((f) => { const ctx = buildContext(merged, f, n); return { ctx, key: contextKey(ctx) }; });
};
const copyOf = (n: NodeInfo): NodeInfo => ({ ...n, ips: [...n.ips], podCIDRs: [...n.podCIDRs] });

test('the same lists give the same contexts, without building them again', () => {
  const cache = new ContextCache(inputs, ['ip', 'ip6']);
  const first = cache.get({ node, serviceCIDRs: ['fd00:30::/108'] });
  assert.deepEqual(first, fresh(node, ['fd00:30::/108']));
  assert.equal(cache.get({ node: copyOf(node), serviceCIDRs: ['fd00:30::/108'] }), first, 'equal lists in new objects');
});

test('any list that differs rebuilds the contexts, as buildContext would make them', () => {
  const cache = new ContextCache(inputs, ['ip', 'ip6']);
  const first = cache.get({ node });
  const changes: [string, NodeInfo, string[] | undefined][] = [
    ['node IPs', { ...node, ips: ['192.168.0.9', 'fd00::2'] }, undefined],
    ['podCIDRs', { ...node, podCIDRs: ['10.0.7.0/24', 'fd00:10:1::/64'] }, undefined],
    ['Service CIDRs', node, ['172.31.0.0/16']],
  ];
  for (const [what, n, cidrs] of changes) {
    const got = cache.get({ node: n, serviceCIDRs: cidrs });
    assert.notEqual(got, first, what);
    assert.deepEqual(got, fresh(n, cidrs), what);
    assert.notDeepEqual(got.map((c) => c.key), first.map((c) => c.key), `${what}: a new key, so a full sync`);
    assert.deepEqual(cache.get({ node }), first, `${what}: and back`);
  }
});

test('a snapshot whose lists change in place is still seen as changed: the cache keeps copies', () => {
  const cache = new ContextCache(inputs, ['ip', 'ip6']);
  const n = copyOf(node);
  const cidrs = ['172.31.0.0/16'];
  const first = cache.get({ node: n, serviceCIDRs: cidrs });
  n.podCIDRs[0] = '10.0.7.0/24';
  const second = cache.get({ node: n, serviceCIDRs: cidrs });
  assert.notEqual(second, first);
  assert.deepEqual(second, fresh(n, cidrs));
  cidrs.push('172.29.0.0/16');
  assert.deepEqual(cache.get({ node: n, serviceCIDRs: cidrs }), fresh(n, cidrs));
  n.ips.pop();
  assert.deepEqual(cache.get({ node: n, serviceCIDRs: cidrs }), fresh(n, cidrs));
});

test('options changed after the cache was made do not change its contexts', () => {
  const own = structuredClone(inputs);
  const cache = new ContextCache(own, ['ip']);
  const first = cache.get({ node });
  own.nodePortAddresses.push('10.9.0.0/16');
  (own.localDetector as { cidrs: string[] }).cidrs.push('10.1.0.0/16');
  own.serviceCIDRs.push('172.29.0.0/16');
  assert.deepEqual(cache.get({ node: copyOf(node), serviceCIDRs: ['172.28.0.0/16'] })[0], fresh(node, ['172.28.0.0/16'])[0]);
  assert.deepEqual(cache.get({ node })[0], first[0]);
});

test('the proxier: a Service CIDR, node IP or podCIDR change turns a partial sync into a full one, each time', async () => {
  const { proxier, kernel } = proxierOnFake({ localDetector: { mode: 'NodeCIDR', cidrs: [] }, nodePortAddresses: ['primary'] });
  const entries: Parameters<typeof snapshot>[0] = [[sp('svc1', { nodePort: 30080 }), [ep('10.180.0.1')]]];
  const n = copyOf(node);
  const snap = () => ({ ...snapshot(entries, n), serviceCIDRs: cidrs });
  let cidrs = ['172.30.0.0/16'];
  assert.deepEqual(await proxier.sync(snap(), changed(), true), { full: true, ok: true });
  assert.deepEqual(await proxier.sync(snap(), changed(sp('svc1').key), false), { full: false, ok: true }, 'nothing changed: partial');
  cidrs = ['172.31.0.0/16'];
  assert.deepEqual(await proxier.sync(snap(), changed(), false), { full: true, ok: true });
  assert.match(rulesOf(kernel, 'cluster-ips-check').join('\n'), /172\.31\.0\.0\/16/);
  n.ips[0] = '192.168.0.9'; // the same Node object, changed in place
  assert.deepEqual(await proxier.sync(snap(), changed(), false), { full: true, ok: true });
  assert.deepEqual(elementsOf(kernel, 'nodeport-ips'), ['192.168.0.9/32']);
  n.podCIDRs[0] = '10.0.7.0/24';
  assert.deepEqual(await proxier.sync(snap(), changed(), false), { full: true, ok: true });
  assert.ok(rulesOf(kernel, 'cluster-ip-traffic').includes('ip saddr != 10.0.7.0/24 jump mark-for-masquerade'));
  assert.deepEqual(await proxier.sync(snap(), changed(), false), { full: false, ok: true }, 'and partial again once it holds');
});
