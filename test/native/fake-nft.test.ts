// FakeNft and FakeKernel without a kernel (no root): what tests rely on beyond the kernel's rules,
// which fake-vs-kernel.test.ts checks against the real thing. Injected faults, lost replies,
// atomicity, errors naming the op, handles sharing one kernel, the commit and dump logs, listings.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NetlinkError, Transaction, rule } from '../../src/native';
import { FakeKernel } from '../../src/native/testing';

const T = 'kp';
const ips = { name: 'ips', key: ['ipv4_addr' as const] };
const vmap = { name: 'dispatch', key: ['ipv4_addr' as const], map: 'verdict' as const };

function setup(): Transaction {
  return new Transaction().addTable('ip', T).addChain('ip', T, { name: 'svc' })
    .addChain('ip', T, { name: 'in', base: { type: 'filter', hook: 'input', priority: 0 } })
    .addSet('ip', T, ips).addSet('ip', T, vmap)
    .addElements('ip', T, 'ips', [{ key: ['10.0.0.2'] }, { key: ['10.0.0.1'] }])
    .addElements('ip', T, 'dispatch', [{ key: ['10.0.0.1'], verdict: { kind: 'goto', chain: 'svc' } }])
    .addRule('ip', T, 'in', rule('ip').daddrInSet('ips').verdict({ kind: 'accept' }).build());
}

async function rejection(p: Promise<unknown>): Promise<NetlinkError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof NetlinkError, String(e));
    return e;
  }
  assert.fail('expected a rejection');
}

test('a refused op is named like the kernel names it, with every refusal of the batch', async () => {
  const nft = new FakeKernel().open();
  await nft.commit(setup());
  const e = await rejection(nft.commit(new Transaction().deleteChain('ip', T, 'svc').deleteSet('ip', T, 'nope')));
  assert.equal(e.code, 'EBUSY');
  assert.equal(e.opIndex, 0);
  assert.equal(e.object, 'delete chain ip kp svc');
  assert.match(e.message, /^EBUSY \(16\) from the kernel at op 0: delete chain ip kp svc \[chain 'svc' is in use/);
  assert.deepEqual(e.errors.map((x) => `${x.code}@${x.opIndex}`), ['EBUSY@0', 'ENOENT@1']);
});

test('a refused batch leaves nothing applied and the generation where it was', async () => {
  const kernel = new FakeKernel();
  const nft = kernel.open();
  await nft.commit(setup());
  const before = kernel.listRuleset();
  const gen = await nft.generation();
  const tx = new Transaction().declareSet('ip', T, ips).addChain('ip', T, { name: 'new' })
    .deleteElements('ip', T, 'ips', [{ key: ['10.0.0.1'] }]).flushChain('ip', T, 'in').addTable('ip', 'other')
    .deleteChain('ip', T, 'nope');
  assert.equal((await rejection(nft.commit(tx))).opIndex, 4);
  assert.equal(kernel.listRuleset(), before);
  assert.equal(await nft.generation(), gen);
  assert.deepEqual(await nft.listTables(), [{ family: 'ip', name: T }]);
});

test('an injected fault refuses the op it names (by index or by text) once, and nothing is applied', async () => {
  const kernel = new FakeKernel();
  const nft = kernel.open();
  nft.inject({ errno: 'ENOMEM', at: 2 });
  const e = await rejection(nft.commit(setup()));
  assert.deepEqual([e.code, e.opIndex, e.object], ['ENOMEM', 2, 'add chain ip kp in { type filter hook input priority 0; }']);
  assert.deepEqual(await nft.listTables(), []);
  nft.inject({ errno: 95, at: /^add element ip kp dispatch / });
  const byText = await rejection(nft.commit(setup()));
  assert.deepEqual([byText.code, byText.opIndex], ['EOPNOTSUPP', 6]);
  await nft.commit(setup());
  assert.match(kernel.listRuleset(), /add element ip kp dispatch \{ 10\.0\.0\.1 : goto svc \}/);
});

test('a fault whose text matches no op waits for a commit with one; at -1 it refuses the whole batch', async () => {
  const nft = new FakeKernel().open();
  nft.inject({ errno: 'EBUSY', at: /flush set/ });
  await nft.commit(setup());
  const e = await rejection(nft.commit(new Transaction().flushSet('ip', T, 'ips')));
  assert.deepEqual([e.code, e.opIndex], ['EBUSY', 0]);
  nft.inject({ errno: 'ETIMEDOUT', at: -1 });
  const whole = await rejection(nft.commit(new Transaction().flushSet('ip', T, 'ips')));
  assert.deepEqual([whole.code, whole.opIndex, whole.object], ['ETIMEDOUT', -1, '']);
  assert.equal((await nft.dumpTable('ip', T)).sets[0].elements.length, 2);
});

test('a fault is checked when injected, and one past the last op is a mistake in the test', async () => {
  const nft = new FakeKernel().open();
  assert.throws(() => nft.inject({ errno: 'ENOTANERRNO', at: 0 }), /not an errno/);
  assert.throws(() => nft.inject({ errno: 0, at: 0 }), /not an errno/);
  nft.inject({ errno: 'ENOMEM', at: 9 });
  await assert.rejects(nft.commit(new Transaction().addTable('ip', T)), /a fault at op 9, but the transaction has 1 ops/);
});

test('a lost reply: the batch is applied, the commit fails with ENOBUFS at no op', async () => {
  const kernel = new FakeKernel();
  const nft = kernel.open();
  nft.loseNextReply();
  const e = await rejection(nft.commit(setup()));
  assert.deepEqual([e.code, e.opIndex], ['ENOBUFS', -1]);
  assert.match(e.message, /receive queue overflow/);
  assert.deepEqual(await nft.listTables(), [{ family: 'ip', name: T }]);
  assert.deepEqual(nft.commits.map((c) => [c.applied, c.error?.code]), [[true, 'ENOBUFS']]);
  await nft.commit(new Transaction().addChain('ip', T, { name: 'next' }));
  assert.deepEqual(nft.commits.map((c) => c.error?.code ?? 'ok'), ['ENOBUFS', 'ok'], 'only the next reply is lost');
});

test('handles on one kernel share its state; each keeps its own logs and faults', async () => {
  const kernel = new FakeKernel();
  const ours = kernel.open();
  const theirs = kernel.open();
  assert.notEqual(ours.portId, theirs.portId);
  await ours.commit(setup());
  theirs.inject({ errno: 'EPERM', at: 0 });
  await ours.commit(new Transaction().declareSet('ip', T, ips).addElements('ip', T, 'ips', [{ key: ['10.0.0.3'] }]));
  await rejection(theirs.commit(new Transaction().flushSet('ip', T, 'ips')));
  await theirs.dumpTable('ip', T, { elements: false });
  assert.equal(ours.commits.length, 2);
  assert.deepEqual(theirs.dumps, [{ family: 'ip', name: T, elements: false }]);
  assert.deepEqual(ours.dumps, []);
  assert.equal((await ours.dumpTable('ip', T)).sets[0].elements.length, 3);
});

test('dumps: like Nft.dumpTable, without elements when asked; a missing table is ENOENT naming it', async () => {
  const nft = new FakeKernel().open();
  await nft.commit(setup());
  const d = await nft.dumpTable('ip', T);
  assert.deepEqual(d.chains.map((c) => [c.name, c.hook ?? null, c.policy ?? null]), [['svc', null, null], ['in', 'input', 'accept']]);
  assert.deepEqual(d.rules.map((r) => [r.chain, r.exprs.join(' ')]), [['in', 'payload lookup immediate']]);
  assert.deepEqual(d.sets[1].elements, [{ key: Buffer.from([10, 0, 0, 1]), flags: 0, verdict: { kind: 'goto', chain: 'svc' } }]);
  assert.deepEqual((await nft.dumpTable('ip', T, { elements: false })).sets.map((s) => s.elements.length), [0, 0]);
  const e = await rejection(nft.dumpTable('ip6', T));
  assert.deepEqual([e.code, e.opIndex, e.object], ['ENOENT', -1, 'list table ip6 kp']);
});

test('listRuleset: sorted nft text, rules in their order, one element per line', async () => {
  const kernel = new FakeKernel();
  const nft = kernel.open();
  await nft.commit(setup());
  assert.equal(kernel.listRuleset({ family: 'ip6' }), '');
  assert.equal(kernel.listRuleset(), [
    'add table ip kp',
    'add chain ip kp in { type filter hook input priority 0; policy accept; }',
    'add rule ip kp in ip daddr @ips accept',
    'add chain ip kp svc',
    'add map ip kp dispatch { type ipv4_addr : verdict; }',
    'add element ip kp dispatch { 10.0.0.1 : goto svc }',
    'add set ip kp ips { type ipv4_addr; }',
    'add element ip kp ips { 10.0.0.1 }',
    'add element ip kp ips { 10.0.0.2 }',
    '',
  ].join('\n'));
});

test('a closed handle refuses calls, as Nft does', async () => {
  const nft = new FakeKernel().open();
  nft.close();
  await assert.rejects(nft.commit(new Transaction().addTable('ip', T)), /socket is closed/);
  await assert.rejects(nft.listTables(), /socket is closed/);
});
