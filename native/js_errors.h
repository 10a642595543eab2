// Building JavaScript errors (exceptions are off: throw via ThrowAsJavaScriptException and return).
#pragma once
#include <napi.h>

#include <string>

namespace kpn {

inline void ThrowType(Napi::Env env, const std::string& msg) {
  Napi::TypeError::New(env, msg).ThrowAsJavaScriptException();
}
inline void ThrowRange(Napi::Env env, const std::string& msg) {
  Napi::RangeError::New(env, msg).ThrowAsJavaScriptException();
}
// Error with a positive errno and its code name (e.g. ENOENT) attached.
Napi::Error ErrnoError(Napi::Env env, int errnum, const std::string& msg);
const char* ErrnoName(int errnum);

}  // namespace kpn
