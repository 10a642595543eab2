// loadBalancerSourceRanges changes commit without the kernel validating the table, on the running
// kernel (docs/nftables-ruleset.md, "When the kernel validates the whole table").
//
// Our table, as the proxier programmed it, gets a ballast the validation must walk: a base chain
// that jumps to a chain looking up a verdict map of BALLAST goto elements (the proxier's partial
// syncs leave objects they do not know alone). A commit that makes the kernel validate the table
// then walks BALLAST elements (milliseconds); one that does not costs a netlink round trip.
// The proxier's partial syncs are timed at the commit: a Service with source ranges added and
// removed, its ranges changed, its LB IPs changed; against the first Service with session affinity
// added and removed (its family's record and lookup rules come and go: the kernel validates) and a
// plain ClusterIP Service.
// Each is done REPS times, undone each time; the least time of each is compared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ElementBatch, Nft, rule, Transaction, type SetSpec } from '../../../src/native';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import { NftablesProxier } from '../../../src/proxier/nftables';
import type { NftHandle } from '../../../src/proxier/nftables/options';
import { TABLE } from '../../../src/proxier/nftables/names';
import { withNetns } from '../../helpers/netns';
import { changed, ep, proxierOptions, snapshot, sp } from './fixtures';

const BALLAST = 100_000;
const REPS = 5;
const BALLAST_MAP: SetSpec = { name: 'ballast-map', key: ['ipv4_addr'], map: 'verdict' };

/** A verdict map the validation walks, reached from a base chain of our table. */
function ballast(): Transaction {
  const f = 'ip';
  const tx = new Transaction();
  tx.addChain(f, TABLE, { name: 'ballast-hook', base: { type: 'filter', hook: 'prerouting', priority: -300 } });
  tx.addChain(f, TABLE, { name: 'ballast' });
  tx.addChain(f, TABLE, { name: 'ballast-target' });
  tx.addSet(f, TABLE, BALLAST_MAP);
  tx.addRule(f, TABLE, 'ballast-hook', rule(f).jump('ballast').build());
  tx.addRule(f, TABLE, 'ballast', rule(f).vmap(['daddr'], BALLAST_MAP.name).build());
  tx.addRule(f, TABLE, 'ballast-target', rule(f).counter().build());
  const b = new ElementBatch(BALLAST_MAP);
  for (let i = 0; i < BALLAST; i++) b.add({ key: [`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`], verdict: { kind: 'goto', chain: 'ballast-target' } });
  return tx.addElementBatch(f, TABLE, b);
}

/** The Nft handle, with the time of each commit recorded. */
function timing(nft: Nft): { handle: NftHandle; last: () => number } {
  let ms = 0;
  const handle: NftHandle = {
    async commit(tx) {
      const t0 = process.hrtime.bigint();
      try {
        return await nft.commit(tx);
      } finally {
        ms = Number(process.hrtime.bigint() - t0) / 1e6;
      }
    },
    dumpTable: (family, name, opts) => nft.dumpTable(family, name, opts),
    dumpSet: (family, table, set) => nft.dumpSet(family, table, set),
  };
  return { handle, last: () => ms };
}

const lb = (name: string, last: number, over: Partial<ServicePort>) =>
  sp(name, { clusterIP: `172.30.9.${last}`, loadBalancerIPs: [`5.6.9.${last}`], ...over });

/** A change and its undo, as the two states of the Service it changes (absent: undefined). */
interface Change { label: string; validates: boolean; from?: ServicePort; to?: ServicePort }

const ranged = lb('ranged', 10, { loadBalancerSourceRanges: ['203.0.113.0/24', '198.51.100.0/25', '10.0.0.0/8'] });
const CHANGES: Change[] = [
  { label: 'plain ClusterIP Service added', validates: false, to: sp('plain', { clusterIP: '172.30.9.1' }) },
  { label: 'Service with source ranges added', validates: false, to: lb('fw-new', 11, { loadBalancerSourceRanges: ['203.0.113.0/24', '192.0.2.0/28'] }) },
  { label: 'source ranges changed', validates: false, from: ranged, to: { ...ranged, loadBalancerSourceRanges: ['198.51.100.0/24', '10.1.0.0/16', '192.0.2.7/32'] } },
  { label: 'LB IPs of a firewalled Service changed', validates: false, from: ranged, to: { ...ranged, loadBalancerIPs: ['5.6.9.10', '5.6.9.12'] } },
  { label: 'source ranges added to a LoadBalancer', validates: false, from: { ...ranged, loadBalancerSourceRanges: [] }, to: ranged },
  { label: 'the first Service with session affinity added', validates: true, to: sp('sticky', { clusterIP: '172.30.9.2', affinityTimeoutSeconds: 600 }) },
];

test(`source-range changes commit without walking a ${BALLAST}-element verdict map; a Service with affinity walks it`, async (t) => {
  await withNetns(async (ns) => {
    const nft = Nft.open({ netns: ns.path });
    try {
      const { handle, last } = timing(nft);
      const proxier = new NftablesProxier(proxierOptions(handle, { families: ['ip'] }));
      const eps: Endpoint[] = [ep('10.180.0.1'), ep('10.180.0.2')];
      const base: [ServicePort, Endpoint[]][] = [[ranged, eps], [sp('other', { clusterIP: '172.30.9.3' }), eps]];
      assert.deepEqual(await proxier.sync(snapshot(base), changed(), true), { full: true, ok: true });
      await nft.commit(ballast());
      const least = new Map<string, number>();
      const syncTo = async (svc: ServicePort | undefined, key: string) => {
        const entries = base.filter(([s]) => s.key !== key);
        if (svc) entries.push([svc, eps]);
        assert.deepEqual(await proxier.sync(snapshot(entries), changed(key), false), { full: false, ok: true });
        return last();
      };
      for (let r = 0; r < REPS; r++) {
        for (const c of CHANGES) {
          const key = (c.to ?? c.from)!.key;
          const ms = await syncTo(c.to, key);
          await syncTo(c.from, key);
          least.set(c.label, Math.min(least.get(c.label) ?? Infinity, ms));
        }
      }
      t.diagnostic([...least].map(([l, ms]) => `${l}: ${ms.toFixed(3)} ms`).join('; '));
      const walk = least.get('the first Service with session affinity added')!;
      const plain = least.get('plain ClusterIP Service added')!;
      assert.ok(walk >= 5 * plain, `the ballast makes a validating commit slow: ${walk} ms against ${plain} ms`);
      for (const c of CHANGES.filter((x) => !x.validates)) {
        assert.ok(least.get(c.label)! <= walk / 5, `${c.label}: ${least.get(c.label)} ms, a fifth of the walk at most (${walk} ms)`);
      }
      // The changes did what they say: ranged's ranges, as last synced, are in firewall-allow.
      await syncTo(ranged, ranged.key);
      assert.match(ns.nft('list', 'set', 'ip', TABLE, 'firewall-allow'), /5\.6\.9\.10 \. tcp \. 80 \. 10\.0\.0\.0\/8/);
    } finally {
      nft.close();
    }
  });
});
