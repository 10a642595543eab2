// Keeps FakeKernel honest: the same transactions, in order, against the kernel (in a fresh
// namespace) and the fake. After each, both must agree on the outcome (every refused op's errno
// and index), on the tables that exist, on every table's dump (chains with their hooks, rules
// with their expressions, sets with their attributes and elements, keys byte for byte) and on
// whether the generation moved. Handles are left out: the kernel spends them on refused batches.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NetlinkError, Nft, type TableDump, type Transaction } from '../../src/native';
import { FakeKernel, type FakeNft } from '../../src/native/testing';
import { createNetns, type TestNetns } from '../helpers/netns';
import { STEPS, T, type Side } from './fake-vs-kernel-steps';

type Handle = Pick<Nft, 'commit' | 'dumpTable' | 'listTables' | 'generation'>;

async function outcome(nft: Handle, tx: Transaction): Promise<{ code: string; errors: string[] }> {
  try {
    await nft.commit(tx);
    return { code: 'ok', errors: [] };
  } catch (e) {
    if (!(e instanceof NetlinkError)) throw e;
    return { code: e.code, errors: e.errors.map((x) => `${x.code} at op ${x.opIndex}`) };
  }
}

const hex = (b?: Buffer) => b?.toString('hex');

/** A dump without handles, elements sorted by key (hash sets list them in no particular order). */
function normalized(d: TableDump): unknown {
  return {
    chains: d.chains.map(({ handle: _, ...c }) => c),
    rules: d.rules.map(({ handle: _, ...r }) => r),
    sets: d.sets.map((s) => ({
      ...s,
      elements: s.elements.map((e) => ({ ...e, key: hex(e.key), keyEnd: hex(e.keyEnd), data: hex(e.data) }))
        .sort((a, b) => `${a.key}/${a.flags}`.localeCompare(`${b.key}/${b.flags}`)),
    })),
  };
}

async function state(nft: Handle): Promise<unknown> {
  const tables = (await nft.listTables()).map((t) => `${t.family} ${t.name}`).sort();
  const dumps: Record<string, unknown> = {};
  for (const t of tables) {
    const [family, name] = t.split(' ') as ['ip' | 'ip6', string];
    dumps[t] = normalized(await nft.dumpTable(family, name));
  }
  return { tables, dumps };
}

function side(nft: Handle): Side {
  return {
    ruleHandle: async (chain, index) => (await nft.dumpTable('ip', T, { elements: false })).rules.filter((r) => r.chain === chain)[index].handle,
  };
}

describe('FakeKernel against the kernel, one transaction after another', () => {
  let ns: TestNetns;
  let kernel: Nft;
  let fake: FakeNft;
  before(() => {
    ns = createNetns('kpn-fake');
    kernel = Nft.open({ netns: ns.path });
    fake = new FakeKernel().open();
  });
  after(() => { kernel?.close(); ns?.destroy(); });

  for (const step of STEPS) {
    it(step.name, async () => {
      const genK = await kernel.generation();
      const genF = await fake.generation();
      const real = await outcome(kernel, await step.build(side(kernel)));
      const faked = await outcome(fake, await step.build(side(fake)));
      assert.equal(real.code, step.expect, `the kernel answered ${JSON.stringify(real)}`);
      assert.deepEqual(faked, real);
      assert.deepEqual(await state(fake), await state(kernel));
      assert.equal((await fake.generation()) - genF, (await kernel.generation()) - genK, 'generation moved on one side only');
    });
  }
});
