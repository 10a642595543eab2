#include "monitor_js.h"

#include <linux/netfilter.h>

#include <cmath>

#include "../js_errors.h"
#include "port_filter.h"

namespace kpn {

namespace {

bool IsInteger(const Napi::Value& v, double lo, double hi, double* out) {
  if (!v.IsNumber()) return false;
  double d = v.As<Napi::Number>().DoubleValue();
  if (!std::isfinite(d) || std::floor(d) != d || d < lo || d > hi) return false;
  *out = d;
  return true;
}

bool TableRefAt(Napi::Env env, const Napi::Value& v, size_t i, nft::TableRef* out) {
  std::string at = "interest[" + std::to_string(i) + "]";
  if (!v.IsObject()) { ThrowType(env, at + " must be an object { family, table }"); return false; }
  Napi::Object o = v.As<Napi::Object>();
  double fam;
  if (!IsInteger(o.Get("family"), 0, 255, &fam) || (fam != NFPROTO_INET && fam != NFPROTO_IPV4 && fam != NFPROTO_IPV6)) {
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

Napi::Object ChangeToJs(Napi::Env env, const nft::Change& c) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("op", nft::ChangeOpName(c.op));
  o.Set("kind", nft::ChangeKindName(c.kind));
  o.Set("family", Napi::Number::New(env, c.family));
  o.Set("table", c.table);
  if (!c.name.empty()) o.Set("name", c.name);
  o.Set("count", Napi::Number::New(env, c.count));
  if (c.kind == nft::ChangeKind::kUnknown) o.Set("msgType", Napi::Number::New(env, c.msgType));
  return o;
}

Napi::Object EventToJs(Napi::Env env, const MonitorEvent& e) {
  Napi::Object o = Napi::Object::New(env);
  switch (e.type) {
    case MonitorEvent::Type::kOverflow:
      o.Set("type", "overflow");
      return o;
    case MonitorEvent::Type::kError:
      o.Set("type", "error");
      o.Set("errno", Napi::Number::New(env, e.errnum));
      o.Set("code", ErrnoName(e.errnum));
      o.Set("message", e.message);
      return o;
    case MonitorEvent::Type::kCommit:
      break;
  }
  const nft::CommitReport& r = e.report;
  o.Set("type", "commit");
  o.Set("portId", Napi::Number::New(env, r.portId));
  if (r.hasGenId) o.Set("genId", Napi::Number::New(env, r.genId));
  if (r.hasPid) o.Set("pid", Napi::Number::New(env, r.pid));
  if (!r.comm.empty()) o.Set("comm", r.comm);
  Napi::Array changes = Napi::Array::New(env, r.changes.size());
  for (size_t i = 0; i < r.changes.size(); i++) changes.Set(uint32_t(i), ChangeToJs(env, r.changes[i]));
  o.Set("changes", changes);
  return o;
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
    if (!IsInteger(a.Get(i), 0, 4294967295.0, &d)) {
      ThrowRange(env, "ownPortIds[" + std::to_string(i) + "] must be an integer in 0..4294967295");
      return false;
    }
    out->push_back(uint32_t(d));
  }
  return true;
}

bool RecvBufferArg(const Napi::CallbackInfo& info, size_t index, size_t* out) {
  double d;
  if (info.Length() <= index || !IsInteger(info[index], double(kMinRecvBuffer), double(kMaxRecvBuffer), &d)) {
    ThrowRange(info.Env(), "recvBufferBytes must be an integer in " + std::to_string(kMinRecvBuffer) + ".." +
                               std::to_string(kMaxRecvBuffer));
    return false;
  }
  *out = size_t(d);
  return true;
}

Napi::Array MonitorEventsToJs(Napi::Env env, const std::vector<MonitorEvent>& events) {
  Napi::Array a = Napi::Array::New(env, events.size());
  for (size_t i = 0; i < events.size(); i++) a.Set(uint32_t(i), EventToJs(env, events[i]));
  return a;
}

}  // namespace kpn
