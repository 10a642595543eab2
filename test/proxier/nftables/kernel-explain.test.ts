// explain's kernel check (checkServicePortInKernel) against what the real proxier programmed in a
// fresh namespace: everything as expected after a sync; then, behind the proxy's back, an element
// deleted (missing), an endpoint map element given another endpoint (differs), a source range
// widened and deleted, and an IPv6 affinity chain flushed (differs). The fake kernel, put through the same steps, reports the same.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Nft, Transaction } from '../../../src/native';
import { FakeKernel, type FakeNft } from '../../../src/native/testing';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import { NftablesProxier } from '../../../src/proxier/nftables';
import { setDefFor } from '../../../src/proxier/nftables/compile-base';
import { compileService } from '../../../src/proxier/nftables/compile-service';
import { checkServicePortInKernel, type KernelObjectCheck, type KernelReader } from '../../../src/proxier/nftables/explain-kernel';
import { serviceChainNames, TABLE } from '../../../src/proxier/nftables/names';
import { createNetns, type TestNetns } from '../../helpers/netns';
import { changed, ctx, ep, fourServices, proxierOptions, selected, snapshot, sp } from './fixtures';

const { svc1, svc2, svc3, svc6, entries: four } = fourServices();
// Past SELECT_RULES_MAX endpoints: an element in the set of each bit of count - 4 too (6 - 4 = 0b10).
const big = sp('big', { clusterIP: '172.30.0.60' });
// IPv6 session affinity: chains of its own (affinity-chains.ts).
const aff6 = sp('aff6', { key: 'ns1/aff6:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::46', affinityTimeoutSeconds: 600 });
const entries: [ServicePort, Endpoint[]][] = [...four, [big, Array.from({ length: 6 }, (_, i) => ep(`10.180.6.${i + 1}`))],
  [aff6, [ep('fd00:10::46'), ep('fd00:10::47')]]];
const epsOf = (s: ServicePort) => entries.find(([x]) => x === s)![1];

async function check(nft: KernelReader, s: ServicePort): Promise<KernelObjectCheck[]> {
  const c = ctx({}, s.family === 'IPv6' ? 'ip6' : 'ip');
  return checkServicePortInKernel(nft, compileService(s, selected(epsOf(s)), c), c);
}

const statuses = (checks: KernelObjectCheck[]) => checks.map((c) => `${c.kind} ${c.set ?? c.chain} ${c.key}: ${c.status}`);
const notAsExpected = (checks: KernelObjectCheck[]) => statuses(checks.filter((c) => c.status !== 'as expected'));

// The tampering, as another process would do it: its own socket, its own transactions.
const ipSet = (name: string) => setDefFor(ctx(), name);
const deleteClusterIPPort = () => new Transaction().declareSet('ip', TABLE, ipSet('cluster-ip-ports'))
  .deleteElements('ip', TABLE, 'cluster-ip-ports', [{ key: [svc1.clusterIP, 'tcp', 80] }]);
const otherEndpoint = () => new Transaction().declareSet('ip', TABLE, ipSet('endpoints-2'))
  .deleteElements('ip', TABLE, 'endpoints-2', [{ key: [svc1.clusterIP, 'tcp', 80, 1] }])
  .addElements('ip', TABLE, 'endpoints-2', [{ key: [svc1.clusterIP, 'tcp', 80, 1], data: ['10.99.0.9', 80] }]);
// A range of firewall-allow widened: the check looks the range's start up and gets the element holding it.
const widenedRange = () => new Transaction().declareSet('ip', TABLE, ipSet('firewall-allow'))
  .deleteElements('ip', TABLE, 'firewall-allow', [{ key: ['5.6.7.8', 'tcp', 80, '203.0.113.0/24'] }])
  .addElements('ip', TABLE, 'firewall-allow', [{ key: ['5.6.7.8', 'tcp', 80, '203.0.112.0/23'] }]);
const deletedRange = () => new Transaction().declareSet('ip', TABLE, ipSet('firewall-allow'))
  .deleteElements('ip', TABLE, 'firewall-allow', [{ key: ['5.6.7.8', 'tcp', 80, '203.0.112.0/23'] }]);
const restoredRange = () => new Transaction().declareSet('ip', TABLE, ipSet('firewall-allow'))
  .addElements('ip', TABLE, 'firewall-allow', [{ key: ['5.6.7.8', 'tcp', 80, '203.0.113.0/24'] }]);
const flushAffinityChain = () => new Transaction().flushChain('ip6', TABLE, serviceChainNames(aff6).cluster);

describe('checkServicePortInKernel on what the proxier programmed', () => {
  let ns: TestNetns;
  let nft: Nft;
  let tamper: Nft;
  let fake: FakeNft;
  before(async () => {
    ns = createNetns('kpn-explain');
    nft = Nft.open({ netns: ns.path });
    tamper = Nft.open({ netns: ns.path });
    const kernel = new FakeKernel();
    fake = kernel.open();
    for (const handle of [nft, fake]) {
      const proxier = new NftablesProxier(proxierOptions(handle));
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), true), { full: true, ok: true });
    }
  });
  after(() => {
    nft?.close();
    tamper?.close();
    ns?.destroy();
  });

  async function both(tx: () => Transaction): Promise<void> {
    await tamper.commit(tx());
    await fake.commit(tx());
  }

  it('reports every object of every Service as expected after a sync', async () => {
    for (const [s] of entries) {
      const checks = await check(nft, s);
      assert.ok(checks.length > 0, s.key);
      assert.deepEqual(notAsExpected(checks), [], s.key);
      assert.ok(checks.every((c) => c.kernel === c.expected), s.key);
    }
    const byKind = (s: ServicePort) => check(nft, s).then((cs) => cs.map((c) => `${c.kind} ${c.set ?? c.chain}`));
    // Shared and per-Service objects are all looked up: cluster-ips, hairpin pairs, endpoint maps, chains.
    assert.ok((await byKind(svc1)).includes('element hairpin'));
    assert.ok((await byKind(svc1)).includes('element cluster-ips'));
    assert.ok((await byKind(svc1)).includes('element nodeports'));
    assert.ok((await byKind(big)).includes('element endpoints-over-4-bit-1'));
    assert.ok((await byKind(svc2)).includes('element firewall-ips'));
    const allow = (await check(nft, svc2)).find((c) => c.set === 'firewall-allow')!;
    assert.deepEqual([allow.key, allow.kernel, allow.status], ['5.6.7.8 . tcp . 80 . 203.0.113.0/24', '5.6.7.8 . tcp . 80 . 203.0.113.0/24', 'as expected']);
    assert.ok((await byKind(svc3)).includes(`element affinity-endpoints-${svc3.affinityTimeoutSeconds}`));
    assert.ok((await byKind(aff6)).includes(`chain ${serviceChainNames(aff6).cluster}`));
    assert.ok((await byKind(svc6)).includes('element endpoints-1'));
    const ep2 = (await check(nft, svc1)).find((c) => c.set === 'endpoints-2' && c.key.endsWith('. 1'))!;
    assert.equal(ep2.expected, `${svc1.clusterIP} . tcp . 80 . 1 : 10.180.0.2 . 80`);
  });

  it('reports an element deleted behind the proxy\'s back as missing', async () => {
    await both(deleteClusterIPPort);
    const checks = await check(nft, svc1);
    assert.deepEqual(notAsExpected(checks), [`element cluster-ip-ports ${svc1.clusterIP} . tcp . 80: missing`]);
    assert.equal(checks.find((c) => c.status === 'missing')!.kernel, undefined);
  });

  it('reports an endpoint map element with another endpoint as differs', async () => {
    await both(otherEndpoint);
    const checks = await check(nft, svc1);
    const differs = checks.filter((c) => c.status === 'differs');
    assert.deepEqual(statuses(differs), [`element endpoints-2 ${svc1.clusterIP} . tcp . 80 . 1: differs`]);
    assert.equal(differs[0].kernel, `${svc1.clusterIP} . tcp . 80 . 1 : 10.99.0.9 . 80`);
    assert.equal(differs[0].expected, `${svc1.clusterIP} . tcp . 80 . 1 : 10.180.0.2 . 80`);
  });

  it('reports a firewall-allow range widened as differs, then deleted as missing', async () => {
    await both(widenedRange);
    const widened = (await check(nft, svc2)).filter((c) => c.status !== 'as expected');
    assert.deepEqual(statuses(widened), ['element firewall-allow 5.6.7.8 . tcp . 80 . 203.0.113.0/24: differs']);
    assert.equal(widened[0].kernel, '5.6.7.8 . tcp . 80 . 203.0.112.0/23');
    assert.deepEqual(await check(fake, svc2), await check(nft, svc2));
    await both(deletedRange);
    assert.deepEqual(notAsExpected(await check(nft, svc2)), ['element firewall-allow 5.6.7.8 . tcp . 80 . 203.0.113.0/24: missing']);
    await both(restoredRange);
    assert.deepEqual(notAsExpected(await check(nft, svc2)), []);
  });

  it('reports a flushed affinity chain (IPv6) as differs', async () => {
    await both(flushAffinityChain);
    const checks = await check(nft, aff6);
    const chain = serviceChainNames(aff6).cluster;
    assert.deepEqual(notAsExpected(checks), [`chain ${chain} ${chain}: differs`]);
    const c = checks.find((x) => x.kind === 'chain')!;
    assert.equal(c.kernel, '');
    assert.ok(c.expected.split('\n').length >= 2, c.expected);
    assert.deepEqual(notAsExpected(await check(nft, svc6)), []);
  });

  it('the fake kernel, through the same steps, reports the same', async () => {
    for (const [s] of entries) assert.deepEqual(await check(fake, s), await check(nft, s), s.key);
  });
});
