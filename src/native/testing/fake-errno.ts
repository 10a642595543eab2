// Errors as the fakes (FakeIpvs, FakeRtnl) report them: the kernel's errno and its name, from
// node's own table (the addon is not needed to run a fake).
import { constants } from 'node:os';

const NAMES = new Map<number, string>();
for (const [name, value] of Object.entries(constants.errno)) if (!NAMES.has(value)) NAMES.set(value, name);
// Linux gives EAGAIN and EWOULDBLOCK (and EDEADLK/EDEADLOCK) one number; the first name wins.

/** The errno of a name ('EEXIST') or the number itself; a RangeError for an unknown name. */
export function errnoOf(errno: number | string): number {
  if (typeof errno === 'number') return errno;
  const n = (constants.errno as Record<string, number>)[errno];
  if (n === undefined) throw new RangeError(`unknown errno name ${JSON.stringify(errno)}`);
  return n;
}

export function errnoCode(errno: number): string {
  return NAMES.get(errno) ?? `E${errno}`;
}

/** An Error carrying errno and code, as the real handles reject with. */
export function errnoError(errno: number | string, message: string): Error & { errno: number; code: string } {
  const n = errnoOf(errno);
  const code = errnoCode(n);
  return Object.assign(new Error(`${message}: ${code}`), { errno: n, code });
}
