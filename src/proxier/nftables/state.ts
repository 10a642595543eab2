// What we believe one family's table holds (the mirror), plus what produced it. Syncs read and
// update this instead of listing the kernel.
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, NftFamily, ServiceObjects, SetDef } from './desired';
import { isWanted, type Claims, type IndexKey } from './element-index';

export interface FamilyMirror {
  /** chain name -> fingerprint of its hook and rules */
  chains: Map<string, string>;
  /** set name -> fingerprint of its spec */
  sets: Map<string, string>;
}

export interface FamilyState {
  family: NftFamily;
  ctx: FamilyContext;
  ctxKey: string;
  base: BaseObjects;
  mirror: FamilyMirror;
  /** Elements of the shared maps and sets with who wants them: the winners are what the kernel holds. */
  index: Map<IndexKey, Claims>;
  /** The objects of every ServicePort the kernel holds. */
  services: Map<string, ServiceObjects>;
  /** Number of wanted elements per set: which endpoint maps (and select rules) must exist. */
  setUse: Map<string, number>;
}

/** Element counts per set of an index. */
export function countSetUse(index: ReadonlyMap<IndexKey, Claims>): Map<string, number> {
  const use = new Map<string, number>();
  for (const c of index.values()) if (isWanted(c)) use.set(c.el.set, (use.get(c.el.set) ?? 0) + 1);
  return use;
}

/** Names of the sets in use, as compileBase takes them. */
export function setsInUse(use: ReadonlyMap<string, number>): string[] {
  return [...use].filter(([, n]) => n > 0).map(([s]) => s);
}

/**
 * A digest of the chain's hook and rules (their nft text): enough to tell "unchanged", small
 * enough to keep for 50k Services.
 */
export function chainFingerprint(c: Pick<ChainDef, 'base' | 'rules'>): string {
  const hook = c.base ? `${c.base.type}/${c.base.hook}/${c.base.priority}\n` : '';
  return digest64(hook + c.rules.map((r) => r.text).join('\n'));
}

/** Two independent 32-bit FNV-1a hashes: cheaper than a crypto hash per chain, collisions negligible. */
function digest64(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0).toString(36) + ':' + (b >>> 0).toString(36) + ':' + text.length.toString(36);
}

/** What the state keeps of a ServicePort once applied: chain names and elements, not the rules. */
export function withoutRules(s: ServiceObjects): ServiceObjects {
  const out: ServiceObjects = { key: s.key, family: s.family, chains: s.chains.map((c) => ({ name: c.name, rules: [] })), elements: s.elements };
  if (s.source) out.source = s.source;
  return out;
}

export function setFingerprint(s: SetDef): string {
  return JSON.stringify([s.key, s.map ?? null, !!s.interval, !!s.timeout, !!s.dynamic]);
}
