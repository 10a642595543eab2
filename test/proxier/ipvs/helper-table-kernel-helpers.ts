// Reading the helper table back from a real kernel: `nft -j list table` as plain strings.
import type { TestNetns } from '../../helpers/netns';

type Json = any; // nft's JSON

function valueText(v: Json): string {
  if (v === null || typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return v.map(valueText).join(' . ');
  if (v.concat) return v.concat.map(valueText).join(' . ');
  if (v.prefix) return `${v.prefix.addr}/${v.prefix.len}`;
  if (v.range) return `${valueText(v.range[0])}-${valueText(v.range[1])}`;
  if (v.elem) return valueText(v.elem.val);
  return JSON.stringify(v);
}

export interface TableView {
  /** Set name -> its elements as text, sorted. */
  sets: Map<string, string[]>;
  /** Chain name -> hook and priority for base chains. */
  chains: Map<string, { hook?: string; prio?: number; type?: string }>;
  /** Chain name -> rule count. */
  ruleCounts: Map<string, number>;
}

export function readTable(ns: TestNetns, family: 'ip' | 'ip6', table = 'kube-proxy-ipvs'): TableView {
  const items: Json[] = JSON.parse(ns.nft('-j', 'list', 'table', family, table)).nftables;
  const view: TableView = { sets: new Map(), chains: new Map(), ruleCounts: new Map() };
  for (const item of items) {
    if (item.set) view.sets.set(item.set.name, (item.set.elem ?? []).map(valueText).sort());
    if (item.chain) view.chains.set(item.chain.name, { hook: item.chain.hook, prio: item.chain.prio, type: item.chain.type });
    if (item.rule) view.ruleCounts.set(item.rule.chain, (view.ruleCounts.get(item.rule.chain) ?? 0) + 1);
  }
  return view;
}
