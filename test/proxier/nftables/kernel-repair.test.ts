// When the kernel may not hold what the mirror says (someone changed our table, a commit's outcome
// is unknown) the proxier reads the table and rewrites it; a refused change keeps what worked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withNetns } from '../../helpers/netns';
import { NetlinkError, type Nft } from '../../../src/native';
import { endpointChainName, serviceChainNames } from '../../../src/proxier/nftables/names';
import { ep, snapshot, sp } from './fixtures';
import { changed, chainNames, elementsOf, freshFullSync, normalizedRuleset, proxierIn } from './kernel-helpers';

const svc1 = sp('svc1');
const aff = sp('aff', { clusterIP: '172.30.0.44', affinityTimeoutSeconds: 60 });
const entries: Parameters<typeof snapshot>[0] = [[svc1, [ep('10.180.0.1'), ep('10.180.0.2')]], [aff, [ep('10.180.4.1')]]];

test('after markDirty, the full sync reads our table and undoes every foreign change', async () => {
  await withNetns(async (ns) => {
    const repairs: string[] = [];
    const { proxier, nft } = proxierIn(ns, { metrics: { repairs: { inc: ({ reason }) => repairs.push(reason) } } });
    try {
      await proxier.sync(snapshot(entries), changed(), true);
      const before = normalizedRuleset(ns);
      const t = 'kube-proxy';
      const affChain = serviceChainNames(aff).cluster;
      ns.exec('nft', ['-f', '-'], [
        `add chain ip ${t} intruder { type filter hook prerouting priority -500; policy drop; }`,
        `add set ip ${t} foreign { type ipv4_addr; }`,
        `chain ip ${t} filter-input { policy drop; }`,
        `delete element ip ${t} cluster-ip-ports { 172.30.0.41 . tcp . 80 }`,
        `delete element ip ${t} service-ips { 172.30.0.44 . tcp . 80 }`,
        `flush chain ip ${t} ${affChain}`,
        `delete chain ip ${t} ${affChain}`,
        `add rule ip ${t} services ip daddr 172.30.0.41 drop`,
        '',
      ].join('\n'));
      assert.notDeepEqual(normalizedRuleset(ns), before);
      proxier.markDirty('foreign_change');
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true });
      assert.deepEqual(normalizedRuleset(ns), before);
      assert.match(ns.nft('list', 'chain', 'ip', t, 'filter-input'), /policy accept/);
      assert.deepEqual(repairs, ['foreign_change']);
    } finally { nft.close(); }
  });
});

test('a whole flushed or deleted table is rebuilt by the repair sync', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      await proxier.sync(snapshot(entries), changed(), true);
      const before = normalizedRuleset(ns);
      for (const tamper of [['flush', 'table', 'ip', 'kube-proxy'], ['delete', 'table', 'ip', 'kube-proxy'], ['flush', 'ruleset']]) {
        ns.nft(...tamper);
        proxier.markDirty('foreign_change');
        assert.deepEqual(await proxier.sync(snapshot(entries), changed(), false), { full: true, ok: true }, tamper.join(' '));
        assert.deepEqual(normalizedRuleset(ns), before, tamper.join(' '));
      }
    } finally { nft.close(); }
  });
});

/** An Nft whose next commit is applied by the kernel but reported as lost (ENOBUFS). */
function losingReplies(nft: Nft): { nft: Nft; loseNext(): void; dumps: () => number } {
  let lose = false;
  let dumps = 0;
  const wrapped = Object.create(nft) as Nft;
  wrapped.commit = async (tx) => {
    const stats = await nft.commit(tx);
    if (lose) { lose = false; throw new NetlinkError(105, -1, '', 'kernel dropped replies (receive queue overflow); the batch failed'); }
    return stats;
  };
  wrapped.dumpTable = (...args: Parameters<Nft['dumpTable']>) => { dumps++; return nft.dumpTable(...args); };
  return { nft: wrapped, loseNext: () => { lose = true; }, dumps: () => dumps };
}

test('an unknown commit outcome makes the next sync a full one that reads our table first', async () => {
  await withNetns(async (ns) => {
    const repairs: string[] = [];
    const real = proxierIn(ns).nft;
    const w = losingReplies(real);
    const { proxier, nft } = proxierIn(ns, { nft: w.nft, metrics: { repairs: { inc: ({ reason }) => repairs.push(reason) } } });
    try {
      await proxier.sync(snapshot(entries), changed(), true);
      const dumpsAfterStart = w.dumps();
      // The partial sync adds svc2 (and its endpoint map); the kernel applies it, the reply is "lost".
      const svc2 = sp('svc2', { clusterIP: '172.30.0.42' });
      const grown: Parameters<typeof snapshot>[0] = [...entries, [svc2, [ep('10.180.1.1'), ep('10.180.1.2'), ep('10.180.1.3')]]];
      w.loseNext();
      const r = await proxier.sync(snapshot(grown), changed(svc2.key), false);
      assert.equal(r.ok, false);
      assert.equal((r.error as NetlinkError).code, 'ENOBUFS');
      // Shrinking back: a mirror that trusted the failure would think endpoints-3 never existed.
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(svc2.key), false), { full: true, ok: true });
      assert.ok(w.dumps() > dumpsAfterStart, 'the repair sync listed our table');
      assert.deepEqual(repairs, ['unknown_outcome']);
      assert.deepEqual(normalizedRuleset(ns), await freshFullSync(entries));
      assert.ok(!JSON.stringify(normalizedRuleset(ns)).includes('endpoints-3'));
    } finally { nft.close(); real.close(); }
  });
});

test('a ServicePort whose change fails validation keeps its previous rules, through full syncs too', async () => {
  await withNetns(async (ns) => {
    const warnings: string[] = [];
    const log = { info() {}, error() {}, warn: (o: object, m: string) => warnings.push(`${m} ${JSON.stringify(o)}`) };
    const { proxier, nft } = proxierIn(ns, { log });
    try {
      await proxier.sync(snapshot(entries), changed(), true);
      const good = normalizedRuleset(ns);
      const broken: Parameters<typeof snapshot>[0] = [[{ ...svc1, clusterIP: 'fd00::41' }, [ep('10.180.0.9')]], entries[1]];
      assert.deepEqual(await proxier.sync(snapshot(broken), changed(svc1.key), false), { full: false, ok: true });
      assert.deepEqual(normalizedRuleset(ns), good);
      assert.match(proxier.refusedServicePorts().get(svc1.key)!, /clusterIP/);
      assert.match(warnings.join('\n'), /keeping the rules it had/);
      assert.deepEqual(await proxier.sync(snapshot(broken), changed(), true), { full: true, ok: true });
      assert.deepEqual(normalizedRuleset(ns), good);
      const fixed: Parameters<typeof snapshot>[0] = [[svc1, [ep('10.180.0.9')]], entries[1]];
      assert.deepEqual(await proxier.sync(snapshot(fixed), changed(svc1.key), false), { full: false, ok: true });
      assert.match(elementsOf(ns, 'endpoints-1').join(), /10\.180\.0\.9/);
      assert.equal(proxier.refusedServicePorts().size, 0);
    } finally { nft.close(); }
  });
});

test('a change the kernel refuses keeps the ServicePort\'s previous chains, also in a later full sync', async () => {
  await withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      await proxier.sync(snapshot(entries), changed(), true);
      const good = normalizedRuleset(ns);
      // A base chain where aff's new endpoint chain would go: the kernel refuses the `goto` to it.
      const blocked = ep('10.180.4.2');
      ns.nft('add', 'chain', 'ip', 'kube-proxy', endpointChainName(aff, blocked), '{ type filter hook input priority 0; }');
      const withBlocked = normalizedRuleset(ns);
      const grown: Parameters<typeof snapshot>[0] = [entries[0], [aff, [ep('10.180.4.1'), blocked]]];
      assert.deepEqual(await proxier.sync(snapshot(grown), changed(aff.key), false), { full: false, ok: true });
      assert.deepEqual([...proxier.refusedServicePorts().keys()], [aff.key]);
      assert.deepEqual(normalizedRuleset(ns), withBlocked);
      assert.deepEqual(await proxier.sync(snapshot(grown), changed(), true), { full: true, ok: true });
      assert.ok(chainNames(ns).includes(serviceChainNames(aff).cluster));
      const { [`ip kube-proxy chain ${endpointChainName(aff, blocked)}`]: _, ...rest } = normalizedRuleset(ns);
      assert.deepEqual(rest, good);
    } finally { nft.close(); }
  });
});
