// The kernel's refusal of a transaction, tied back to the op that caused it.
import { errnoName } from './errno-names';

/** What the addon rejects commit() with (docs/wire-format.md, "Result"). */
export interface AddonCommitError extends Error {
  errno?: number;
  opIndex?: number;
  messageSeq?: number;
  extack?: string;
  errors?: { errno: number; opIndex: number; extack?: string }[];
}

export class NetlinkError extends Error {
  override readonly name = 'NetlinkError';
  readonly errno: number;
  readonly code: string;
  /** The op's index in the transaction; -1 when the error is not tied to one (a dump). */
  readonly opIndex: number;
  /** The failing op as text (Transaction.describe), '' when the kernel named no op. */
  readonly object: string;
  readonly extack?: string;
  /** Every error the kernel reported for the batch; the first is this error's own. */
  readonly errors: { errno: number; code: string; opIndex: number; extack?: string }[];

  constructor(errno: number, opIndex: number, object: string, extack?: string,
    errors: { errno: number; opIndex: number; extack?: string }[] = []) {
    const code = errnoName(errno);
    const what = object ? `: ${object}` : '';
    const at = opIndex >= 0 ? ` at op ${opIndex}` : '';
    super(`${code} (${errno}) from the kernel${at}${what}${extack ? ` [${extack}]` : ''}`);
    this.errno = errno;
    this.code = code;
    this.opIndex = opIndex;
    this.object = object;
    this.extack = extack;
    this.errors = errors.map((e) => ({ ...e, code: errnoName(e.errno) }));
  }
}

/**
 * Turns the addon's rejection into a NetlinkError when it carries an errno; anything else (a bug,
 * a RangeError from buffer validation) is returned unchanged.
 */
export function toNetlinkError(err: unknown, describe: (opIndex: number) => string, what = ''): unknown {
  const e = err as AddonCommitError;
  if (!e || typeof e !== 'object' || typeof e.errno !== 'number') return err;
  const opIndex = typeof e.opIndex === 'number' ? e.opIndex : -1;
  let object = what;
  if (opIndex >= 0) {
    try { object = describe(opIndex); } catch { /* op index outside the transaction: leave it blank */ }
  }
  return new NetlinkError(Math.abs(e.errno), opIndex, object, e.extack || undefined, e.errors ?? []);
}
