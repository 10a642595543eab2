import { checkName } from './names';
import { Verdict } from './nft-types';

const SIMPLE = new Set(['accept', 'drop', 'return', 'continue']);

export function checkVerdict(v: unknown, arg: string): Verdict {
  if (typeof v !== 'object' || v === null) throw new TypeError(`${arg}: expected a verdict object`);
  const kind = (v as { kind?: unknown }).kind;
  if (kind === 'jump' || kind === 'goto') {
    checkName((v as { chain?: unknown }).chain, `${arg}.chain`);
    return v as Verdict;
  }
  if (typeof kind !== 'string' || !SIMPLE.has(kind)) throw new TypeError(`${arg}.kind: '${String(kind)}' is not a verdict`);
  return v as Verdict;
}
