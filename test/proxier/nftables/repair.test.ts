// When the kernel may not hold what the mirror says (someone changed our table, a commit's outcome
// is unknown) the proxier reads the table and rewrites it; a refused change keeps what worked.
// On the fake kernel (no root); another handle on it plays the other process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NetlinkError, rule, Transaction } from '../../../src/native';
import { serviceChainNames } from '../../../src/proxier/nftables/names';
import { changed, ep, snapshot, sp } from './fixtures';
import { chainNames, elementsOf, freshFullSync, proxierOnFake, ruleset } from './fake-helpers';

const T = 'kube-proxy';
const svc1 = sp('svc1');
const aff = sp('aff', { clusterIP: '172.30.0.44', affinityTimeoutSeconds: 60 });
// IPv6 session affinity: the chains a ServicePort can have (affinity-chains.ts).
const aff6 = sp('aff6', { key: 'ns1/aff6:p80/TCP/IPv6', family: 'IPv6', clusterIP: 'fd00:30::44', affinityTimeoutSeconds: 60 });
const entries: Parameters<typeof snapshot>[0] = [[svc1, [ep('10.180.0.1'), ep('10.180.0.2')]], [aff, [ep('10.180.4.1')]], [aff6, [ep('fd00:10::4:1')]]];
const svcKey = ['ipv4_addr', 'inet_proto', 'inet_service'] as ['ipv4_addr', 'inet_proto', 'inet_service'];

test('after markDirty, the full sync reads our table and undoes every foreign change', async () => {
  const repairs: string[] = [];
  const { proxier, nft, kernel } = proxierOnFake({ metrics: { repairs: { inc: ({ reason }) => repairs.push(reason) } } });
  await proxier.sync(snapshot(entries), changed(), true);
  const before = ruleset(kernel);
  const affChain = serviceChainNames(aff6).cluster;
  const input = (await nft.dumpTable('ip', T)).chains.find((c) => c.name === 'filter-forward')!;
  await kernel.open().commit(new Transaction()
    .addChain('ip', T, { name: 'intruder', base: { type: 'filter', hook: 'prerouting', priority: -500, policy: 'drop' } })
    .addSet('ip', T, { name: 'foreign', key: ['ipv4_addr'] })
    .addChain('ip', T, { name: 'filter-forward', base: { type: 'filter', hook: 'forward', priority: input.priority!, policy: 'drop' } })
    .declareSet('ip', T, { name: 'cluster-ip-ports', key: svcKey })
    .deleteElements('ip', T, 'cluster-ip-ports', [{ key: ['172.30.0.41', 'tcp', 80] }])
    .declareSet('ip', T, { name: 'affinity-endpoints-60', key: [...svcKey, 'ipv4_addr', 'inet_service'] })
    .deleteElements('ip', T, 'affinity-endpoints-60', [{ key: ['172.30.0.44', 'tcp', 80, '10.180.4.1', 80] }])
    .declareSet('ip6', T, { name: 'service-ips', key: ['ipv6_addr', 'inet_proto', 'inet_service'], map: 'verdict' })
    .deleteElements('ip6', T, 'service-ips', [{ key: ['fd00:30::44', 'tcp', 80], verdict: { kind: 'goto', chain: affChain } }])
    .flushChain('ip6', T, affChain).deleteChain('ip6', T, affChain)
    .addRule('ip', T, 'services', rule('ip').daddr('172.30.0.41').verdict({ kind: 'drop' }).build()));
  assert.notEqual(ruleset(kernel), before);
  proxier.markDirty('foreign_change');
  assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
  assert.equal(ruleset(kernel), before);
  assert.equal((await nft.dumpTable('ip', T)).chains.find((c) => c.name === 'filter-forward')!.policy, 'accept');
  assert.deepEqual(repairs, ['foreign_change']);
});

test('a foreign change seen while a sync runs makes the next sync the repair, counted', async () => {
  // The guard's event can arrive while a sync is between its plan and its commit's reply (seen in
  // test/traffic/tamper under load: the in-flight sync ended, cleared needFull, and the next sync
  // was a partial one that neither re-read the table nor counted the repair).
  const repairs: string[] = [];
  const { proxier, nft, kernel } = proxierOnFake({ metrics: { repairs: { inc: ({ reason }) => repairs.push(reason) } } });
  await proxier.sync(snapshot(entries), changed(), true);
  const grown: Parameters<typeof snapshot>[0] = [[svc1, [ep('10.180.0.1'), ep('10.180.0.2'), ep('10.180.0.3')]], [aff, [ep('10.180.4.1')]]];
  const commit = nft.commit.bind(nft);
  // A partial sync (svc1 grows), then a full one (back): each time the other process changes our
  // table right after our commit, and the guard's markDirty comes before the sync has ended.
  for (const [full, target] of [[false, grown], [true, entries]] as const) {
    const what = full ? 'full' : 'partial';
    let tampered = false;
    nft.commit = async (tx) => {
      const stats = await commit(tx);
      if (!tampered) {
        tampered = true;
        await kernel.open().commit(new Transaction().addRule('ip', T, 'services', rule('ip').daddr('172.30.0.41').verdict({ kind: 'drop' }).build()));
        proxier.markDirty('foreign_change');
      }
      return stats;
    };
    assert.deepEqual(await proxier.sync(snapshot(target), changed(svc1.key), full), { full, ok: true }, what);
    nft.commit = commit;
    assert.ok(tampered, `the ${what} sync committed`);
    const want = await freshFullSync(target);
    assert.ok(ruleset(kernel) !== want, `the change landed after the ${what} sync's commit`);
    assert.deepEqual(await proxier.sync(snapshot(target), changed(), false), { full: true, ok: true }, `the sync after the ${what} one`);
    assert.ok(ruleset(kernel) === want, `repaired after a change during a ${what} sync`);
  }
  assert.deepEqual(repairs, ['foreign_change', 'foreign_change']);
});

test('a whole flushed or deleted table is rebuilt by the repair sync', async () => {
  const { proxier, kernel } = proxierOnFake();
  await proxier.sync(snapshot(entries), changed(), true);
  const before = ruleset(kernel);
  const other = kernel.open();
  const tampers: [string, () => Transaction][] = [
    ['flush table', () => new Transaction().flushTable('ip', T)],
    ['delete table', () => new Transaction().deleteTable('ip', T)],
    ['flush ruleset', () => new Transaction().deleteTable('ip', T).deleteTable('ip6', T)],
  ];
  for (const [what, tamper] of tampers) {
    await other.commit(tamper());
    assert.notEqual(ruleset(kernel), before, what);
    proxier.markDirty('foreign_change');
    assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true }, what);
    assert.equal(ruleset(kernel), before, what);
  }
});

test('an unknown commit outcome makes the next sync a full one that reads our table first', async () => {
  const repairs: string[] = [];
  const { proxier, nft, kernel } = proxierOnFake({ metrics: { repairs: { inc: ({ reason }) => repairs.push(reason) } } });
  await proxier.sync(snapshot(entries), changed(), true);
  const dumpsAfterStart = nft.dumps.length;
  // The partial sync adds svc2 (and its endpoint map); the kernel applies it, the reply is "lost".
  const svc2 = sp('svc2', { clusterIP: '172.30.0.42' });
  const grown: Parameters<typeof snapshot>[0] = [...entries, [svc2, [ep('10.180.1.1'), ep('10.180.1.2'), ep('10.180.1.3')]]];
  nft.loseNextReply();
  const r = await proxier.sync(snapshot(grown), changed(svc2.key), false);
  assert.equal(r.ok, false);
  assert.equal((r.error as NetlinkError).code, 'ENOBUFS');
  assert.ok(elementsOf(kernel, 'endpoints-3').length > 0, 'the lost batch was applied');
  // Shrinking back: a mirror that trusted the failure would think endpoints-3 never existed.
  assert.deepEqual(await proxier.sync(snapshot(entries), changed(svc2.key), false), { full: true, ok: true });
  assert.ok(nft.dumps.length > dumpsAfterStart, 'the repair sync listed our table');
  assert.deepEqual(repairs, ['unknown_outcome']);
  assert.equal(ruleset(kernel), await freshFullSync(entries));
  assert.doesNotMatch(ruleset(kernel), /endpoints-3/);
});

test('a set the kernel no longer holds, though the mirror does, is not deleted again by the repair sync', async () => {
  // An applied commit whose reply was lost deleted endpoint-2's map (svc1 down to one endpoint).
  const { proxier, nft, kernel } = proxierOnFake();
  await proxier.sync(snapshot(entries), changed(), true);
  const shrunk: Parameters<typeof snapshot>[0] = [[svc1, [ep('10.180.0.1')]], [aff, [ep('10.180.4.1')]]];
  nft.loseNextReply();
  assert.equal((await proxier.sync(snapshot(shrunk), changed(svc1.key), false)).ok, false);
  assert.ok(!(await nft.dumpTable('ip', T)).sets.some((s) => s.name === 'endpoints-2'), 'the lost batch was applied');
  assert.deepEqual(await proxier.sync(snapshot(shrunk), changed(), true), { full: true, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync(shrunk));
  // Another process deletes a map we hold (and the rules that use it), which the repair sync no longer wants.
  await kernel.open().commit(new Transaction().flushChain('ip', T, 'select-endpoint').deleteSet('ip', T, 'endpoints-1'));
  proxier.markDirty('foreign_change');
  assert.deepEqual(await proxier.sync(snapshot(entries), changed(svc1.key), false), { full: true, ok: true });
  assert.equal(ruleset(kernel), await freshFullSync(entries));
});

test('a ServicePort whose change fails validation keeps its previous rules, through full syncs too', async () => {
  const warnings: string[] = [];
  const log = { debug() {}, info() {}, error() {}, warn: (o: object, m: string) => warnings.push(`${m} ${JSON.stringify(o)}`) };
  const { proxier, kernel } = proxierOnFake({ log });
  await proxier.sync(snapshot(entries), changed(), true);
  const good = ruleset(kernel);
  const broken: Parameters<typeof snapshot>[0] = [[{ ...svc1, clusterIP: 'fd00::41' }, [ep('10.180.0.9')]], ...entries.slice(1)];
  assert.deepEqual(await proxier.sync(snapshot(broken), changed(svc1.key), false), { full: false, ok: true });
  assert.equal(ruleset(kernel), good);
  assert.match(proxier.refusedServicePorts().get(svc1.key)!, /clusterIP/);
  assert.match(warnings.join('\n'), /keeping the rules it had/);
  assert.deepEqual(await proxier.sync(snapshot(broken), changed(), true), { full: true, ok: true });
  assert.equal(ruleset(kernel), good);
  const fixed: Parameters<typeof snapshot>[0] = [[svc1, [ep('10.180.0.9')]], ...entries.slice(1)];
  assert.deepEqual(await proxier.sync(snapshot(fixed), changed(svc1.key), false), { full: false, ok: true });
  assert.match(elementsOf(kernel, 'endpoints-1').join(), /10\.180\.0\.9/);
  assert.equal(proxier.refusedServicePorts().size, 0);
});

test('a change the kernel refuses keeps the ServicePort\'s previous chains, also in a later full sync', async () => {
  const { proxier, kernel } = proxierOnFake();
  await proxier.sync(snapshot(entries), changed(), true);
  const good = ruleset(kernel);
  // A base chain where aff6's new external chain would go (it gains a NodePort): the kernel refuses the `goto` to it.
  const blockedChain = serviceChainNames(aff6).external;
  await kernel.open().commit(new Transaction().addChain('ip6', T, { name: blockedChain, base: { type: 'filter', hook: 'input', priority: 0 } }));
  const withBlocked = ruleset(kernel);
  const grown: Parameters<typeof snapshot>[0] = [entries[0], entries[1], [{ ...aff6, nodePort: 30099 }, [ep('fd00:10::4:1'), ep('fd00:10::4:2')]]];
  assert.deepEqual(await proxier.sync(snapshot(grown), changed(aff6.key), false), { full: false, ok: true });
  assert.deepEqual([...proxier.refusedServicePorts().keys()], [aff6.key]);
  assert.equal(ruleset(kernel), withBlocked);
  assert.deepEqual(await proxier.sync(snapshot(grown), changed(), true), { full: true, ok: true });
  assert.ok(chainNames(kernel, 'ip6').includes(serviceChainNames(aff6).cluster));
  const withoutBlocked = ruleset(kernel).split('\n').filter((l) => !l.startsWith(`add chain ip6 ${T} ${blockedChain} `)).join('\n');
  assert.equal(withoutBlocked, good);
});
