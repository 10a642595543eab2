// What we believe one family's table holds (the mirror), plus what produced it. Syncs read and
// update this instead of listing the kernel.
import type { SelectedEndpoints, ServicePort } from '../../core/types';
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, NftFamily, SetDef } from './desired';
import type { ElementIndex } from './element-index';

export interface FamilyMirror {
  /** chain name -> fingerprint of its hook and rules */
  chains: Map<string, string>;
  /** set name -> fingerprint of its spec */
  sets: Map<string, string>;
}

/**
 * The model objects a ServicePort was compiled from: the model's own (shared, so free to keep).
 * Compiling them again with the family's context gives exactly what the kernel holds for it.
 */
export interface ServiceSource {
  sp: ServicePort;
  eps: SelectedEndpoints | undefined;
}

export interface FamilyState {
  family: NftFamily;
  ctx: FamilyContext;
  ctxKey: string;
  base: BaseObjects;
  mirror: FamilyMirror;
  /**
   * Elements of the shared maps and sets with who wants them: the winners are what the kernel
   * holds. Only partial syncs read it; a full sync drops it first (see NftablesProxier.syncNow).
   */
  index: ElementIndex;
  /** What every ServicePort the kernel holds was compiled from. */
  services: Map<string, ServiceSource>;
}

/** Names of the sets in use, as compileBase takes them. */
export function setsInUse(counts: ReadonlyMap<string, number>): string[] {
  return [...counts].filter(([, n]) => n > 0).map(([s]) => s);
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

export function setFingerprint(s: SetDef): string {
  return JSON.stringify([s.key, s.map ?? null, !!s.interval, !!s.timeout, !!s.dynamic]);
}
