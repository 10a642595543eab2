// Helpers for nftables proxier tests on a real kernel inside a test network namespace.
import { Nft } from '../../../src/native';
import { NftablesProxier } from '../../../src/proxier/nftables';
import type { NftablesProxierOptions } from '../../../src/proxier/nftables';
import assert from 'node:assert/strict';
import { withNetns, type TestNetns } from '../../helpers/netns';
import { changed, proxierOptions, snapshot } from './fixtures';
import type { Endpoint, ServicePort } from '../../../src/core/types';
import { TABLE } from '../../../src/proxier/nftables/names';

export { changed, quietLog } from './fixtures';

export function proxierIn(ns: TestNetns, over: Partial<NftablesProxierOptions> = {}): { proxier: NftablesProxier; nft: Nft } {
  const nft = Nft.open({ netns: ns.path });
  return { proxier: new NftablesProxier(proxierOptions(nft, over)), nft };
}

/** `nft list table` of our table in the family. */
export function listOurTables(ns: TestNetns, family: 'ip' | 'ip6' = 'ip'): string {
  return ns.nft('list', 'table', family, TABLE);
}

/**
 * Our tables as comparable data: chains with their hooks and rules, sets with their sorted
 * elements. Handles, and the order nft happens to print hash-set elements in, are left out.
 */
export function normalizedRuleset(ns: TestNetns): Record<string, unknown> {
  const out: Record<string, any> = {};
  for (const item of ns.nftJson()) {
    const [kind, body] = Object.entries(item)[0] as [string, any];
    if (kind === 'table' || kind === 'metainfo' || body.table !== TABLE) continue;
    const id = `${body.family} ${body.table} ${kind === 'rule' ? 'chain' : kind} ${kind === 'rule' ? body.chain : body.name}`;
    if (kind === 'chain') {
      out[id] = { hook: body.hook ?? null, prio: body.prio ?? null, type: body.type ?? null, rules: out[id]?.rules ?? [] };
    } else if (kind === 'rule') {
      out[id] = out[id] ?? { rules: [] };
      out[id].rules.push(JSON.stringify(body.expr) + (body.comment ? ` # ${body.comment}` : ''));
    } else if (kind === 'set' || kind === 'map') {
      const elems = (body.elem ?? []).map((e: unknown) => JSON.stringify(e)).sort();
      out[id] = { type: body.type, map: body.map ?? null, flags: body.flags ?? [], elems };
    }
  }
  return out;
}

/** Chain names in our table of the family. */
export function chainNames(ns: TestNetns, family: 'ip' | 'ip6' = 'ip'): string[] {
  return ns.nftJson().filter((i) => i.chain && i.chain.family === family && i.chain.table === TABLE).map((i) => i.chain.name).sort();
}

/** Elements of the set or map of this name in our table of the family. */
export function elementsOf(ns: TestNetns, set: string, family: 'ip' | 'ip6' = 'ip'): string[] {
  return ns.nftJson().map((i) => i.set ?? i.map)
    .filter((s) => s?.name === set && s.family === family && s.table === TABLE)
    .flatMap((s) => (s.elem ?? []).map((e: unknown) => JSON.stringify(e)));
}

/** What a fresh process's first full sync of `entries` programs, in a namespace of its own. */
export async function freshFullSync(entries: [ServicePort, Endpoint[]][]): Promise<Record<string, unknown>> {
  return withNetns(async (ns) => {
    const { proxier, nft } = proxierIn(ns);
    try {
      assert.deepEqual(await proxier.sync(snapshot(entries), changed(), true), { full: true, ok: true });
      return normalizedRuleset(ns);
    } finally { nft.close(); }
  });
}
