#include "napi/monitor_args.h"

#include <linux/netfilter.h>

#include "monitor/port_filter.h"
#include "napi/args.h"
#include "napi/errors.h"

namespace kpn {

namespace {

bool TableRefAt(Napi::Env env, const Napi::Value& v, size_t i, nft::TableRef* out) {
  std::string at = "interest[" + std::to_string(i) + "]";
  if (!v.IsObject()) { ThrowType(env, at + " must be an object { family, table }"); return false; }
  Napi::Object o = v.As<Napi::Object>();
  double fam;
  if (!IntegerValue(o.Get("family"), 0, 255, &fam) || (fam != double(NFPROTO_INET) && fam != double(NFPROTO_IPV4) && fam != double(NFPROTO_IPV6))) {
    ThrowRange(env, at + ".family must be 1 (inet), 2 (ip) or 10 (ip6)");
    return false;
  }
  Napi::Value t = o.Get("table");
  if (!t.IsString()) { ThrowType(env, at + ".table must be a string"); return false; }
  std::string name = t.As<Napi::String>().Utf8Value();
  if (name.empty() || name.size() > 255 || name.find('\0') != std::string::npos) {
    ThrowRange(env, at + ".table must be 1..255 bytes without NUL, got " + std::to_string(name.size()) + " bytes");
    return false;
  }
  out->family = uint8_t(fam);
  out->name = std::move(name);
  return true;
}

}  // namespace

bool InterestArg(const Napi::CallbackInfo& info, size_t index, std::vector<nft::TableRef>* out) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsArray()) { ThrowType(env, "interest must be an array"); return false; }
  Napi::Array a = info[index].As<Napi::Array>();
  if (a.Length() == 0 || a.Length() > kMaxInterest) {
    ThrowRange(env, "interest must list 1.." + std::to_string(kMaxInterest) + " tables, got " + std::to_string(a.Length()));
    return false;
  }
  out->resize(a.Length());
  for (uint32_t i = 0; i < a.Length(); i++) {
    if (!TableRefAt(env, a.Get(i), i, &(*out)[i])) return false;
  }
  return true;
}

bool PortIdsArg(const Napi::CallbackInfo& info, size_t index, std::vector<uint32_t>* out) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsArray()) { ThrowType(env, "ownPortIds must be an array"); return false; }
  Napi::Array a = info[index].As<Napi::Array>();
  if (a.Length() > kMaxOwnPortIds) {
    ThrowRange(env, "ownPortIds: at most " + std::to_string(kMaxOwnPortIds) + " port ids, got " + std::to_string(a.Length()));
    return false;
  }
  out->clear();
  for (uint32_t i = 0; i < a.Length(); i++) {
    double d;
    if (!IntegerValue(a.Get(i), 0, 4294967295.0, &d)) {
      ThrowRange(env, "ownPortIds[" + std::to_string(i) + "] must be an integer in 0..4294967295");
      return false;
    }
    out->push_back(uint32_t(d));
  }
  return true;
}

bool RecvBufferArg(const Napi::CallbackInfo& info, size_t index, size_t* out) {
  double d;
  if (info.Length() <= index || !IntegerValue(info[index], double(kMinRecvBuffer), double(kMaxRecvBuffer), &d)) {
    ThrowRange(info.Env(), "recvBufferBytes must be an integer in " + std::to_string(kMinRecvBuffer) + ".." +
                               std::to_string(kMaxRecvBuffer));
    return false;
  }
  *out = size_t(d);
  return true;
}

}  // namespace kpn
