// A netlink dump the kernel flags as interrupted (NLM_F_DUMP_INTR: the list changed while it was
// read, e.g. an IPv6 address finishing DAD) comes back from the addon as EINTR; its content may be
// inconsistent, so it is read again, a few times, before the error is given up to the caller.
import * as os from 'node:os';

const EINTR = os.constants.errno.EINTR;
export const DUMP_ATTEMPTS = 5;

export async function retryInterrupted<T>(dump: () => Promise<T>, attempts = DUMP_ATTEMPTS): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await dump();
    } catch (e) {
      const errno = (e as { errno?: unknown } | null)?.errno;
      if (i >= attempts || typeof errno !== 'number' || Math.abs(errno) !== EINTR) throw e;
    }
  }
}
