// The record a Transaction keeps of each op: enough to describe it and to write it as nft text.
import { Element } from './elements';
import { ChainType, Family, Hook } from './nft-types';
import type { RuleRefs } from './rule-refs';
import { SetSpec } from './set-spec';

export interface ChainSpec {
  name: string;
  base?: { type: ChainType; hook: Hook; priority: number; policy?: 'accept' | 'drop' };
}

export type Op =
  | { op: 'addTable' | 'deleteTable' | 'flushTable'; family: Family; table: string; create?: boolean }
  | { op: 'addChain'; family: Family; table: string; chain: ChainSpec; create?: boolean }
  | { op: 'flushChain' | 'deleteChain'; family: Family; table: string; chain: string }
  // Only the text and references are kept, so a million built rules do not stay alive after they were written.
  | { op: 'addRule'; family: Family; table: string; chain: string; text: string; refs: RuleRefs }
  | { op: 'deleteRule'; family: Family; table: string; chain: string; handle: number }
  | { op: 'addSet'; family: Family; table: string; set: SetSpec; create?: boolean }
  | { op: 'flushSet' | 'deleteSet'; family: Family; table: string; set: string; isMap: boolean }
  // firstAdd: the elements were encoded as the first ones of a set created in this transaction.
  // An op from an ElementBatch decodes `elements` from the buffer each time it is read.
  | { op: 'addElements' | 'deleteElements'; family: Family; table: string; set: SetSpec; elements: Element[]; firstAdd: boolean;
      /** An op from an ElementBatch: its element count, and its first `n` elements decoding no more (describe() of a huge op). */
      batch?: { count: number; first(n: number): Element[] } };

