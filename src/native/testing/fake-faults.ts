// Fault injection shared by the fakes whose batches the kernel applies op by op (FakeIpvs,
// FakeRtnl): an op refused with a chosen errno (by index or by a pattern its description matches),
// and a whole batch rejected before anything is sent (a socket error).
import { errnoCode, errnoError, errnoOf } from './fake-errno';

/** Refuse an operation of a later batch: `at` is its index in that batch, or a pattern its description matches. */
export interface FakeOpFault { errno: number | string; at: number | RegExp }

/** One refused op, as FakeIpvs and FakeRtnl report it (IpvsOpError, AddressOpError). */
export interface FakeOpError { index: number; errno: number; code: string; message: string }

export class FakeFaults<Op> {
  private faults: FakeOpFault[] = [];
  private rejectNextWith: number | null = null;

  /** `describe` names an op in errors and is what a fault's pattern is matched against. */
  constructor(private readonly describe: (op: Op) => string) {}

  inject(fault: FakeOpFault): void {
    errnoOf(fault.errno);
    this.faults.push(fault);
  }

  /** The next batch sends nothing and rejects with this errno. */
  rejectNextBatch(errno: number | string): void {
    this.rejectNextWith = errnoOf(errno);
  }

  /** Throws the pending rejection (its message starts with `what`), once. */
  throwIfRejected(what: string): void {
    if (this.rejectNextWith === null) return;
    const errno = this.rejectNextWith;
    this.rejectNextWith = null;
    throw errnoError(errno, what);
  }

  /** Each op applied by `applyOne` (0 or an errno), or refused by the fault that fires on it. */
  applyEach(ops: readonly Op[], applyOne: (op: Op) => number): { applied: number; errors: FakeOpError[] } {
    const fired = this.take(ops);
    const errors: FakeOpError[] = [];
    ops.forEach((op, index) => {
      const errno = fired.get(index) ?? applyOne(op);
      if (errno !== 0) errors.push({ index, errno, code: errnoCode(errno), message: `${this.describe(op)}: ${errnoCode(errno)}` });
    });
    return { applied: ops.length - errors.length, errors };
  }

  /** The faults that fire in this batch, by op index; a numeric one past its end is a mistake in the test. */
  private take(ops: readonly Op[]): Map<number, number> {
    const fired = new Map<number, number>();
    this.faults = this.faults.filter((f) => {
      if (typeof f.at === 'number' && f.at >= ops.length) throw new RangeError(`fault at op ${f.at} of a batch of ${ops.length}`);
      const at = f.at;
      const index = typeof at === 'number' ? at : ops.findIndex((op, i) => !fired.has(i) && at.test(this.describe(op)));
      if (index < 0 || fired.has(index)) return true;
      fired.set(index, errnoOf(f.errno));
      return false;
    });
    return fired;
  }
}
