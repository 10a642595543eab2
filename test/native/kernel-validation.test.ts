// When the kernel validates a whole nftables table at commit, shown on the running kernel
// (docs/nftables-ruleset.md, "When the kernel validates the whole table").
//
// nf_tables marks a table for validation when a transaction adds a rule holding an expression with
// a validate op (immediate, i.e. any verdict or constant, lookup, meta, nat, masq, reject, fib,
// objref) or a jump/goto element to a verdict map that a rule looks up. The commit then walks every
// chain reachable from the table's base chains and every element of the verdict maps those chains
// look up (nf_tables_validate -> nft_table_validate). Nothing else marks it: elements of data maps
// and plain sets, verdict-map elements without a jump, and deletions commit without the walk.
//
// 1. Timing: a table whose verdict map holds DESTINATIONS elements (each `goto` one of four chains)
//    next to a data map and a plain set of the same size. Each change is committed REPS times (and
//    undone in a commit of its own), interleaved; the least time of each is compared. A commit that
//    validates walks DESTINATIONS elements once per hook reaching the map (tens of ms); the others
//    cost a netlink round trip (well under 1 ms).
// 2. Behaviour: the walk goes through verdict-map elements and starts at base chains only: a chain
//    holding `masquerade` (valid in nat postrouting only) is accepted while nothing reaches it, and
//    from a postrouting map; a goto to it from a prerouting map is refused with EOPNOTSUPP.
// 3. Since 8e1a1bc4f5a4 (6.19, 6.18.y stable) a chain already validated for the same hook at the same
//    or a greater depth is not walked again (nft_chain_vstate_valid): a map of M gotos to a chain that
//    looks up another map of M gotos costs 2M element visits, not M + M * M.
import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import { ElementBatch, NetlinkError, Nft, rule, Transaction, type SetSpec } from '../../src/native';
import { withNetns } from '../helpers/netns';

const DESTINATIONS = 150_000;
const REPS = 7;
const T = 'kpn-validate';
const OTHER = 'kpn-validate-other';
const SELECT_CHAINS = 4;

const KEY = ['ipv4_addr', 'inet_proto', 'inet_service'] as SetSpec['key'];
const VMAP: SetSpec = { name: 'endpoint-chains', key: KEY, map: 'verdict' };
const DATA: SetSpec = { name: 'endpoints', key: KEY, map: ['ipv4_addr', 'inet_service'] };
const PLAIN: SetSpec = { name: 'cluster-ip-ports', key: KEY };
const UNBOUND: SetSpec = { name: 'unbound-chains', key: KEY, map: 'verdict' };
const SPARE_SET: SetSpec = { name: 'spare', key: ['ipv4_addr'] };
const OTHER_VMAP: SetSpec = { name: 'chains', key: ['ipv4_addr'], map: 'verdict' };
const DST = ['daddr', 'l4proto', 'dport'] as const;

function ipOf(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

/** [major, minor, patch] of the running kernel. */
function kernelRelease(): [number, number, number] {
  const m = /^(\d+)\.(\d+)(?:\.(\d+))?/.exec(os.release());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : [0, 0, 0];
}
const atLeast = (v: [number, number, number], [a, b, c]: [number, number, number]) =>
  v[0] !== a ? v[0] > a : v[1] !== b ? v[1] > b : v[2] >= c;

async function timed(nft: Nft, tx: Transaction): Promise<number> {
  const t0 = process.hrtime.bigint();
  await nft.commit(tx);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function bigTable(): Transaction {
  const tx = new Transaction().addTable('ip', T);
  tx.addChain('ip', T, { name: 'nat-prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100 } });
  tx.addChain('ip', T, { name: 'nat-output', base: { type: 'nat', hook: 'output', priority: -100 } });
  tx.addChain('ip', T, { name: 'dispatch' });
  tx.addChain('ip', T, { name: 'scratch' });
  for (let c = 0; c < SELECT_CHAINS; c++) tx.addChain('ip', T, { name: `select-${c}` });
  for (const s of [VMAP, DATA, PLAIN, UNBOUND]) tx.addSet('ip', T, s);
  tx.addRule('ip', T, 'nat-prerouting', rule('ip').jump('dispatch').build());
  tx.addRule('ip', T, 'nat-output', rule('ip').jump('dispatch').build());
  tx.addRule('ip', T, 'dispatch', rule('ip').lookup([...DST], PLAIN.name).counter().build());
  tx.addRule('ip', T, 'dispatch', rule('ip').vmap([...DST], VMAP.name).build());
  tx.addRule('ip', T, 'dispatch', rule('ip').dnatMap([...DST], DATA.name).build());
  for (let c = 0; c < SELECT_CHAINS; c++) {
    tx.addRule('ip', T, `select-${c}`, rule('ip').l4proto('tcp').dnat(`10.200.0.${c + 1}`, 8080).build());
  }
  const [v, d, p] = [new ElementBatch(VMAP), new ElementBatch(DATA), new ElementBatch(PLAIN)];
  for (let i = 0; i < DESTINATIONS; i++) {
    v.add({ key: [ipOf(i), 'tcp', 80], verdict: { kind: 'goto', chain: `select-${i % SELECT_CHAINS}` } });
    d.add({ key: [ipOf(i), 'tcp', 81], data: [ipOf(i), 8080] });
    p.add({ key: [ipOf(i), 'tcp', 82] });
  }
  tx.addElementBatch('ip', T, v).addElementBatch('ip', T, d).addElementBatch('ip', T, p);

  tx.addTable('ip', OTHER);
  tx.addChain('ip', OTHER, { name: 'nat-prerouting', base: { type: 'nat', hook: 'prerouting', priority: -90 } });
  tx.addChain('ip', OTHER, { name: 'target' });
  tx.addSet('ip', OTHER, OTHER_VMAP);
  tx.addRule('ip', OTHER, 'nat-prerouting', rule('ip').vmap(['daddr'], OTHER_VMAP.name).build());
  return tx;
}

interface Change { label: string; validates: 'yes' | 'no' | 'per-table'; apply: (i: number) => Transaction; undo: (i: number) => Transaction }

const fresh = (i: number) => [ipOf(DESTINATIONS + i), 'tcp', 80];
const onSet = (s: SetSpec, table = T) => new Transaction().declareSet('ip', table, s);
const CHANGES: Change[] = [
  { label: 'plain-set element', validates: 'no',
    apply: (i) => onSet(PLAIN).addElements('ip', T, PLAIN.name, [{ key: fresh(i) }]),
    undo: (i) => onSet(PLAIN).deleteElements('ip', T, PLAIN.name, [{ key: fresh(i) }]) },
  { label: 'data-map element', validates: 'no',
    apply: (i) => onSet(DATA).addElements('ip', T, DATA.name, [{ key: fresh(i), data: ['10.201.0.1', 8080] }]),
    undo: (i) => onSet(DATA).deleteElements('ip', T, DATA.name, [{ key: fresh(i), data: ['10.201.0.1', 8080] }]) },
  { label: 'verdict-map element, accept', validates: 'no',
    apply: (i) => onSet(VMAP).addElements('ip', T, VMAP.name, [{ key: fresh(i), verdict: { kind: 'accept' } }]),
    undo: (i) => onSet(VMAP).deleteElements('ip', T, VMAP.name, [{ key: fresh(i), verdict: { kind: 'accept' } }]) },
  { label: 'verdict-map element, goto', validates: 'yes',
    apply: (i) => onSet(VMAP).addElements('ip', T, VMAP.name, [{ key: fresh(i), verdict: { kind: 'goto', chain: 'select-1' } }]),
    undo: (i) => onSet(VMAP).deleteElements('ip', T, VMAP.name, [{ key: fresh(i), verdict: { kind: 'goto', chain: 'select-1' } }]) },
  { label: 'goto element of a map no rule looks up', validates: 'no',
    apply: (i) => onSet(UNBOUND).addElements('ip', T, UNBOUND.name, [{ key: fresh(i), verdict: { kind: 'goto', chain: 'select-1' } }]),
    undo: (i) => onSet(UNBOUND).deleteElements('ip', T, UNBOUND.name, [{ key: fresh(i), verdict: { kind: 'goto', chain: 'select-1' } }]) },
  { label: 'rule: counter (unreachable)', validates: 'no',
    apply: () => new Transaction().addRule('ip', T, 'scratch', rule('ip').counter().build()),
    undo: () => new Transaction().flushChain('ip', T, 'scratch') },
  { label: 'rule: ip daddr, counter (unreachable)', validates: 'no',
    apply: () => new Transaction().addRule('ip', T, 'scratch', rule('ip').daddr('10.201.0.1').counter().build()),
    undo: () => new Transaction().flushChain('ip', T, 'scratch') },
  { label: 'rule: meta l4proto, counter (unreachable)', validates: 'yes',
    apply: () => new Transaction().addRule('ip', T, 'scratch', rule('ip').l4proto('tcp').counter().build()),
    undo: () => new Transaction().flushChain('ip', T, 'scratch') },
  { label: 'rule: return (unreachable)', validates: 'yes',
    apply: () => new Transaction().addRule('ip', T, 'scratch', rule('ip').verdict({ kind: 'return' }).build()),
    undo: () => new Transaction().flushChain('ip', T, 'scratch') },
  { label: 'rule: tcp dnat (unreachable)', validates: 'yes',
    apply: () => new Transaction().addRule('ip', T, 'scratch', rule('ip').l4proto('tcp').dnat('10.201.0.1', 8080).build()),
    undo: () => new Transaction().flushChain('ip', T, 'scratch') },
  { label: 'empty chain and unbound set', validates: 'no',
    apply: () => new Transaction().addChain('ip', T, { name: 'spare' }).addSet('ip', T, SPARE_SET),
    undo: () => new Transaction().deleteChain('ip', T, 'spare').deleteSet('ip', T, SPARE_SET.name) },
  { label: 'goto element in another table', validates: 'per-table',
    apply: (i) => onSet(OTHER_VMAP, OTHER).addElements('ip', OTHER, OTHER_VMAP.name, [{ key: [ipOf(i)], verdict: { kind: 'goto', chain: 'target' } }]),
    undo: (i) => onSet(OTHER_VMAP, OTHER).deleteElements('ip', OTHER, OTHER_VMAP.name, [{ key: [ipOf(i)], verdict: { kind: 'goto', chain: 'target' } }]) },
];

test(`a goto element or a rule makes the commit walk a ${DESTINATIONS}-element verdict map; data and plain elements and deletions do not`, async (t) => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      const t0 = process.hrtime.bigint();
      const table = bigTable();
      const encode = Number(process.hrtime.bigint() - t0) / 1e6;
      const build = await timed(nft, table);
      const times = new Map(CHANGES.map((c) => [c.label, { apply: [] as number[], undo: [] as number[] }]));
      for (let i = 0; i < REPS; i++) {
        for (const c of CHANGES) {
          const m = times.get(c.label)!;
          m.apply.push(await timed(nft, c.apply(i)));
          m.undo.push(await timed(nft, c.undo(i)));
        }
      }
      const least = (xs: number[]) => Math.min(...xs);
      const applied = (label: string) => least(times.get(label)!.apply);
      t.diagnostic(`kernel ${os.release()}, ${DESTINATIONS} destinations, table encoded in ${encode.toFixed(0)} ms, committed in ${build.toFixed(0)} ms; least of ${REPS} commits (ms):`);
      for (const c of CHANGES) {
        const m = times.get(c.label)!;
        t.diagnostic(`  ${c.label.padEnd(42)} add ${least(m.apply).toFixed(3).padStart(8)}   delete ${least(m.undo).toFixed(3).padStart(8)}`);
      }

      const walk = applied('verdict-map element, goto');
      const plain = applied('plain-set element');
      assert.ok(walk >= 5 * plain, `a goto element (${walk.toFixed(3)} ms) should cost at least 5x a plain element (${plain.toFixed(3)} ms)`);
      for (const c of CHANGES) {
        const m = times.get(c.label)!;
        if (c.validates === 'yes') {
          assert.ok(least(m.apply) >= 5 * plain, `${c.label}: ${least(m.apply).toFixed(3)} ms, not 5x a plain element (${plain.toFixed(3)} ms)`);
        }
        if (c.validates === 'no') {
          assert.ok(least(m.apply) * 5 <= walk, `${c.label}: ${least(m.apply).toFixed(3)} ms, not a fifth of the walk (${walk.toFixed(3)} ms)`);
        }
        // Deleting never marks the table, whatever is deleted.
        assert.ok(least(m.undo) * 5 <= walk, `deleting (${c.label}): ${least(m.undo).toFixed(3)} ms, not a fifth of the walk (${walk.toFixed(3)} ms)`);
      }
      // Per-table state since v6.4 (00c320f9b755; listed for 5.15.133, but Debian 12's 6.1.192 has it
      // not): a goto in another table of the namespace does not walk this one. Before it, every table
      // of the namespace was validated.
      const other = applied('goto element in another table');
      if (atLeast(kernelRelease(), [6, 4, 0])) {
        assert.ok(other * 5 <= walk, `a goto in another table (${other.toFixed(3)} ms) walked this table (${walk.toFixed(3)} ms)`);
      } else {
        t.diagnostic(`kernel before 6.4: a goto in another table took ${other.toFixed(3)} ms (per-namespace validation state if it is close to ${walk.toFixed(3)} ms)`);
      }

      // Every change was undone: the fresh keys are gone, the scratch chain is empty.
      const keys = Array.from({ length: REPS }, (_, i) => fresh(i));
      for (const s of [PLAIN, DATA, VMAP, UNBOUND]) {
        assert.deepEqual((await nft.getElements('ip', T, s, keys)).filter((e) => e.element), [], s.name);
      }
      const dump = await nft.dumpTable('ip', T, { elements: false });
      assert.equal(dump.rules.filter((r) => r.chain === 'scratch').length, 0);
    } finally {
      nft.close();
    }
  });
});

test('validation follows verdict-map elements from base chains only: a goto to a masquerade chain from prerouting is refused', async () => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    const H = 'kpn-validate-hooks';
    const PRE: SetSpec = { name: 'pre-map', key: ['ipv4_addr'], map: 'verdict' };
    const POST: SetSpec = { name: 'post-map', key: ['ipv4_addr'], map: 'verdict' };
    try {
      // The masquerade rule marks the table; the walk does not reach `masq`, so nothing is refused.
      const tx = new Transaction().addTable('ip', H);
      tx.addChain('ip', H, { name: 'nat-prerouting', base: { type: 'nat', hook: 'prerouting', priority: -100 } });
      tx.addChain('ip', H, { name: 'nat-postrouting', base: { type: 'nat', hook: 'postrouting', priority: 100 } });
      tx.addChain('ip', H, { name: 'masq' });
      tx.addSet('ip', H, PRE).addSet('ip', H, POST);
      tx.addRule('ip', H, 'nat-prerouting', rule('ip').vmap(['daddr'], PRE.name).build());
      tx.addRule('ip', H, 'nat-postrouting', rule('ip').vmap(['daddr'], POST.name).build());
      tx.addRule('ip', H, 'masq', rule('ip').masquerade().build());
      await nft.commit(tx);

      await nft.commit(new Transaction().declareSet('ip', H, POST)
        .addElements('ip', H, POST.name, [{ key: ['10.0.0.1'], verdict: { kind: 'goto', chain: 'masq' } }]));

      const bad = new Transaction().declareSet('ip', H, PRE)
        .addElements('ip', H, PRE.name, [{ key: ['10.0.0.2'], verdict: { kind: 'goto', chain: 'masq' } }]);
      await assert.rejects(nft.commit(bad), (e: unknown) => {
        assert.ok(e instanceof NetlinkError, String(e));
        assert.equal(e.code, 'EOPNOTSUPP');
        assert.equal(e.opIndex, 0, 'the replayed batch names the element');
        return true;
      });
      await assert.rejects(nft.commit(new Transaction().addRule('ip', H, 'nat-prerouting', rule('ip').jump('masq').build())),
        (e: unknown) => e instanceof NetlinkError && e.code === 'EOPNOTSUPP');

      await nft.commit(new Transaction().declareSet('ip', H, PRE)
        .addElements('ip', H, PRE.name, [{ key: ['10.0.0.2'], verdict: { kind: 'accept' } }]));
      const dump = await nft.dumpTable('ip', H);
      assert.deepEqual(dump.sets.find((s) => s.name === PRE.name)?.elements.map((e) => e.verdict), [{ kind: 'accept' }]);
      assert.deepEqual(dump.sets.find((s) => s.name === POST.name)?.elements.map((e) => e.verdict), [{ kind: 'goto', chain: 'masq' }]);
    } finally {
      nft.close();
    }
  });
});

test('a chain reached through many verdict-map elements is validated once, not once per element (nft_chain_vstate: 6.19, 6.18.y)', async (t) => {
  const M = 1000;
  const N = 'kpn-validate-nested';
  const OUTER: SetSpec = { name: 'outer', key: ['ipv4_addr'], map: 'verdict' };
  const INNER: SetSpec = { name: 'inner', key: ['ipv4_addr'], map: 'verdict' };
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      const tx = new Transaction().addTable('ip', N);
      tx.addChain('ip', N, { name: 'filter-prerouting', base: { type: 'filter', hook: 'prerouting', priority: 0 } });
      for (const c of ['middle', 'leaf', 'scratch']) tx.addChain('ip', N, { name: c });
      tx.addSet('ip', N, OUTER).addSet('ip', N, INNER);
      tx.addRule('ip', N, 'filter-prerouting', rule('ip').vmap(['daddr'], OUTER.name).build());
      tx.addRule('ip', N, 'middle', rule('ip').vmap(['saddr'], INNER.name).build());
      tx.addRule('ip', N, 'leaf', rule('ip').counter().build());
      const [o, i] = [new ElementBatch(OUTER), new ElementBatch(INNER)];
      for (let k = 0; k < M; k++) {
        o.add({ key: [ipOf(k)], verdict: { kind: 'goto', chain: 'middle' } });
        i.add({ key: [ipOf(k)], verdict: { kind: 'goto', chain: 'leaf' } });
      }
      await nft.commit(tx.addElementBatch('ip', N, o).addElementBatch('ip', N, i));
      const runs: number[] = [];
      for (let k = 0; k < 5; k++) {
        runs.push(await timed(nft, new Transaction().addRule('ip', N, 'scratch', rule('ip').verdict({ kind: 'return' }).build())));
        await nft.commit(new Transaction().flushChain('ip', N, 'scratch'));
      }
      const least = Math.min(...runs);
      t.diagnostic(`kernel ${os.release()}: validating ${M} gotos to a chain that looks up ${M} gotos took ${least.toFixed(3)} ms`
        + ` (${2 * M} element visits with the per-chain state, ${M + M * M} without)`);
      const release = kernelRelease();
      // 8e1a1bc4f5a4 is in 6.19 and in 6.18.y since January 2026 (read in 6.18.32's source).
      if (atLeast(release, [6, 19, 0]) || (release[0] === 6 && release[1] === 18 && release[2] >= 32)) {
        assert.ok(least < 25, `${least.toFixed(3)} ms: the middle chain was walked once per outer element`);
      }
    } finally {
      nft.close();
    }
  });
});
