// What we believe one family's table holds (the mirror), plus what produced it. Syncs read and
// update this instead of listing the kernel.
import type { FamilyContext } from './context';
import type { BaseObjects, ChainDef, KeyPart, ServiceObjects, SetDef } from './desired';
import type { Claims, IndexKey } from './element-index';
import { renderRule, type IpFamily, type Verdict } from './rule-steps';

export interface MirrorElement { set: string; key: KeyPart[]; value: string; verdict?: Verdict }

export interface FamilyMirror {
  /** chain name -> fingerprint of its hook and rules */
  chains: Map<string, string>;
  /** set name -> fingerprint of its spec */
  sets: Map<string, string>;
  elements: Map<IndexKey, MirrorElement>;
}

export interface FamilyState {
  family: IpFamily;
  ctx: FamilyContext;
  ctxKey: string;
  base: BaseObjects;
  mirror: FamilyMirror;
  /** Desired elements of the shared maps and sets, with who wants them. */
  index: Map<IndexKey, Claims>;
  /** The objects of every ServicePort the kernel holds. */
  services: Map<string, ServiceObjects>;
}

export function chainFingerprint(c: ChainDef, family: IpFamily): string {
  const hook = c.base ? `${c.base.type}/${c.base.hook}/${c.base.priority}\n` : '';
  return hook + c.rules.map((r) => renderRule(r, family)).join('\n');
}

export function setFingerprint(s: SetDef): string {
  return JSON.stringify([s.key, s.map ?? null, !!s.interval, !!s.timeout, !!s.dynamic]);
}
