// Partial syncs over a small cluster full of conflicts (shared ClusterIPs, external IPs and
// NodePorts, shared pod IPs, endpoint counts that come and go, affinity), checked after every sync
// against a reference: one claim list per element, in claim order, the first claimant's element
// written. That is the index's rule without its shared entries (element-index.ts entryKey), so the
// kernel must hold exactly what the reference says. Seeded: a failure repeats.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { elementText } from '../../../src/native/txn/elements';
import { setDefFor } from '../../../src/proxier/nftables/compile-base';
import { compileService } from '../../../src/proxier/nftables/compile-service';
import type { ElementDef, ServiceObjects } from '../../../src/proxier/nftables/desired';
import { entryKey } from '../../../src/proxier/nftables/element-index';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import { changed, ctx, ep, selected, snapshot, sp } from './fixtures';
import { elementsOf, proxierOnFake, setNames } from './fake-helpers';
import { seededRandom } from '../../helpers/seeded-random';


type Entry = [ServicePort, Endpoint[]];

function randomEntry(r: () => number, name: string): Entry {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  const pods = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.180.0.4', '10.180.0.5'];
  const eps = pods.filter(() => r() < 0.45).map((ip) => ep(ip, pick([80, 8080]), { isLocal: r() < 0.4 }));
  return [sp(name, {
    clusterIP: pick(['172.30.0.41', '172.30.0.42', '172.30.0.43']),
    port: pick([80, 81]),
    externalIPs: r() < 0.4 ? [pick(['5.6.7.8', '172.30.0.41'])] : [],
    nodePort: r() < 0.4 ? pick([30080, 30081]) : 0,
    affinityTimeoutSeconds: r() < 0.15 ? 60 : 0,
    externalPolicyLocal: r() < 0.3,
    internalPolicyLocal: r() < 0.15,
  }), eps];
}

/** An element's claim: its set and key, or for a destination's group (endpoint slots, affinity pairs) the destination: one claimant wins the group. */
const idOf = (el: ElementDef): string => `${el.set} ${entryKey(el)}`;

/** Claim lists per element (set and key text), changed in the order the proxier changes them. */
class Reference {
  private readonly claims = new Map<string, string[]>();
  private readonly objs = new Map<string, ServiceObjects>();

  set(key: string, entry: Entry | undefined): void {
    for (const el of this.objs.get(key)?.elements ?? []) {
      const rest = (this.claims.get(idOf(el)) ?? []).filter((o) => o !== key);
      if (rest.length) this.claims.set(idOf(el), rest); else this.claims.delete(idOf(el));
    }
    this.objs.delete(key);
    if (!entry) return;
    const obj = compileService(entry[0], selected(entry[1]), ctx());
    this.objs.set(key, obj);
    for (const el of obj.elements) {
      const list = this.claims.get(idOf(el)) ?? [];
      if (!list.includes(key)) this.claims.set(idOf(el), [...list, key]);
    }
  }

  /** set -> its elements as nft lists them, sorted. */
  expected(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const [id, [winner]] of this.claims) {
      const set = id.slice(0, id.indexOf(' '));
      // Of a key the winner wants twice, its last element.
      const byKey = new Map(this.objs.get(winner)!.elements.filter((e) => idOf(e) === id).map((e) => [e.key.join(' . '), e]));
      out.set(set, [...(out.get(set) ?? []), ...[...byKey.values()].map((e) => elementText(setDefFor(ctx(), set), e))]);
    }
    for (const list of out.values()) list.sort();
    return out;
  }
}

function kernelElements(kernel: Parameters<typeof elementsOf>[0]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const set of setNames(kernel)) {
    if (set === 'affinity') continue;
    const els = elementsOf(kernel, set).sort();
    if (els.length) out.set(set, els);
  }
  return out;
}

for (const seed of [1, 2, 3, 4]) {
  test(`partial syncs among conflicting Services write each element's first claimant (seed ${seed})`, async () => {
    const r = seededRandom(seed);
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const cluster = new Map<string, Entry>(names.map((n) => [sp(n).key, randomEntry(r, n)]));
    const ref = new Reference();
    const { proxier, kernel } = proxierOnFake({ families: ['ip'] });
    assert.deepEqual(await proxier.sync(snapshot([...cluster.values()]), changed(), true), { full: true, ok: true });
    for (const key of [...cluster.keys()].sort()) ref.set(key, cluster.get(key));
    assert.deepEqual(kernelElements(kernel), ref.expected(), 'after the full sync');
    for (let step = 0; step < 60; step++) {
      const keys = names.filter(() => r() < 0.3).map((n) => sp(n).key);
      for (const key of keys) {
        const name = key.slice(4, key.indexOf(':'));
        if (r() < 0.15) cluster.delete(key); else cluster.set(key, randomEntry(r, name));
      }
      const res = await proxier.sync(snapshot([...cluster.values()]), changed(...keys), false);
      assert.deepEqual(res, { full: false, ok: true }, `step ${step}`);
      for (const key of [...keys].sort()) ref.set(key, cluster.get(key));
      assert.deepEqual(kernelElements(kernel), ref.expected(), `after step ${step} (changed ${keys.join(', ')})`);
    }
  });
}
