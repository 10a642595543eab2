// The shape of a partial sync's transaction: one delete op and one add op per set and ServicePort
// (not one per element), deletes naming keys only, and the same ruleset as a fresh full sync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import { changed, ep, snapshot, sp } from './fixtures';
import { freshFullSync, lastCommit, proxierOnFake, ruleset } from './fake-helpers';

const six = (last: string) => ['10.180.0.1', '10.180.0.2', '10.180.0.3', '10.180.0.4', '10.180.0.5', last].map((ip) => ep(ip));

test('one endpoint replaced: one op per set and direction, each with every element it needs', async () => {
  const svc1 = sp('svc1', { nodePort: 30080 });
  const svc2 = sp('svc2', { clusterIP: '172.30.0.42' });
  const before: [ServicePort, Endpoint[]][] = [[svc1, six('10.180.0.6')], [svc2, [ep('10.180.1.1')]]];
  const after: [ServicePort, Endpoint[]][] = [[svc1, six('10.180.0.9')], [svc2, [ep('10.180.1.1')]]];
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot(before), changed(), true);
  assert.deepEqual(await proxier.sync(snapshot(after), changed(svc1.key), false), { full: false, ok: true });
  const tx = lastCommit(nft).tx;
  assert.deepEqual(tx.toNftScript().trim().split('\n'), [
    'delete element ip kube-proxy endpoints-6 { 172.30.0.41 . tcp . 80 . 5 }',
    'delete element ip kube-proxy nodeport-endpoints-6 { tcp . 30080 . 5 }',
    'delete element ip kube-proxy hairpin { 10.180.0.6 . 10.180.0.6 }',
    'add element ip kube-proxy endpoints-6 { 172.30.0.41 . tcp . 80 . 5 : 10.180.0.9 . 80 }',
    'add element ip kube-proxy nodeport-endpoints-6 { tcp . 30080 . 5 : 10.180.0.9 . 80 }',
    'add element ip kube-proxy hairpin { 10.180.0.9 . 10.180.0.9 }',
  ]);
  assert.equal(tx.opCount, 6);
  assert.equal(ruleset(kernel), await freshFullSync(after));
});

test('the first endpoint replaced: every slot moves, still one op per set and direction', async () => {
  const svc1 = sp('svc1');
  const before: [ServicePort, Endpoint[]][] = [[svc1, six('10.180.0.6')]];
  const after: [ServicePort, Endpoint[]][] = [[svc1, [ep('10.180.0.0'), ...six('10.180.0.6').slice(1)]]];
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot(before), changed(), true);
  assert.deepEqual(await proxier.sync(snapshot(after), changed(svc1.key), false), { full: false, ok: true });
  const tx = lastCommit(nft).tx;
  // 10.180.0.0 sorts first and takes slot 0; 10.180.0.1 is gone: slot 0 changes value, the others keep theirs.
  assert.deepEqual(tx.toNftScript().trim().split('\n'), [
    'delete element ip kube-proxy endpoints-6 { 172.30.0.41 . tcp . 80 . 0 }',
    'delete element ip kube-proxy hairpin { 10.180.0.1 . 10.180.0.1 }',
    'add element ip kube-proxy endpoints-6 { 172.30.0.41 . tcp . 80 . 0 : 10.180.0.0 . 80 }',
    'add element ip kube-proxy hairpin { 10.180.0.0 . 10.180.0.0 }',
  ]);
  assert.equal(ruleset(kernel), await freshFullSync(after));
  const added: [ServicePort, Endpoint[]][] = [[svc1, [ep('10.180.0.0'), ...six('10.180.0.6')]]];
  assert.deepEqual(await proxier.sync(snapshot(added), changed(svc1.key), false), { full: false, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync(added), 'seven endpoints: a new map, the old one gone');
});

test('a count change between two counts above 4 in use: the slots move, and the count-bit sets gain or lose the bits that differ; no rule, no verdict', async () => {
  const eps = (n: number, third: number) => Array.from({ length: n }, (_, i) => ep(`10.180.${third}.${i + 1}`));
  const svc1 = sp('svc1');
  const keep6 = sp('keep6', { clusterIP: '172.30.0.42' });
  const keep7 = sp('keep7', { clusterIP: '172.30.0.43' });
  const before: [ServicePort, Endpoint[]][] = [[svc1, eps(6, 0)], [keep6, eps(6, 1)], [keep7, eps(7, 2)]];
  const after: [ServicePort, Endpoint[]][] = [[svc1, eps(7, 0)], [keep6, eps(6, 1)], [keep7, eps(7, 2)]];
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot(before), changed(), true);
  assert.deepEqual(await proxier.sync(snapshot(after), changed(svc1.key), false), { full: false, ok: true });
  const slots = (n: number) => Array.from({ length: n }, (_, i) => `172.30.0.41 . tcp . 80 . ${i}`);
  assert.deepEqual(lastCommit(nft).tx.toNftScript().trim().split('\n'), [
    `delete element ip kube-proxy endpoints-6 { ${slots(6).join(', ')} }`,
    `add element ip kube-proxy endpoints-7 { ${slots(7).map((k, i) => `${k} : 10.180.0.${i + 1} . 80`).join(', ')} }`,
    // 6 - 4 = 0b10, 7 - 4 = 0b11: bit 1's element stays.
    'add element ip kube-proxy endpoints-over-4-bit-0 { 172.30.0.41 . tcp . 80 }',
    'add element ip kube-proxy hairpin { 10.180.0.7 . 10.180.0.7 }',
  ]);
  assert.equal(ruleset(kernel), await freshFullSync(after));
});
