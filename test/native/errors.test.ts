// The kernel's refusal names the op that caused it and leaves the previous ruleset untouched.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NetlinkError, Nft, rule, Transaction } from '../../src/native';
import { withNetns } from '../helpers/netns';

function base(): Transaction {
  const tx = new Transaction();
  tx.addTable('ip', 'kp');
  tx.addChain('ip', 'kp', { name: 'pre', base: { type: 'nat', hook: 'prerouting', priority: -100 } });
  tx.addChain('ip', 'kp', { name: 'svc' });
  tx.addRule('ip', 'kp', 'pre', rule('ip').daddr('10.0.0.1').verdict({ kind: 'jump', chain: 'svc' }).build());
  tx.addSet('ip', 'kp', { name: 'ips', key: ['ipv4_addr'] });
  tx.addElements('ip', 'kp', 'ips', [{ key: ['10.0.0.1'] }]);
  return tx;
}

async function expectRefusal(tx: Transaction, check: (e: NetlinkError) => void): Promise<void> {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      await nft.commit(base());
      const before = ns.nft('-j', 'list', 'ruleset');
      await assert.rejects(nft.commit(tx), (e: unknown) => {
        assert.ok(e instanceof NetlinkError, `expected a NetlinkError, got ${String(e)}`);
        check(e);
        return true;
      });
      assert.equal(ns.nft('-j', 'list', 'ruleset'), before);
      // The socket stays usable after a refusal.
      await nft.commit(new Transaction().addTable('ip', 'kp'));
    } finally {
      nft.close();
    }
  });
}

test('a jump to a missing chain names the rule op; nothing of the batch is applied', async () => {
  const tx = new Transaction();
  tx.addChain('ip', 'kp', { name: 'new-chain' });
  tx.declareSet('ip', 'kp', { name: 'ips', key: ['ipv4_addr'] });
  tx.addElements('ip', 'kp', 'ips', [{ key: ['10.0.0.2'] }]);
  tx.addRule('ip', 'kp', 'svc', rule('ip').daddr('10.0.0.9').verdict({ kind: 'jump', chain: 'no-such-chain' }).build());
  tx.addRule('ip', 'kp', 'svc', rule('ip').counter().build());
  await expectRefusal(tx, (e) => {
    assert.equal(e.code, 'ENOENT');
    assert.equal(e.errno, 2);
    assert.equal(e.opIndex, 2);
    assert.equal(e.object, 'add rule ip kp svc ip daddr 10.0.0.9 jump no-such-chain');
    assert.match(e.message, /ENOENT.*op 2.*jump no-such-chain/);
  });
});

test('creating a table that exists fails with EEXIST naming that op', async () => {
  const tx = new Transaction();
  tx.addChain('ip', 'kp', { name: 'other' });
  tx.addTable('ip', 'kp', { create: true });
  await expectRefusal(tx, (e) => {
    assert.equal(e.code, 'EEXIST');
    assert.equal(e.opIndex, 1);
    assert.equal(e.object, 'create table ip kp');
  });
});

test('deleting a set that does not exist fails with ENOENT', async () => {
  const tx = new Transaction().deleteSet('ip', 'kp', 'missing');
  await expectRefusal(tx, (e) => {
    assert.equal(e.code, 'ENOENT');
    assert.equal(e.opIndex, 0);
    assert.equal(e.object, 'delete set ip kp missing');
  });
});

test('concurrent commits on one Nft are serialised', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      await nft.commit(base());
      const txs = Array.from({ length: 20 }, (_, i) => new Transaction().addChain('ip', 'kp', { name: `c${i}` }));
      const results = await Promise.allSettled([...txs.map((t) => nft.commit(t)), nft.listTables()]);
      assert.deepEqual(results.map((r) => r.status), Array(21).fill('fulfilled'));
      const chains = JSON.parse(ns.nft('-j', 'list', 'chains')).nftables.filter((o: any) => o.chain).length;
      assert.equal(chains, 22);
    } finally {
      nft.close();
    }
  });
});

test('dumpTable of a missing table, a bad namespace path, and use after close', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    await assert.rejects(nft.dumpTable('ip', 'nope'), (e: unknown) => {
      assert.ok(e instanceof NetlinkError);
      assert.equal(e.code, 'ENOENT');
      assert.equal(e.object, 'list table ip nope');
      return true;
    });
    await assert.rejects(nft.dumpTable('arp' as never, 'x'), TypeError);
    nft.close();
    await assert.rejects(nft.commit(new Transaction().addTable('ip', 'x')), /closed/);
  });
  assert.throws(() => Nft.open({ netns: '/run/netns/kpn-does-not-exist' }));
  assert.throws(() => Nft.open({ netns: '' }), /^TypeError: opts.netns/);
});

test('a transaction changed after commit() was called commits as it was at the call', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      const tx = new Transaction().addTable('ip', 'q');
      const first = nft.commit(tx);
      tx.addChain('ip', 'q', { name: 'later' });
      const second = nft.commit(tx);
      tx.addChain('ip', 'q', { name: 'never' });
      const [a, b] = await Promise.all([first, second]);
      assert.equal(b.messages - a.messages, 1);
      const chains = JSON.parse(ns.nft('-j', 'list', 'chains')).nftables.filter((o: any) => o.chain).map((o: any) => o.chain.name);
      assert.deepEqual(chains, ['later']);
    } finally {
      nft.close();
    }
  });
});

test('a set at its size limit refuses one more element with ENFILE, naming the element op', async () => {
  const tx = new Transaction();
  tx.addSet('ip', 'kp', { name: 'small', key: ['ipv4_addr'], timeout: true, dynamic: true, size: 2 });
  tx.addElements('ip', 'kp', 'small', [{ key: ['10.9.0.1'] }, { key: ['10.9.0.2'] }]);
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      await nft.commit(base());
      await nft.commit(tx);
      assert.match(ns.nft('list', 'set', 'ip', 'kp', 'small'), /size 2\b/);
      const more = new Transaction().declareSet('ip', 'kp', { name: 'small', key: ['ipv4_addr'], timeout: true, dynamic: true, size: 2 });
      more.addElements('ip', 'kp', 'small', [{ key: ['10.9.0.3'] }]);
      await assert.rejects(nft.commit(more), (e: unknown) => e instanceof NetlinkError && e.code === 'ENFILE' && e.opIndex === 0);
    } finally {
      nft.close();
    }
  });
});
