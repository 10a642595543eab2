// Building JavaScript errors (exceptions are off: throw via ThrowAsJavaScriptException and return).
// Every error that comes from a system call or the kernel is made by ErrnoError, so each carries
// `errno` (positive) and `code` (its name from the addon's one errno table) the same way.
#pragma once
#include <napi.h>

#include <string>

namespace kpn {

// Both return false, so argument checks can `return ThrowType(...)`.
inline bool ThrowType(Napi::Env env, const std::string& msg) {
  Napi::TypeError::New(env, msg).ThrowAsJavaScriptException();
  return false;
}
inline bool ThrowRange(Napi::Env env, const std::string& msg) {
  Napi::RangeError::New(env, msg).ThrowAsJavaScriptException();
  return false;
}

// The errno's symbolic name ("ENOENT"); "E<n>" for one the table does not know.
std::string ErrnoName(int errnum);

// Error with a positive errno and its code name attached.
Napi::Error ErrnoError(Napi::Env env, int errnum, const std::string& msg);

}  // namespace kpn
