// Linux errno numbers (asm-generic/errno-base.h, errno.h) the nftables and conntrack paths return.
const NAMES: Record<number, string> = {
  1: 'EPERM', 2: 'ENOENT', 3: 'ESRCH', 4: 'EINTR', 5: 'EIO', 6: 'ENXIO', 7: 'E2BIG', 9: 'EBADF',
  11: 'EAGAIN', 12: 'ENOMEM', 13: 'EACCES', 14: 'EFAULT', 16: 'EBUSY', 17: 'EEXIST', 19: 'ENODEV',
  20: 'ENOTDIR', 22: 'EINVAL', 23: 'ENFILE', 24: 'EMFILE', 27: 'EFBIG', 28: 'ENOSPC', 34: 'ERANGE',
  36: 'ENAMETOOLONG', 38: 'ENOSYS', 39: 'ENOTEMPTY', 40: 'ELOOP', 61: 'ENODATA', 62: 'ETIME',
  71: 'EPROTO', 74: 'EBADMSG', 75: 'EOVERFLOW', 90: 'EMSGSIZE', 93: 'EPROTONOSUPPORT',
  95: 'EOPNOTSUPP', 97: 'EAFNOSUPPORT', 105: 'ENOBUFS', 110: 'ETIMEDOUT', 111: 'ECONNREFUSED',
  114: 'EALREADY', 115: 'EINPROGRESS', 122: 'EDQUOT', 125: 'ECANCELED',
};

export function errnoName(errno: number): string {
  return NAMES[errno] ?? `E${errno}`;
}
