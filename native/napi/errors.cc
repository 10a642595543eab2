#include "napi/errors.h"

#include <cerrno>

namespace kpn {

namespace {

struct ErrnoEntry { int errnum; const char* name; };

// The errnos the nftables, conntrack and monitor paths can meet (the kernel's replies, socket and
// netns calls). The macros, not numbers: a few differ between architectures.
constexpr ErrnoEntry kErrnoNames[] = {
  {EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {ESRCH, "ESRCH"}, {EINTR, "EINTR"}, {EIO, "EIO"},
  {ENXIO, "ENXIO"}, {E2BIG, "E2BIG"}, {EBADF, "EBADF"}, {EAGAIN, "EAGAIN"}, {ENOMEM, "ENOMEM"},
  {EACCES, "EACCES"}, {EFAULT, "EFAULT"}, {EBUSY, "EBUSY"}, {EEXIST, "EEXIST"}, {ENODEV, "ENODEV"},
  {ENOTDIR, "ENOTDIR"}, {EINVAL, "EINVAL"}, {ENFILE, "ENFILE"}, {EMFILE, "EMFILE"}, {EFBIG, "EFBIG"},
  {ENOSPC, "ENOSPC"}, {ERANGE, "ERANGE"}, {ENAMETOOLONG, "ENAMETOOLONG"}, {ENOSYS, "ENOSYS"},
  {ENOTEMPTY, "ENOTEMPTY"}, {ELOOP, "ELOOP"}, {ENODATA, "ENODATA"}, {ETIME, "ETIME"},
  {EPROTO, "EPROTO"}, {EBADMSG, "EBADMSG"}, {EOVERFLOW, "EOVERFLOW"}, {EMSGSIZE, "EMSGSIZE"},
  {EPROTONOSUPPORT, "EPROTONOSUPPORT"}, {EOPNOTSUPP, "EOPNOTSUPP"}, {EAFNOSUPPORT, "EAFNOSUPPORT"},
  {ENOBUFS, "ENOBUFS"}, {ETIMEDOUT, "ETIMEDOUT"}, {ECONNREFUSED, "ECONNREFUSED"},
  {EALREADY, "EALREADY"}, {EINPROGRESS, "EINPROGRESS"}, {EDQUOT, "EDQUOT"}, {ECANCELED, "ECANCELED"},
  {EADDRNOTAVAIL, "EADDRNOTAVAIL"},  // rtnetlink: deleting an address the link does not hold
};

}  // namespace

std::string ErrnoName(int errnum) {
  for (const ErrnoEntry& e : kErrnoNames) {
    if (e.errnum == errnum) return e.name;
  }
  return "E" + std::to_string(errnum);
}

Napi::Error ErrnoError(Napi::Env env, int errnum, const std::string& msg) {
  Napi::Error err = Napi::Error::New(env, msg);
  err.Set("errno", Napi::Number::New(env, errnum));
  err.Set("code", Napi::String::New(env, ErrnoName(errnum)));
  return err;
}

}  // namespace kpn
