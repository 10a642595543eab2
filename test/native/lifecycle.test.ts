// Objects change over several transactions: elements added and deleted, chains, sets and tables
// flushed and deleted, rules deleted by handle; dumpTable reports what the kernel holds.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Nft, rule, SetSpec, Transaction } from '../../src/native';
import { createNetns, TestNetns } from '../helpers/netns';
import { normalizeRuleset, objectsOf } from './ruleset-json';

const T = 'life';
const CIDRS: SetSpec = { name: 'cidrs', key: ['ipv4_addr'], interval: true };
const SVC: SetSpec = { name: 'svc', key: ['ipv4_addr', 'inet_proto', 'inet_service'], map: 'verdict' };
const MARKS: SetSpec = { name: 'marks', key: ['mark'] };
const IFACES: SetSpec = { name: 'ifaces', key: ['ifname'] };

let ns: TestNetns;
let nft: Nft;

before(async () => {
  ns = createNetns();
  nft = Nft.open({ netns: ns.path });
  const tx = new Transaction();
  tx.addTable('ip', T);
  tx.addChain('ip', T, { name: 'in', base: { type: 'filter', hook: 'input', priority: 5, policy: 'drop' } });
  tx.addChain('ip', T, { name: 'a' });
  tx.addChain('ip', T, { name: 'b' });
  for (const s of [CIDRS, SVC, MARKS, IFACES]) tx.addSet('ip', T, s);
  tx.addElements('ip', T, 'cidrs', [{ key: ['10.0.0.0/8'] }, { key: ['192.168.0.0/16'] }]);
  tx.addElements('ip', T, 'svc', [{ key: ['10.0.0.1', 'tcp', 80], verdict: { kind: 'jump', chain: 'a' } }]);
  tx.addElements('ip', T, 'marks', [{ key: [0x4000] }]);
  tx.addElements('ip', T, 'ifaces', [{ key: ['eth0'] }]);
  tx.addRule('ip', T, 'in', rule('ip').vmap(['daddr', 'l4proto', 'dport'], 'svc').build());
  tx.addRule('ip', T, 'a', rule('ip').saddrInSet('cidrs').counter().verdict({ kind: 'accept' }).build());
  tx.addRule('ip', T, 'a', rule('ip').verdict({ kind: 'jump', chain: 'b' }).build());
  tx.addRule('ip', T, 'b', rule('ip').verdict({ kind: 'return' }).build());
  await nft.commit(tx);
});
after(() => {
  nft?.close();
  ns?.destroy();
});

const listSet = (name: string) => [...objectsOf(ns.nftJson(), 'set'), ...objectsOf(ns.nftJson(), 'map')].find((s) => s.name === name);
const known = () => new Transaction().declareSet('ip', T, CIDRS).declareSet('ip', T, SVC);

test('dumpTable returns the chains, rules and sets that were committed', async () => {
  const d = await nft.dumpTable('ip', T);
  const input = d.chains.find((c) => c.name === 'in');
  assert.deepEqual({ ...input, handle: 0 }, { name: 'in', handle: 0, hook: 'input', priority: 5, type: 'filter', policy: 'drop' });
  assert.deepEqual(d.chains.map((c) => c.name).sort(), ['a', 'b', 'in']);
  assert.deepEqual(d.rules.map((r) => [r.chain, r.exprs]), [
    ['in', ['payload', 'meta', 'payload', 'lookup']],
    ['a', ['payload', 'lookup', 'counter', 'immediate']],
    ['a', ['immediate']],
    ['b', ['immediate']],
  ]);
  const svc = d.sets.find((s) => s.name === 'svc')!;
  assert.equal(svc.keyLen, 12);
  assert.equal(svc.flags & 0x8, 0x8);
  assert.deepEqual(svc.elements.map((e) => [[...e.key], e.verdict]), [
    [[10, 0, 0, 1, 6, 0, 0, 0, 0, 80, 0, 0], { kind: 'jump', chain: 'a' }],
  ]);
  // Host-order mark and NUL-padded ifname, as the kernel compares them with meta mark / iifname.
  assert.deepEqual([...d.sets.find((s) => s.name === 'marks')!.elements[0].key], [...Buffer.from(new Uint32Array([0x4000]).buffer)]);
  const ifname = Buffer.alloc(16);
  ifname.write('eth0');
  assert.deepEqual(d.sets.find((s) => s.name === 'ifaces')!.elements[0].key, ifname);
  const cidrs = d.sets.find((s) => s.name === 'cidrs')!;
  const keys = cidrs.elements.map((e) => `${[...e.key].join('.')}${e.flags & 1 ? ' end' : ''}`).sort();
  assert.deepEqual(keys, ['0.0.0.0 end', '10.0.0.0', '11.0.0.0 end', '192.168.0.0', '192.169.0.0 end']);
  assert.deepEqual(await nft.listTables(), [{ family: 'ip', name: T }]);
});

test('dumpTable with elements: false lists the same sets without their elements', async () => {
  const full = await nft.dumpTable('ip', T);
  const bare = await nft.dumpTable('ip', T, { elements: false });
  assert.deepEqual(bare.sets.map((s) => ({ ...s, elements: [] })), full.sets.map((s) => ({ ...s, elements: [] })));
  assert.ok(full.sets.some((s) => s.elements.length > 0));
  assert.ok(bare.sets.every((s) => s.elements.length === 0));
  assert.deepEqual(bare.chains, full.chains);
});

test('elements are added and deleted, in plain maps and interval sets', async () => {
  await nft.commit(known()
    .addElements('ip', T, 'svc', [{ key: ['10.0.0.2', 'udp', 53], verdict: { kind: 'goto', chain: 'b' } }])
    .addElements('ip', T, 'cidrs', [{ key: ['172.16.0.0/12'] }])
    .deleteElements('ip', T, 'svc', [{ key: ['10.0.0.1', 'tcp', 80], verdict: { kind: 'jump', chain: 'a' } }])
    .deleteElements('ip', T, 'cidrs', [{ key: ['10.0.0.0/8'] }]));
  assert.deepEqual(listSet('svc').elem, [[{ concat: ['10.0.0.2', 'udp', 53] }, { goto: { target: 'b' } }]]);
  assert.deepEqual(listSet('cidrs').elem, [{ prefix: { addr: '172.16.0.0', len: 12 } }, { prefix: { addr: '192.168.0.0', len: 16 } }]);
});

test('a rule is deleted by the handle dumpTable reports', async () => {
  const before = await nft.dumpTable('ip', T);
  const jump = before.rules.find((r) => r.chain === 'a' && r.exprs.length === 1)!;
  await nft.commit(new Transaction().deleteRule('ip', T, 'a', jump.handle));
  const afterDump = await nft.dumpTable('ip', T);
  assert.deepEqual(afterDump.rules.filter((r) => r.chain === 'a').map((r) => r.handle),
    before.rules.filter((r) => r.chain === 'a' && r.handle !== jump.handle).map((r) => r.handle));
});

test('flush and delete of chains and sets', async () => {
  // The map element jumping to b must go in the same batch, or b is still in use (EBUSY).
  await nft.commit(known()
    .deleteElements('ip', T, 'svc', [{ key: ['10.0.0.2', 'udp', 53], verdict: { kind: 'goto', chain: 'b' } }])
    .flushChain('ip', T, 'b').deleteChain('ip', T, 'b').flushSet('ip', T, 'cidrs'));
  const json = ns.nftJson();
  assert.deepEqual(objectsOf(json, 'chain').map((c) => c.name).sort(), ['a', 'in']);
  assert.equal(listSet('cidrs').elem, undefined);
  await nft.commit(new Transaction().flushChain('ip', T, 'a').deleteSet('ip', T, 'cidrs').deleteSet('ip', T, 'marks'));
  assert.equal(listSet('cidrs'), undefined);
  assert.equal(listSet('marks'), undefined);
  assert.equal(objectsOf(ns.nftJson(), 'rule').filter((r) => r.chain === 'a').length, 0);
});

test('flush table removes every rule and keeps chains; delete table removes it', async () => {
  await nft.commit(new Transaction().flushTable('ip', T));
  const json = ns.nftJson();
  assert.equal(objectsOf(json, 'rule').length, 0);
  assert.deepEqual(objectsOf(json, 'chain').map((c) => c.name).sort(), ['a', 'in']);
  await nft.commit(new Transaction().deleteTable('ip', T));
  assert.deepEqual(normalizeRuleset(ns.nftJson()), []);
  assert.deepEqual(await nft.listTables(), []);
});
