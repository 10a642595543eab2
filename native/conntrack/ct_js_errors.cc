#include "ct_js_errors.h"

#include <cerrno>

namespace kpn::ct {

namespace {

const char* ErrnoName(int e) {
  switch (e) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EINVAL: return "EINVAL";
    case EACCES: return "EACCES";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EPROTO: return "EPROTO";
    case EMSGSIZE: return "EMSGSIZE";
    case EAGAIN: return "EAGAIN";
    case ENOBUFS: return "ENOBUFS";
    case EBUSY: return "EBUSY";
    default: return "EUNKNOWN";
  }
}

}  // namespace

Napi::Error CtError(Napi::Env env, const std::string& prefix, const Failure& failure) {
  Napi::Error err = Napi::Error::New(env, prefix + ": " + failure.message);
  err.Set("errno", Napi::Number::New(env, failure.errnum));
  err.Set("code", Napi::String::New(env, ErrnoName(failure.errnum)));
  return err;
}

}  // namespace kpn::ct
