#include "js_errors.h"

#include <cerrno>

namespace kpn {

const char* ErrnoName(int e) {
  switch (e) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EINTR: return "EINTR";
    case EBADF: return "EBADF";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case ENODEV: return "ENODEV";
    case EINVAL: return "EINVAL";
    case ENFILE: return "ENFILE";
    case EMFILE: return "EMFILE";
    case ENOSPC: return "ENOSPC";
    case ERANGE: return "ERANGE";
    case E2BIG: return "E2BIG";
    case ELOOP: return "ELOOP";
    case ENOTEMPTY: return "ENOTEMPTY";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EPROTO: return "EPROTO";
    case EMSGSIZE: return "EMSGSIZE";
    case ENOBUFS: return "ENOBUFS";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOTDIR: return "ENOTDIR";
    case EACCES: return "EACCES";
    default: return "EUNKNOWN";
  }
}

Napi::Error ErrnoError(Napi::Env env, int errnum, const std::string& msg) {
  Napi::Error err = Napi::Error::New(env, msg);
  err.Set("errno", Napi::Number::New(env, errnum));
  err.Set("code", Napi::String::New(env, ErrnoName(errnum)));
  return err;
}

}  // namespace kpn
