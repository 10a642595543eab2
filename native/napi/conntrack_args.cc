#include "napi/conntrack_args.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "napi/args.h"
#include "napi/errors.h"

namespace kpn {

using ct::DeleteOptions;
using ct::Filter;
using ct::ListRequest;

namespace {

constexpr size_t kMaxPathLen = 4096;

// Reads obj[key]; false only when reading threw (a getter). Absent/undefined -> *present = false.
bool GetField(Napi::Env env, const Napi::Object& obj, const char* key, Napi::Value* out, bool* present) {
  Napi::Value v = obj.Get(key);
  if (env.IsExceptionPending()) return false;
  *present = !v.IsUndefined();
  *out = v;
  return true;
}

bool ParseFamily(Napi::Env env, const Napi::Object& o, const std::string& name, Filter* f) {
  Napi::Value v;
  bool present = false;
  if (!GetField(env, o, "family", &v, &present)) return false;
  if (!present || !v.IsNumber()) return ThrowType(env, name + ".family must be 4 or 6");
  double d = v.As<Napi::Number>().DoubleValue();
  if (d != 4 && d != 6) return ThrowRange(env, name + ".family must be 4 or 6");
  f->family = d == 4 ? AF_INET : AF_INET6;
  return true;
}

bool ParseProtocol(Napi::Env env, const Napi::Object& o, const std::string& name, Filter* f) {
  Napi::Value v;
  bool present = false;
  if (!GetField(env, o, "protocol", &v, &present)) return false;
  if (!present || !v.IsString()) return ThrowType(env, name + ".protocol must be 'udp', 'tcp' or 'sctp'");
  std::string p = v.As<Napi::String>().Utf8Value();
  if (p == "udp") f->proto = IPPROTO_UDP;
  else if (p == "tcp") f->proto = IPPROTO_TCP;
  else if (p == "sctp") f->proto = IPPROTO_SCTP;
  else return ThrowRange(env, name + ".protocol must be 'udp', 'tcp' or 'sctp', not '" + p.substr(0, 32) + "'");
  return true;
}

bool ParseAddr(Napi::Env env, const Napi::Object& o, const std::string& name, const char* key,
               uint8_t family, uint8_t* addr, bool* has) {
  Napi::Value v;
  if (!GetField(env, o, key, &v, has)) return false;
  if (!*has) return true;
  std::string field = name + "." + key;
  if (!v.IsString()) return ThrowType(env, field + " must be an IP address string");
  std::string s = v.As<Napi::String>().Utf8Value();
  if (s.size() > INET6_ADDRSTRLEN || inet_pton(family, s.c_str(), addr) != 1) {
    return ThrowRange(env, field + " is not an IPv" + (family == AF_INET ? "4" : "6") +
                               " address: '" + s.substr(0, 64) + "'");
  }
  return true;
}

bool ParsePort(Napi::Env env, const Napi::Object& o, const std::string& name, const char* key,
               uint16_t* port, bool* has) {
  Napi::Value v;
  if (!GetField(env, o, key, &v, has)) return false;
  if (!*has) return true;
  std::string field = name + "." + key;
  if (!v.IsNumber()) return ThrowType(env, field + " must be an integer port number");
  double d = v.As<Napi::Number>().DoubleValue();
  if (!IsIntegerIn(d, 1, 65535)) return ThrowRange(env, field + " must be an integer in 1..65535");
  *port = static_cast<uint16_t>(d);
  return true;
}

bool ParseFilter(Napi::Env env, const Napi::Value& v, const std::string& name, Filter* f) {
  if (!v.IsObject() || v.IsArray()) return ThrowType(env, name + " must be an object");
  Napi::Object o = v.As<Napi::Object>();
  if (!ParseFamily(env, o, name, f) || !ParseProtocol(env, o, name, f)) return false;
  if (!ParseAddr(env, o, name, "origDst", f->family, f->origDst, &f->hasOrigDst)) return false;
  if (!ParsePort(env, o, name, "origDstPort", &f->origDstPort, &f->hasOrigDstPort)) return false;
  if (!ParseAddr(env, o, name, "replySrc", f->family, f->replySrc, &f->hasReplySrc)) return false;
  if (!ParsePort(env, o, name, "replySrcPort", &f->replySrcPort, &f->hasReplySrcPort)) return false;
  Napi::Value dnat;
  bool hasDnat = false;
  if (!GetField(env, o, "dnat", &dnat, &hasDnat)) return false;
  if (hasDnat) {
    if (!dnat.IsBoolean()) return ThrowType(env, name + ".dnat must be a boolean");
    f->dnat = dnat.As<Napi::Boolean>().Value() ? 1 : 0;
  }
  // A filter naming only family and protocol would delete every flow of that protocol.
  if (!f->hasOrigDst && !f->hasOrigDstPort && !f->hasReplySrc && !f->hasReplySrcPort) {
    return ThrowRange(env, name + " must name at least one of origDst, origDstPort, replySrc, replySrcPort");
  }
  return true;
}

}  // namespace

bool NetnsPathArg(Napi::Env env, const Napi::Value& v, std::string* out) {
  out->clear();
  if (v.IsUndefined() || v.IsNull()) return true;
  if (!v.IsString()) return ThrowType(env, "netnsPath must be a string or null");
  std::string s = v.As<Napi::String>().Utf8Value();
  if (s.empty() || s.size() > kMaxPathLen || s.find('\0') != std::string::npos) {
    return ThrowRange(env, "netnsPath must be a non-empty path without NUL bytes, at most 4096 bytes");
  }
  *out = std::move(s);
  return true;
}

bool FiltersArg(Napi::Env env, const Napi::Value& v, std::vector<Filter>* out) {
  if (!v.IsArray()) return ThrowType(env, "filters must be an array");
  Napi::Array arr = v.As<Napi::Array>();
  uint32_t n = arr.Length();
  if (n > kMaxFilters) return ThrowRange(env, "filters must have at most 65536 entries");
  out->reserve(n);
  for (uint32_t i = 0; i < n; i++) {
    Napi::Value item = arr.Get(i);
    if (env.IsExceptionPending()) return false;
    Filter f;
    if (!ParseFilter(env, item, "filters[" + std::to_string(i) + "]", &f)) return false;
    out->push_back(f);
  }
  return true;
}

bool DeleteOptionsArg(Napi::Env env, const Napi::Value& v, DeleteOptions* out) {
  if (v.IsUndefined() || v.IsNull()) return true;
  if (!v.IsObject() || v.IsArray()) return ThrowType(env, "options must be an object");
  Napi::Value c;
  bool present = false;
  if (!GetField(env, v.As<Napi::Object>(), "dumpCostEntries", &c, &present)) return false;
  if (!present) return true;
  if (!c.IsNumber()) return ThrowType(env, "options.dumpCostEntries must be a number");
  double d = c.As<Napi::Number>().DoubleValue();
  if (!IsIntegerIn(d, 0, 2147483647.0)) return ThrowRange(env, "options.dumpCostEntries must be an integer in 0..2147483647");
  out->dumpCostEntries = static_cast<uint32_t>(d);
  return true;
}

bool ListRequestArg(Napi::Env env, const Napi::Value& v, ListRequest* out) {
  if (!v.IsObject() || v.IsArray()) return ThrowType(env, "query must be an object");
  Napi::Object o = v.As<Napi::Object>();
  Filter f;
  if (!ParseFamily(env, o, "query", &f) || !ParseProtocol(env, o, "query", &f)) return false;
  if (f.proto == IPPROTO_TCP) return ThrowRange(env, "query.protocol must be 'udp' or 'sctp'");
  Napi::Value m;
  bool present = false;
  if (!GetField(env, o, "max", &m, &present)) return false;
  if (!present || !m.IsNumber()) return ThrowType(env, "query.max must be an integer");
  double d = m.As<Napi::Number>().DoubleValue();
  if (!IsIntegerIn(d, 1, kMaxListed)) return ThrowRange(env, "query.max must be an integer in 1.." + std::to_string(kMaxListed));
  out->family = f.family;
  out->proto = f.proto;
  out->max = static_cast<uint32_t>(d);
  return true;
}

}  // namespace kpn
