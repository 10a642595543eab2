// A cold start (our table absent) stages the table, its sets, their elements and the regular chains
// with their rules in commits of their own while the full sync compiles, the verdict maps' elements
// (the way into a ServicePort's chains) last; the sync's own transaction adds the hooked chains. What the kernel holds at the end must be what one transaction gives, no
// earlier commit may hook anything, and a failed staging commit must still end in the same table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Op } from '../../../src/native/txn/ops';
import type { FakeCommit } from '../../../src/native/testing';
import { Transaction } from '../../../src/native/txn/transaction';
import { changed, ep, manyServices, snapshot, sp } from './fixtures';
import { freshFullSync, proxierOnFake, ruleset } from './fake-helpers';

const ops = (c: FakeCommit): readonly Op[] => c.tx.opRecords();
const hooks = (c: FakeCommit): string[] => ops(c).flatMap((o) => (o.op === 'addChain' && o.chain.base ? [o.chain.name] : []));
const verdictElements = (c: FakeCommit): number => ops(c).filter((o) => o.op === 'addElements' && o.set.map === 'verdict').length;
const count = (c: FakeCommit, op: Op['op']): number => ops(c).filter((o) => o.op === op).length;
/** IPv6 Services with session affinity: chains of their own, and the verdict-map elements that reach them. */
const sixAffinity = (n: number) => Array.from({ length: n }, (_, i) => [
  sp(`aff6-${i}`, { key: `ns1/aff6-${i}:p80/TCP/IPv6`, family: 'IPv6', clusterIP: `fd00:30::2:${(i + 1).toString(16)}`, affinityTimeoutSeconds: 600 }),
  [ep(`fd00:10::4:${(i + 1).toString(16)}`), ep(`fd00:10::5:${(i + 1).toString(16)}`)],
] as ReturnType<typeof manyServices>[number]);

test('a cold start stages sets, elements, regular chains and their rules, then hooks in one last transaction: the same table as one transaction', async () => {
  const entries = [...manyServices(), ...sixAffinity(20)];
  const { proxier, nft, kernel } = proxierOnFake({ stageBytes: 256 });
  assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync(entries));
  const commits = nft.commits;
  assert.ok(commits.length >= 4, `${commits.length} commits: several staging ones at 256 bytes each`);
  assert.ok(commits.every((c) => c.applied));
  const staging = commits.slice(0, -1);
  const last = commits[commits.length - 1];
  for (const [i, c] of staging.entries()) {
    assert.deepEqual(hooks(c), [], `staging commit ${i} hooks nothing`);
    assert.equal(count(c, 'flushTable') + count(c, 'flushSet'), 0, `staging commit ${i} flushes nothing`);
    const list = ops(c);
    const firstRule = list.findIndex((o) => o.op === 'addRule');
    assert.ok(firstRule < 0 || list.map((o) => o.op).lastIndexOf('addChain') < firstRule, `staging commit ${i}: its chains, then their rules`);
  }
  assert.ok(staging.filter((c) => count(c, 'addRule') > 0).length > 1, 'the ServicePorts\' chains and rules are staged as they are compiled');
  // Per family, only the last staging commit carries verdict-map elements.
  for (const family of ['ip', 'ip6'] as const) {
    const mine = staging.filter((c) => ops(c).some((o) => o.family === family));
    assert.ok(mine.slice(0, -1).every((c) => verdictElements(c) === 0), `${family}: no verdict-map element before the last staging commit`);
  }
  assert.ok(verdictElements(staging.filter((c) => ops(c).some((o) => o.family === 'ip6')).at(-1)!) > 0);
  assert.ok(hooks(last).length > 0, 'the last transaction adds the hooked chains');
  assert.ok(count(last, 'addRule') > 0, 'and the base chains\' rules');
  // Every element was staged (the count-bit sets are plain sets); it adds the counts' chains, which the select chains' tests reach.
  assert.equal(ops(last).filter((o) => o.op === 'addElements').length, 0);
  const addChains = ops(last).filter((o) => o.op === 'addChain' && /^select-(nodeport-)?endpoint-\d+(-\d+)?$/.test(o.chain.name));
  assert.ok(addChains.length >= 2, 'the counts\' chains: 6 or 8 for ClusterIPs, 6 for the NodePort');
  assert.equal(count(last, 'flushTable') + count(last, 'flushSet'), 0, 'without flushing what was staged');
});

test('each family is staged on its own; one whose table exists is written in the one transaction', async () => {
  const entries = manyServices();
  const { proxier, nft, kernel } = proxierOnFake({ stageBytes: 256 });
  await kernel.open().commit(new Transaction().addTable('ip6', 'kube-proxy'));
  assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync(entries));
  const staging = nft.commits.slice(0, -1);
  assert.ok(staging.length > 0);
  for (const c of staging) assert.ok(ops(c).every((o) => o.family === 'ip'), 'only the absent ip table is staged');
  const last = nft.commits[nft.commits.length - 1];
  assert.equal(count(last, 'flushTable'), 1, 'the existing ip6 table is flushed and rewritten as before');
});

test('every full sync after the first takes one transaction', async () => {
  const entries = manyServices();
  const { proxier, nft } = proxierOnFake({ stageBytes: 256 });
  await proxier.sync(snapshot(entries), changed(), false);
  const first = nft.commits.length;
  assert.deepEqual(await proxier.sync(snapshot(entries), changed(), true), { full: true, ok: true });
  assert.equal(nft.commits.length, first + 1, 'a later full sync: one transaction');
});

test('a proxy restarted on a table an earlier run left takes one transaction', async () => {
  const entries = manyServices();
  const { kernel } = proxierOnFake({ stageBytes: 256 });
  const first = proxierOnFake({ stageBytes: 256 }, kernel);
  await first.proxier.sync(snapshot(entries), changed(), false);
  const second = proxierOnFake({ stageBytes: 256 }, kernel);
  assert.deepEqual(await second.proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
  assert.equal(second.nft.commits.length, 1);
  assert.equal(ruleset(kernel), await freshFullSync(entries));
});

test('a staging commit the kernel refuses: the table is read again and written in one transaction', async () => {
  const entries = manyServices();
  const warnings: string[] = [];
  const log = { debug() {}, info() {}, warn: (_o: unknown, msg: string) => { warnings.push(msg); }, error() {} };
  const { proxier, nft, kernel } = proxierOnFake({ stageBytes: 256, log });
  // The third staging commit is refused: two have gone in, nothing after it is staged.
  let seen = 0;
  const commit = nft.commit.bind(nft);
  nft.commit = (tx) => (++seen === 3 ? Promise.reject(Object.assign(new Error('ENOMEM'), { code: 'ENOMEM', opIndex: 0 })) : commit(tx));
  assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync(entries));
  assert.deepEqual(warnings, ['Staging the first sync of an absent nftables table failed; writing it in one transaction']);
  const last = nft.commits[nft.commits.length - 1];
  assert.deepEqual(ops(last).filter((o) => o.op === 'flushTable').map((o) => o.family), ['ip'],
    'the ip table, which holds what was staged, is flushed and written in one transaction');
  assert.equal(nft.dumps.filter((d) => d.family === 'ip').length, 2, 'the ip table was read again after the failure');
});

test('staging commits go to the kernel one at a time; whileStaging is called as each is queued, beforeElementsCopied never', async () => {
  const entries = manyServices();
  let calls = 0;
  let copies = 0;
  let unsettled = 0;
  let most = 0;
  const { proxier, nft, kernel } = proxierOnFake({ stageBytes: 256, whileStaging: () => { calls++; }, beforeElementsCopied: () => { copies++; } });
  const commit = nft.commit.bind(nft);
  // A slow kernel: each commit settles 5 ms after it is made.
  nft.commit = async (tx) => {
    most = Math.max(most, ++unsettled);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return await commit(tx);
    } finally { unsettled--; }
  };
  assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync(entries));
  assert.equal(most, 1, 'commits one at a time');
  assert.equal(calls, nft.commits.length - 1, 'once per staging commit');
  assert.equal(copies, 0, 'staged, no element is copied into the sync\'s own transaction');
});

test('a cold start with no Service at all: the staged table and sets, then the hooks', async () => {
  const { proxier, nft, kernel } = proxierOnFake({ stageBytes: 256 });
  assert.deepEqual(await proxier.sync(snapshot([]), changed(), false), { full: true, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync([]));
  assert.equal(nft.commits.length, 3, 'one staging commit per family, then the sync\'s own');
  assert.ok(hooks(nft.commits[2]).length > 0);
});
