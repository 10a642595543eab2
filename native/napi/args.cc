#include "napi/args.h"

#include <linux/netfilter.h>

#include <cmath>

#include "napi/errors.h"
#include "txn/decoder.h"

namespace kpn {

bool TransactionArg(const Napi::CallbackInfo& info, size_t index, const char* name, Transaction* out) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsBuffer()) {
    ThrowType(env, std::string(name) + " must be a Buffer");
    return false;
  }
  Napi::Buffer<uint8_t> buf = info[index].As<Napi::Buffer<uint8_t>>();
  DecodeError err;
  if (!DecodeTransaction(buf.Data(), buf.Length(), out, &err)) {
    ThrowRange(env, err.ToString());
    return false;
  }
  return true;
}

bool StringArg(const Napi::CallbackInfo& info, size_t index, const char* name, size_t minLen, size_t maxLen, std::string* out) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsString()) {
    ThrowType(env, std::string(name) + " must be a string");
    return false;
  }
  *out = info[index].As<Napi::String>().Utf8Value();
  if (out->size() < minLen || out->size() > maxLen) {
    ThrowRange(env, std::string(name) + " must be " + std::to_string(minLen) + ".." +
                        std::to_string(maxLen) + " bytes long, got " + std::to_string(out->size()));
    return false;
  }
  if (out->find('\0') != std::string::npos) {
    ThrowRange(env, std::string(name) + " must not contain a NUL character");
    return false;
  }
  return true;
}

bool FamilyArg(const Napi::CallbackInfo& info, size_t index, const char* name, uint8_t* out) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsNumber()) {
    ThrowType(env, std::string(name) + " must be a number");
    return false;
  }
  double v = info[index].As<Napi::Number>().DoubleValue();
  if (v != double(NFPROTO_INET) && v != double(NFPROTO_IPV4) && v != double(NFPROTO_IPV6)) {
    ThrowRange(env, std::string(name) + " must be 1 (inet), 2 (ip) or 10 (ip6)");
    return false;
  }
  *out = uint8_t(v);
  return true;
}

bool IsIntegerIn(double d, double lo, double hi) {
  return std::isfinite(d) && std::floor(d) == d && d >= lo && d <= hi;
}

bool IntegerValue(const Napi::Value& v, double lo, double hi, double* out) {
  if (!v.IsNumber()) return false;
  double d = v.As<Napi::Number>().DoubleValue();
  if (!IsIntegerIn(d, lo, hi)) return false;
  *out = d;
  return true;
}

}  // namespace kpn
