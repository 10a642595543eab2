// Large commits are made with the monitor off the nftables event group (the kernel then builds no
// notifications for them); the ruleset generation around the gap tells whether another process
// committed meanwhile, and then a repair is requested. Real kernel, real monitor.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Nft, NftMonitor, Transaction, type MonitorEvent } from '../../src/native';
import { RulesetGuard, QUIET_COMMIT_BYTES, type GuardReason } from '../../src/app/ruleset-guard';
import { guardedTables } from '../../src/proxier/nftables';
import { systemClock } from '../../src/base/clock';
import { withNetns, type TestNetns } from '../helpers/netns';

const settle = (ms = 300) => new Promise((r) => setTimeout(r, ms));

function bigTx(count: number): Transaction {
  const tx = new Transaction().addTable('ip', 'kube-proxy').addSet('ip', 'kube-proxy', { name: 'cluster-ips', key: ['ipv4_addr'] });
  const els = [];
  for (let i = 0; i < count; i++) els.push({ key: [`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`] });
  return tx.addElements('ip', 'kube-proxy', 'cluster-ips', els);
}

function guardIn(ns: TestNetns, nft: Nft, events: MonitorEvent[]) {
  const repairs: GuardReason[][] = [];
  const infos: string[] = [];
  const guard = new RulesetGuard({
    netns: ns.path, tables: guardedTables(['ip']), ownPortIds: () => [nft.portId], clock: systemClock,
    repair: (r) => repairs.push(r), log: { info: (_o, m) => infos.push(m), warn() {}, error() {} },
    openMonitor: (opts, onEvent) => NftMonitor.open(opts, (e) => { events.push(e); onEvent(e); }),
  });
  guard.start();
  return { guard, repairs, infos };
}

test('Nft.generation() counts every committed batch in the namespace, ours and others\'', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      const g0 = await nft.generation();
      await nft.commit(new Transaction().addTable('ip', 'a'));
      ns.nft('add', 'table', 'ip', 'b');
      assert.equal(await nft.generation(), g0 + 2);
      await assert.rejects(nft.commit(new Transaction().deleteTable('ip', 'nope')));
      assert.equal(await nft.generation(), g0 + 2, 'a refused batch commits nothing');
    } finally { nft.close(); }
  });
});

test('a monitor off the group reports nothing; back on, it reports again', async () => {
  await withNetns(async (ns) => {
    const events: MonitorEvent[] = [];
    const m = NftMonitor.open({ netns: ns.path, interest: [{ family: 'ip', table: 'kube-proxy' }] }, (e) => events.push(e));
    try {
      m.setSubscribed(false);
      ns.nft('add', 'table', 'ip', 'kube-proxy');
      await settle();
      assert.deepEqual(events, []);
      m.setSubscribed(true);
      ns.nft('add', 'chain', 'ip', 'kube-proxy', 'x');
      await settle();
      assert.equal(events.length, 1);
      assert.throws(() => (m as unknown as { setSubscribed(v: unknown): void }).setSubscribed('no'), TypeError);
    } finally { m.close(); }
    assert.throws(() => m.setSubscribed(true), /closed/);
  });
});

test('a large commit with nobody else committing: quiet, and no repair', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    const events: MonitorEvent[] = [];
    const { guard, repairs } = guardIn(ns, nft, events);
    try {
      const tx = bigTx(20_000);
      assert.ok(tx.serialize().length > QUIET_COMMIT_BYTES);
      await guard.commitQuietly(nft, tx);
      ns.nft('add', 'chain', 'ip', 'kube-proxy', 'after');
      await settle();
      assert.deepEqual(repairs, [['foreign_change']], 'only the change made after our commit, seen by the monitor');
    } finally { guard.stop(); nft.close(); }
  });
});

test('another process committing while a large commit of ours is not listening: a repair is asked for', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    const events: MonitorEvent[] = [];
    const { guard, repairs, infos } = guardIn(ns, nft, events);
    // Our commit, then a foreign one inside the window, before the monitor is back on the group.
    const sneaky = { generation: () => nft.generation(), commit: async (tx: Transaction) => {
      const r = await nft.commit(tx);
      ns.nft('flush', 'set', 'ip', 'kube-proxy', 'cluster-ips');
      return r;
    } };
    try {
      await guard.commitQuietly(sneaky, bigTx(20_000));
      await settle();
      assert.deepEqual(events, [], 'the monitor saw nothing of it');
      assert.deepEqual(repairs, [['events_lost']]);
      assert.match(infos.join('\n'), /while a large commit of ours was not listening/);
    } finally { guard.stop(); nft.close(); }
  });
});

test('small commits are made with the monitor listening', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    let generations = 0;
    const counting = { generation: () => { generations++; return nft.generation(); }, commit: (tx: Transaction) => nft.commit(tx) };
    const { guard } = guardIn(ns, nft, []);
    try {
      await guard.commitQuietly(counting, new Transaction().addTable('ip', 'kube-proxy'));
      assert.equal(generations, 0);
    } finally { guard.stop(); nft.close(); }
  });
});
