#include "napi/ipvs_results.h"

#include "ipvs/replies.h"
#include "napi/errors.h"

namespace kpn {

namespace {

Napi::Number Num(Napi::Env env, double v) { return Napi::Number::New(env, v); }
int FamilyOf(const ipvs::Addr& a) { return a.af == ipvs::kAfInet ? 4 : 6; }

Napi::Object DestToJs(Napi::Env env, const ipvs::DestEntry& e) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("family", Num(env, FamilyOf(e.dest.key.addr)));
  o.Set("address", Napi::String::New(env, ipvs::AddrText(e.dest.key.addr)));
  o.Set("port", Num(env, e.dest.key.port));
  o.Set("weight", Num(env, e.dest.weight));
  o.Set("forward", Num(env, e.dest.forward));
  o.Set("activeConns", Num(env, e.activeConns));
  o.Set("inactiveConns", Num(env, e.inactiveConns));
  o.Set("persistConns", Num(env, e.persistConns));
  return o;
}

}  // namespace

Napi::Object ApplyResultToJs(Napi::Env env, const ipvs::ApplyResult& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("applied", Num(env, r.applied));
  o.Set("sends", Num(env, r.sends));
  o.Set("bytes", Num(env, double(r.bytes)));
  Napi::Array errors = Napi::Array::New(env, r.errors.size());
  for (size_t i = 0; i < r.errors.size(); i++) {
    const ipvs::ApplyError& e = r.errors[i];
    Napi::Object x = Napi::Object::New(env);
    x.Set("index", Num(env, double(e.opIndex)));
    x.Set("errno", Num(env, e.errnum));
    x.Set("code", Napi::String::New(env, ErrnoName(e.errnum)));
    if (!e.extack.empty()) x.Set("extack", Napi::String::New(env, e.extack));
    errors.Set(uint32_t(i), x);
  }
  o.Set("errors", errors);
  return o;
}

Napi::Array DestsToJs(Napi::Env env, const std::vector<ipvs::DestEntry>& dests) {
  Napi::Array a = Napi::Array::New(env, dests.size());
  for (size_t i = 0; i < dests.size(); i++) a.Set(uint32_t(i), DestToJs(env, dests[i]));
  return a;
}

Napi::Array ServicesToJs(Napi::Env env, const std::vector<ipvs::ServiceState>& services) {
  Napi::Array a = Napi::Array::New(env, services.size());
  for (size_t i = 0; i < services.size(); i++) {
    const ipvs::Service& s = services[i].service;
    Napi::Object o = Napi::Object::New(env);
    o.Set("family", Num(env, FamilyOf(s.key.addr)));
    o.Set("protocol", Num(env, s.key.protocol));
    o.Set("address", Napi::String::New(env, ipvs::AddrText(s.key.addr)));
    o.Set("port", Num(env, s.key.port));
    o.Set("scheduler", Napi::String::New(env, s.scheduler));
    o.Set("flags", Num(env, s.flags));
    o.Set("timeout", Num(env, s.timeout));
    o.Set("prefixLength", Num(env, s.prefixLength));
    o.Set("destinations", DestsToJs(env, services[i].dests));
    a.Set(uint32_t(i), o);
  }
  return a;
}

Napi::Object TimeoutsToJs(Napi::Env env, const ipvs::Timeouts& t) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("tcp", Num(env, t.tcp));
  o.Set("tcpFin", Num(env, t.tcpFin));
  o.Set("udp", Num(env, t.udp));
  return o;
}

}  // namespace kpn
