// explain's kernel check on the fake kernel (no root): what is not there at all. A ServicePort whose
// endpoint count has no map yet, a table that does not exist, a chain someone deleted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction } from '../../../src/native';
import { FakeKernel } from '../../../src/native/testing';
import { NftablesProxier } from '../../../src/proxier/nftables';
import { compileService } from '../../../src/proxier/nftables/compile-service';
import { checkServicePortInKernel, type KernelObjectCheck } from '../../../src/proxier/nftables/explain-kernel';
import { TABLE } from '../../../src/proxier/nftables/names';
import { changed, ctx, ep, proxierOptions, selected, snapshot, sp } from './fixtures';

const svc = sp('svc', { clusterIP: '172.30.0.70', affinityTimeoutSeconds: 60 });
const plain = sp('plain', { clusterIP: '172.30.0.71' });
const two = [ep('10.180.7.1'), ep('10.180.7.2')];
const count = (checks: KernelObjectCheck[], status: KernelObjectCheck['status']) => checks.filter((c) => c.status === status).length;

test('nothing programmed: every object is missing', async () => {
  const nft = new FakeKernel().open();
  const checks = await checkServicePortInKernel(nft, compileService(svc, selected(two), ctx()), ctx());
  assert.ok(checks.length >= 4);
  assert.equal(count(checks, 'missing'), checks.length);
  assert.ok(checks.every((c) => c.kernel === undefined));
});

test('programmed, then three endpoints: the 3-endpoint map does not exist, its elements are missing', async () => {
  const nft = new FakeKernel().open();
  const proxier = new NftablesProxier(proxierOptions(nft));
  assert.deepEqual(await proxier.sync(snapshot([[plain, two]]), changed(), true), { full: true, ok: true });
  assert.equal(count(await checkServicePortInKernel(nft, compileService(plain, selected(two), ctx()), ctx()), 'as expected') > 0, true);
  const three = [...two, ep('10.180.7.3')];
  const checks = await checkServicePortInKernel(nft, compileService(plain, selected(three), ctx()), ctx());
  assert.deepEqual(checks.filter((c) => c.status !== 'as expected').map((c) => `${c.set} ${c.key}: ${c.status}`), [
    'endpoints-3 172.30.0.71 . tcp . 80 . 0: missing',
    'endpoints-3 172.30.0.71 . tcp . 80 . 1: missing',
    'endpoints-3 172.30.0.71 . tcp . 80 . 2: missing',
    'hairpin 10.180.7.3 . 10.180.7.3: missing',
  ]);
});

test('an affinity pair deleted behind the proxy\'s back: missing', async () => {
  const kernel = new FakeKernel();
  const nft = kernel.open();
  const proxier = new NftablesProxier(proxierOptions(nft));
  assert.deepEqual(await proxier.sync(snapshot([[svc, two]]), changed(), true), { full: true, ok: true });
  const pairs = `affinity-endpoints-${svc.affinityTimeoutSeconds}`;
  await kernel.open().commit(new Transaction()
    .declareSet('ip', TABLE, { name: pairs, key: ['ipv4_addr', 'inet_proto', 'inet_service', 'ipv4_addr', 'inet_service'] })
    .deleteElements('ip', TABLE, pairs, [{ key: [svc.clusterIP, 'tcp', 80, two[0].ip, two[0].port] }]));
  const checks = await checkServicePortInKernel(nft, compileService(svc, selected(two), ctx()), ctx());
  assert.deepEqual(checks.filter((c) => c.status !== 'as expected').map((c) => `${c.kind} ${c.set ?? c.chain}: ${c.status}`),
    [`element ${pairs}: missing`]);
});
