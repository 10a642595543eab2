// The apply step over a scripted Nft: one transaction per table that has upstream's chains, no
// commit for a table without them, tables that do not exist skipped, and a commit refused because
// another program changed the table meanwhile (ENOENT, EBUSY) dumped, planned and tried once more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NetlinkError, type TableDump, type Transaction } from '../../src/native';
import { cleanupUpstreamIptables } from '../../src/cleanup/upstream-iptables';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const NAT: TableDump = {
  chains: [{ name: 'PREROUTING', handle: 1, hook: 'prerouting', priority: -100 }, { name: 'KUBE-SERVICES', handle: 2 }],
  rules: [{ chain: 'PREROUTING', handle: 3, exprs: ['immediate'], jumps: ['KUBE-SERVICES'] }],
  sets: [],
};
const FILTER: TableDump = { chains: [{ name: 'INPUT', handle: 1, hook: 'input', priority: 0 }], rules: [], sets: [] };

function scriptedNft(commitErrors: number[]) {
  const commits: string[][] = [];
  return {
    commits,
    dumpTable: async (family: string, name: string) => {
      if (family === 'ip' && name === 'nat') return NAT;
      if (family === 'ip' && name === 'filter') return FILTER;
      throw new NetlinkError(2, -1, '');
    },
    commit: async (tx: Transaction) => {
      commits.push(tx.opRecords().map((o) => o.op));
      const errno = commitErrors.shift();
      if (errno) throw new NetlinkError(errno, 0, 'delete rule ip nat PREROUTING handle 3');
      return { messages: 0, sends: 1, bytes: 0 };
    },
  };
}

test('one transaction for the table with upstream\'s chains; none for the others', async () => {
  const nft = scriptedNft([]);
  const r = await cleanupUpstreamIptables(nft, quiet);
  assert.deepEqual(nft.commits, [['deleteRule', 'flushChain', 'deleteChain']]);
  assert.deepEqual(r, {
    tables: [{ table: 'ip nat', deletedChains: ['KUBE-SERVICES'], deletedRulesInChains: 0, deletedJumps: 1, keptChains: [] }],
    failed: [],
  });
});

test('a commit that lost a race is planned and tried once more', async () => {
  const nft = scriptedNft([2]);
  const r = await cleanupUpstreamIptables(nft, quiet);
  assert.equal(nft.commits.length, 2);
  assert.deepEqual(r.failed, []);
  assert.equal(r.tables.length, 1);
});

test('still refused the second time: a failure naming the table', async () => {
  const nft = scriptedNft([16, 16]);
  const r = await cleanupUpstreamIptables(nft, quiet);
  assert.equal(nft.commits.length, 2);
  assert.equal(r.failed.length, 1);
  assert.match(r.failed[0].what, /ip nat/);
  assert.match(r.failed[0].error, /EBUSY/);
});

test('any other refusal is not retried', async () => {
  const nft = scriptedNft([1]);
  const r = await cleanupUpstreamIptables(nft, quiet);
  assert.equal(nft.commits.length, 1);
  assert.equal(r.failed.length, 1);
});
