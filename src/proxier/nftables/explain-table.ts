// For `explain` (nftables mode): one ServicePort's compiled objects and the base compiled for it,
// asked by name and key as the walk of a connection needs (explain-path.ts).
import type { Rule } from '../../native/txn/rule-builder';
import { compileBase, setNamesOf } from './compile-base';
import type { FamilyContext } from './context';
import type { ChainDef, ElementDef, KeyPart, ServiceObjects } from './desired';
import { CHAIN, SET, parseAffinitySetName, parseEndpointMapName, type EndpointMapFamily } from './names';

const keyText = (key: readonly KeyPart[]): string => key.map(String).join(' . ');

export class CompiledTable {
  private readonly chains = new Map<string, ChainDef>();
  private readonly elements = new Map<string, Map<string, ElementDef>>();
  /** Every endpoint map element, by map. */
  private readonly endpointMaps: { set: string; fam: EndpointMapFamily; count: number; el: ElementDef }[] = [];

  constructor(ctx: FamilyContext, readonly service: ServiceObjects) {
    const base = compileBase(ctx, setNamesOf([service]));
    for (const c of [...base.chains, ...service.chains]) this.chains.set(c.name, c);
    for (const el of [...base.elements, ...service.elements]) {
      let set = this.elements.get(el.set);
      if (!set) this.elements.set(el.set, (set = new Map()));
      set.set(keyText(el.key), el);
      const m = parseEndpointMapName(el.set);
      if (m) this.endpointMaps.push({ set: el.set, ...m, el });
    }
  }

  chain(name: string): ChainDef {
    const c = this.chains.get(name);
    if (!c) throw new Error(`explain: the compiled table has no chain ${name}`);
    return c;
  }

  chainNames(): string[] {
    return [...this.chains.keys()];
  }

  element(set: string, key: readonly KeyPart[]): ElementDef | undefined {
    return this.elements.get(set)?.get(keyText(key));
  }

  /** The elements of `set` whose key begins with `key` (firewall-allow: a destination's source ranges), in key order. */
  elementsUnder(set: string, key: readonly KeyPart[]): ElementDef[] {
    const prefix = keyText(key) + ' . ';
    return [...(this.elements.get(set)?.entries() ?? [])].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, el]) => el);
  }

  /** The rule of `chain` that `what` describes; throws when the chain has none (the chain changed shape). */
  rule(chain: string, what: string, pred: (r: Rule) => boolean): Rule {
    const r = this.chain(chain).rules.find(pred);
    if (!r) throw new Error(`explain: chain ${chain} has no rule that ${what}`);
    return r;
  }

  /** The endpoint map of `fam` holding `key`'s slots: its name, count and the endpoints in slot order. */
  endpointsOf(fam: EndpointMapFamily, key: readonly KeyPart[]): { set: string; count: number; endpoints: string[] } | undefined {
    const prefix = keyText(key) + ' . ';
    const slots = this.endpointMaps.filter((m) => m.fam === fam && keyText(m.el.key).startsWith(prefix));
    if (slots.length === 0) return undefined;
    const sorted = slots.sort((a, b) => Number(a.el.key[a.el.key.length - 1]) - Number(b.el.key[b.el.key.length - 1]));
    return { set: sorted[0].set, count: sorted[0].count, endpoints: sorted.map((m) => endpointText(m.el.data ?? [])) };
  }
}

/** The session-affinity timeout of `key`'s destination in `fam` (its pairs' set), or undefined without affinity. */
export function affinityTimeoutOf(t: CompiledTable, fam: EndpointMapFamily, key: readonly KeyPart[]): number | undefined {
  const prefix = keyText(key) + ' . ';
  for (const el of t.service.elements) {
    const a = parseAffinitySetName(el.set);
    if (a && a.fam === fam && a.timeoutSeconds > 0 && keyText(el.key).startsWith(prefix)) return a.timeoutSeconds;
  }
  return undefined;
}

function endpointText(data: readonly KeyPart[]): string {
  const [ip, port] = data.map(String);
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

export const usesSet = (set: string) => (r: Rule): boolean => r.setRefs.some((ref) => ref.set === set && ref.use !== 'dynset');
export const says = (text: string) => (r: Rule): boolean => r.text.includes(text);

/** The dispatch sets whose rule in `services` (or its second stage) is `goto <chain>` (the verdict maps carry theirs). */
export const DISPATCH: Readonly<Record<string, string>> = {
  [SET.clusterIPPorts]: CHAIN.clusterIPTraffic,
  [SET.externalPorts]: CHAIN.externalTraffic,
  [SET.externalLocalPorts]: CHAIN.externalLocalTraffic,
  [SET.nodePorts]: CHAIN.nodePortTraffic,
  [SET.nodePortsLocal]: CHAIN.nodePortLocalTraffic,
  [SET.otherServicePorts]: CHAIN.otherServices,
  [SET.allNodePorts]: CHAIN.nodePortServices,
};

