// Helpers for nftables proxier tests on a real kernel inside a test network namespace.
import { Nft } from '../../../src/native';
import { NftablesProxier } from '../../../src/proxier/nftables';
import type { NftablesProxierOptions } from '../../../src/proxier/nftables';
import type { ChangeSet } from '../../../src/core/types';
import type { TestNetns } from '../../helpers/netns';

export const quietLog = { info() {}, warn() {}, error() {} };

export function proxierIn(ns: TestNetns, over: Partial<NftablesProxierOptions> = {}): { proxier: NftablesProxier; nft: Nft } {
  const nft = Nft.open({ netns: ns.path });
  const proxier = new NftablesProxier({
    nft, families: ['ip', 'ip6'], masqueradeBit: 14, masqueradeAll: false,
    localDetector: { mode: 'ClusterCIDR', cidrs: ['10.0.0.0/16', 'fd00:10::/48'] },
    nodePortAddresses: [], nodeIPs: [], log: quietLog, ...over,
  });
  return { proxier, nft };
}

export function changed(...keys: string[]): ChangeSet {
  return { services: new Set(keys), removedEndpoints: new Map() };
}

/**
 * Our tables as comparable data: chains with their hooks and rules, sets with their sorted
 * elements. Handles, and the order nft happens to print hash-set elements in, are left out.
 */
export function normalizedRuleset(ns: TestNetns): Record<string, unknown> {
  const out: Record<string, any> = {};
  for (const item of ns.nftJson()) {
    const [kind, body] = Object.entries(item)[0] as [string, any];
    if (body.table !== 'kube-proxy') continue;
    const id = `${body.family} ${kind === 'rule' ? 'chain' : kind} ${kind === 'rule' ? body.chain : body.name}`;
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

export function chainNames(ns: TestNetns, family: 'ip' | 'ip6' = 'ip'): string[] {
  return ns.nftJson().filter((i) => i.chain && i.chain.family === family && i.chain.table === 'kube-proxy').map((i) => i.chain.name).sort();
}

export function elementsOf(ns: TestNetns, set: string, family: 'ip' | 'ip6' = 'ip'): string[] {
  const found = ns.nftJson().find((i) => (i.set ?? i.map)?.name === set && (i.set ?? i.map).family === family);
  return ((found?.set ?? found?.map)?.elem ?? []).map((e: unknown) => JSON.stringify(e));
}
