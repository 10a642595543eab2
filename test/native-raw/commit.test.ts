// NftSocket against the real kernel, in fresh network namespaces: atomic commits, error mapping
// back to op indexes, big batches, dumps, and argument checking.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { addon } from './addon';
import { withNetns, TestNetns } from '../helpers/netns';
import { CREATE, NFPROTO, OP, W, addTable, baseChain, delTable, ex, head, op, regularChain, rule, txn, V } from './wire-writer';

const IP = NFPROTO.ip;
const T = 'kpn-raw';

function addSet(name: string, keyLen = 4): Buffer {
  return op(OP.ADD_SET, head(IP, T).str(name).u32(0).u32(0).u32(7).u32(keyLen).u32(0).u32(0).u64(0).u32(0).u8(0).u32(0).blob([]).done());
}

function addElems(set: string, keys: Buffer[], flags = 0): Buffer {
  const w = head(IP, T).str(set).u32(0).u32(keys.length);
  for (const k of keys) w.blob(k).blob([]).u32(0).u8(0).u64(0);
  return op(OP.ADD_ELEMS, w.done(), flags);
}

const ipKey = (i: number) => { const b = Buffer.alloc(4); b.writeUInt32BE(0x0a000000 + i); return b; };
const keys = (from: number, n: number) => Array.from({ length: n }, (_, i) => ipKey(from + i));

async function withSocket(fn: (sock: InstanceType<typeof addon.NftSocket>, ns: TestNetns) => Promise<void>): Promise<void> {
  await withNetns(async (ns) => {
    const sock = new addon.NftSocket(ns.path);
    try { await fn(sock, ns); } finally { sock.close(); }
  });
}

const baseRuleset = () => txn([
  addTable(IP, T),
  baseChain(IP, T, 'input', 1, 0, 'filter', 1),
  regularChain(IP, T, 'svc'),
  rule(IP, T, 'input', [ex.payload(1, 16, 4, 1), ex.cmp(1, 0, [10, 0, 0, 1]), ex.counter(), ex.verdict(V.JUMP, 'svc')]),
]);

function summary(ns: TestNetns): string[] {
  return ns.nftJson().flatMap((o) => {
    if (o.table) return [`table ${o.table.family} ${o.table.name}`];
    if (o.chain) return [`chain ${o.chain.name}${o.chain.hook ? ` ${o.chain.hook}` : ''}`];
    if (o.rule) return [`rule ${o.rule.chain} ${o.rule.expr.length}`];
    if (o.set) return [`set ${o.set.name} ${(o.set.elem ?? []).length}`];
    return [];
  });
}

test('a table, chains and a rule committed in a fresh netns show up in nft -j list ruleset', async () => {
  await withSocket(async (sock, ns) => {
    const stats = await sock.commit(baseRuleset());
    assert.deepEqual(stats.messages, 6);
    assert.equal(stats.sends, 1);
    assert.ok(stats.bytes > 100);
    // nft -j shows payload+cmp as one "match" statement: match, counter, jump.
    assert.deepEqual(summary(ns), [`table ip ${T}`, 'chain input input', 'chain svc', 'rule input 3']);
    const r = ns.nftJson().find((o) => o.rule)!.rule;
    assert.deepEqual(r.expr[0].match.right, '10.0.0.1');
    assert.deepEqual(r.expr[2], { jump: { target: 'svc' } });
    const host = execFileSync('nft', ['list', 'tables'], { encoding: 'utf8' });
    assert.ok(!host.includes(T), 'the host namespace is untouched');
  });
});

test('listTables and dumpTable read the state back', async () => {
  await withSocket(async (sock) => {
    await sock.commit(baseRuleset());
    await sock.commit(txn([addSet('ips'), addElems('ips', keys(1, 3))]));
    assert.deepEqual(await sock.listTables(), [{ family: IP, name: T }]);
    const d = await sock.dumpTable(IP, T);
    assert.deepEqual(d.chains.map((c: any) => [c.name, c.hook, c.priority, c.type, c.policy]),
      [['input', 1, 0, 'filter', 1], ['svc', undefined, undefined, undefined, undefined]]);
    assert.ok(d.chains.every((c: any) => c.handle > 0));
    assert.deepEqual(d.rules.map((r: any) => [r.chain, r.exprs]), [['input', ['payload', 'cmp', 'counter', 'immediate']]]);
    assert.equal(d.sets.length, 1);
    assert.deepEqual([d.sets[0].name, d.sets[0].keyType, d.sets[0].keyLen], ['ips', 7, 4]);
    assert.deepEqual(d.sets[0].elements.map((e: any) => e.key.toString('hex')).sort(), ['0a000001', '0a000002', '0a000003']);
    await assert.rejects(sock.dumpTable(IP, 'missing'), (e: any) => e.errno === 2 && e.code === 'ENOENT');
  });
});

test('a duplicate table with CREATE rejects with EEXIST and its op index; nothing of the batch is applied', async () => {
  await withSocket(async (sock, ns) => {
    await sock.commit(baseRuleset());
    const before = summary(ns);
    const failing = txn([regularChain(IP, T, 'new-chain'), addTable(IP, 'other'), addTable(IP, T, CREATE)]);
    await assert.rejects(sock.commit(failing), (e: any) => {
      assert.equal(e.errno, 17);
      assert.equal(e.code, 'EEXIST');
      assert.equal(e.opIndex, 2);
      assert.equal(typeof e.messageSeq, 'number');
      assert.deepEqual(e.errors.map((x: any) => [x.errno, x.code, x.opIndex]), [[17, 'EEXIST', 2]]);
      assert.match(e.message, /op 2/);
      return true;
    });
    assert.deepEqual(summary(ns), before);
    // Without CREATE the same add is an idempotent update.
    await sock.commit(txn([addTable(IP, T)]));
    assert.deepEqual(summary(ns), before);
  });
});

test('a jump to a missing chain rejects with ENOENT; every failing op is reported', async () => {
  await withSocket(async (sock, ns) => {
    await sock.commit(baseRuleset());
    const before = summary(ns);
    const failing = txn([
      rule(IP, T, 'svc', [ex.counter()]),
      rule(IP, T, 'svc', [ex.verdict(V.JUMP, 'nowhere')]),
      delTable(IP, 'absent'),
    ]);
    await assert.rejects(sock.commit(failing), (e: any) => {
      assert.equal(e.errno, 2);
      assert.equal(e.opIndex, 1);
      assert.equal(e.extack, 'kernel refused expression 0 (immediate)');
      assert.deepEqual(e.errors.map((x: any) => [x.errno, x.opIndex]), [[2, 1], [2, 2]]);
      return true;
    });
    assert.deepEqual(summary(ns), before);
  });
});

test('200,000 elements commit in one batch; an error deep inside a split element op maps to its op', async () => {
  await withSocket(async (sock) => {
    await sock.commit(txn([addTable(IP, T), addSet('big')]));
    const stats = await sock.commit(txn([addElems('big', keys(0, 200000))]));
    assert.equal(stats.sends, 1);
    assert.ok(stats.messages > 3, `the element op is split into several messages (${stats.messages})`);
    let d = await sock.dumpTable(IP, T);
    assert.equal(d.sets[0].elements.length, 200000);
    // Op 1 adds 30,000 new keys then one that exists, with CREATE (NLM_F_EXCL): the error comes
    // from the last of its messages and must still name op 1; op 0's table change is rolled back.
    const dup = [...keys(300000, 30000), ipKey(5)];
    await assert.rejects(sock.commit(txn([addSet('other'), addElems('big', dup, CREATE)])), (e: any) => {
      assert.equal(e.errno, 17);
      assert.equal(e.opIndex, 1);
      assert.equal(e.extack, 'kernel refused element 30000 (key 0a000005)');
      return true;
    });
    d = await sock.dumpTable(IP, T);
    assert.deepEqual(d.sets.map((s: any) => [s.name, s.elements.length]), [['big', 200000]]);
  });
});

test('an op too big for netlink attribute lengths rejects with EMSGSIZE and its op index', async () => {
  await withSocket(async (sock, ns) => {
    await sock.commit(baseRuleset());
    const huge = Array.from({ length: 1000 }, () => ex.cmp(1, 0, new Array(64).fill(7)));
    await assert.rejects(sock.commit(txn([regularChain(IP, T, 'x'), rule(IP, T, 'svc', huge)])), (e: any) => {
      assert.equal(e.code, 'EMSGSIZE');
      assert.equal(e.opIndex, 1);
      return true;
    });
    assert.ok(!summary(ns).includes('chain x'));
  });
});

test('constructor and method arguments are checked', async () => {
  const Ctor = addon.NftSocket as unknown as new (...a: unknown[]) => unknown;
  assert.throws(() => new Ctor(42), TypeError);
  assert.throws(() => new Ctor({}), TypeError);
  assert.throws(() => new Ctor(''), RangeError);
  assert.throws(() => new Ctor('/run/netns/kpn-does-not-exist'), (e: any) => e.errno === 2 && /open netns/.test(e.message));
  await withSocket(async (sock) => {
    const s = sock as unknown as Record<string, (...a: unknown[]) => unknown>;
    assert.throws(() => s.commit('not a buffer'), TypeError);
    assert.throws(() => s.commit(), TypeError);
    assert.throws(() => s.commit(Buffer.from('nope')), RangeError);
    assert.throws(() => s.dumpTable('ip', T), TypeError);
    assert.throws(() => s.dumpTable(3, T), RangeError);
    assert.throws(() => s.dumpTable(IP, ''), RangeError);
    assert.throws(() => s.dumpTable(IP, 5), TypeError);
    assert.deepEqual(await sock.commit(txn([])), { messages: 0, sends: 0, bytes: 0 });
  });
});

test('one operation at a time per socket, and nothing after close()', async () => {
  await withNetns(async (ns) => {
    const sock = new addon.NftSocket(ns.path);
    const first = sock.commit(baseRuleset());
    assert.throws(() => sock.listTables(), /another operation is in progress/);
    sock.close();  // deferred until the commit finishes
    await first;
    assert.throws(() => sock.listTables(), /closed/);
    assert.throws(() => sock.commit(txn([])), /closed/);
    sock.close();
    assert.equal(JSON.stringify(ns.nftJson()).includes(T), true);
  });
});

test('a socket without a netns path stays in the current namespace (read-only here)', async () => {
  await withSocket(async (nsSock) => {
    await nsSock.commit(baseRuleset());
    const host = new addon.NftSocket(null);
    try {
      const tables = await host.listTables();
      assert.ok(!tables.some((t) => t.name === T), 'the netns table is not visible from the host');
    } finally {
      host.close();
    }
  });
});

test('delete and flush ops: elements, set, rule by handle, chain', async () => {
  await withSocket(async (sock, ns) => {
    await sock.commit(baseRuleset());
    await sock.commit(txn([addSet('a'), addSet('b'), addElems('a', keys(1, 5)), addElems('b', keys(1, 2)),
      rule(IP, T, 'svc', [ex.counter()]), rule(IP, T, 'svc', [ex.verdict(V.RETURN)])]));
    const delElems = op(OP.DEL_ELEMS, (() => {
      const w = head(IP, T).str('a').u32(0).u32(2);
      for (const k of [ipKey(2), ipKey(4)]) w.blob(k).blob([]).u32(0).u8(0).u64(0);
      return w.done();
    })());
    const svcRules = (await sock.dumpTable(IP, T)).rules.filter((r: any) => r.chain === 'svc');
    await sock.commit(txn([
      delElems,
      op(OP.FLUSH_SET, head(IP, T).str('b').done()),
      op(OP.DEL_RULE, head(IP, T).str('svc').u64(svcRules[0].handle).done()),
    ]));
    let d = await sock.dumpTable(IP, T);
    const elems = (name: string) => d.sets.find((s: any) => s.name === name).elements.map((e: any) => e.key.toString('hex')).sort();
    assert.deepEqual(elems('a'), ['0a000001', '0a000003', '0a000005']);
    assert.deepEqual(elems('b'), []);
    assert.deepEqual(d.rules.filter((r: any) => r.chain === 'svc').map((r: any) => r.exprs), [['immediate']]);
    await sock.commit(txn([
      op(OP.DEL_SET, head(IP, T).str('b').done()),
      op(OP.FLUSH_CHAIN, head(IP, T).str('input').done()),
      op(OP.FLUSH_CHAIN, head(IP, T).str('svc').done()),
      op(OP.DEL_CHAIN, head(IP, T).str('svc').done()),
    ]));
    d = await sock.dumpTable(IP, T);
    assert.deepEqual(d.sets.map((s: any) => s.name), ['a']);
    assert.deepEqual(d.chains.map((c: any) => c.name), ['input']);
    assert.deepEqual(d.rules, []);
    assert.deepEqual(summary(ns).sort(), ['chain input input', 'set a 3', `table ip ${T}`]);
  });
});

void W;
