#include "napi/nft_results.h"

#include <cstring>

#include "napi/errors.h"

namespace kpn {

namespace {

Napi::Buffer<uint8_t> ToBuffer(Napi::Env env, const Bytes& b) {
  return Napi::Buffer<uint8_t>::Copy(env, b.data(), b.size());
}

Napi::Object VerdictToJs(Napi::Env env, const Verdict& v) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("code", Napi::Number::New(env, v.code));
  if (!v.chain.empty()) o.Set("chain", Napi::String::New(env, v.chain));
  return o;
}

Napi::Object ChainToJs(Napi::Env env, const nft::ChainInfo& c) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", Napi::String::New(env, c.name));
  o.Set("handle", Napi::Number::New(env, double(c.handle)));
  if (c.hasHook) {
    o.Set("hook", Napi::Number::New(env, c.hook));
    o.Set("priority", Napi::Number::New(env, c.priority));
  }
  if (!c.type.empty()) o.Set("type", Napi::String::New(env, c.type));
  if (c.hasPolicy) o.Set("policy", Napi::Number::New(env, c.policy));
  return o;
}

Napi::Object RuleToJs(Napi::Env env, const nft::RuleInfo& r) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("chain", Napi::String::New(env, r.chain));
  o.Set("handle", Napi::Number::New(env, double(r.handle)));
  Napi::Array exprs = Napi::Array::New(env, r.exprs.size());
  for (size_t i = 0; i < r.exprs.size(); i++) exprs.Set(uint32_t(i), Napi::String::New(env, r.exprs[i]));
  o.Set("exprs", exprs);
  Napi::Array jumps = Napi::Array::New(env, r.jumps.size());
  for (size_t i = 0; i < r.jumps.size(); i++) jumps.Set(uint32_t(i), Napi::String::New(env, r.jumps[i]));
  o.Set("jumps", jumps);
  return o;
}

Napi::Object ElemToJs(Napi::Env env, const nft::ElemInfo& e) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("key", ToBuffer(env, e.key));
  if (!e.keyEnd.empty()) o.Set("keyEnd", ToBuffer(env, e.keyEnd));
  o.Set("flags", Napi::Number::New(env, e.flags));
  if (e.hasVerdict) o.Set("verdict", VerdictToJs(env, e.verdict));
  if (!e.data.empty()) o.Set("data", ToBuffer(env, e.data));
  return o;
}

Napi::Object SetToJs(Napi::Env env, const nft::SetInfo& s) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", Napi::String::New(env, s.name));
  o.Set("flags", Napi::Number::New(env, s.flags));
  o.Set("keyType", Napi::Number::New(env, s.keyType));
  o.Set("keyLen", Napi::Number::New(env, s.keyLen));
  o.Set("dataType", Napi::Number::New(env, s.dataType));
  o.Set("dataLen", Napi::Number::New(env, s.dataLen));
  if (!s.concat.empty()) {
    Napi::Array concat = Napi::Array::New(env, s.concat.size());
    for (size_t i = 0; i < s.concat.size(); i++) concat.Set(uint32_t(i), Napi::Number::New(env, s.concat[i]));
    o.Set("concat", concat);
  }
  Napi::Array elems = Napi::Array::New(env, s.elements.size());
  for (size_t i = 0; i < s.elements.size(); i++) elems.Set(uint32_t(i), ElemToJs(env, s.elements[i]));
  o.Set("elements", elems);
  return o;
}

template <typename T, typename F>
Napi::Array ArrayOf(Napi::Env env, const std::vector<T>& v, F fn) {
  Napi::Array a = Napi::Array::New(env, v.size());
  for (size_t i = 0; i < v.size(); i++) a.Set(uint32_t(i), fn(env, v[i]));
  return a;
}

Napi::Object CommitErrorEntry(Napi::Env env, const nft::CommitError& e) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("errno", Napi::Number::New(env, e.errnum));
  o.Set("code", Napi::String::New(env, ErrnoName(e.errnum)));
  o.Set("opIndex", Napi::Number::New(env, double(e.opIndex)));
  if (!e.extack.empty()) o.Set("extack", Napi::String::New(env, e.extack));
  return o;
}

}  // namespace

Napi::Error CommitErrorToJs(Napi::Env env, const nft::CommitResult& r) {
  const nft::CommitError& first = r.errors.front();
  std::string msg = std::string("nftables commit failed: ") + std::strerror(first.errnum);
  msg += first.opIndex >= 0 ? " (op " + std::to_string(first.opIndex) + ")" : " (batch)";
  if (!first.extack.empty()) msg += ": " + first.extack;
  if (r.errors.size() > 1) msg += " [+" + std::to_string(r.errors.size() - 1) + " more errors]";
  Napi::Error err = ErrnoError(env, first.errnum, msg);
  err.Set("opIndex", Napi::Number::New(env, double(first.opIndex)));
  err.Set("messageSeq", Napi::Number::New(env, first.seq));
  if (!first.extack.empty()) err.Set("extack", Napi::String::New(env, first.extack));
  err.Set("errors", ArrayOf(env, r.errors, CommitErrorEntry));
  return err;
}

Napi::Array TablesToJs(Napi::Env env, const std::vector<nft::TableId>& tables) {
  return ArrayOf(env, tables, [](Napi::Env e, const nft::TableId& t) {
    Napi::Object o = Napi::Object::New(e);
    o.Set("family", Napi::Number::New(e, t.family));
    o.Set("name", Napi::String::New(e, t.name));
    return o;
  });
}

Napi::Object TableDumpToJs(Napi::Env env, const nft::TableDump& d) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("chains", ArrayOf(env, d.chains, ChainToJs));
  o.Set("rules", ArrayOf(env, d.rules, RuleToJs));
  o.Set("sets", ArrayOf(env, d.sets, SetToJs));
  return o;
}

Napi::Array ElemLookupsToJs(Napi::Env env, const std::vector<nft::ElemLookup>& found) {
  return ArrayOf(env, found, [](Napi::Env e, const nft::ElemLookup& l) {
    Napi::Object o = Napi::Object::New(e);
    o.Set("found", Napi::Boolean::New(e, l.found));
    if (l.found) o.Set("element", ElemToJs(e, l.elem));
    return o;
  });
}

Napi::Object ChainRulesToJs(Napi::Env env, const std::vector<nft::RuleInfo>& rules, const std::vector<bool>& matches) {
  Napi::Array out = Napi::Array::New(env, rules.size());
  for (size_t i = 0; i < rules.size(); i++) {
    Napi::Object r = RuleToJs(env, rules[i]);
    if (i < matches.size()) r.Set("matches", Napi::Boolean::New(env, matches[i]));
    out.Set(uint32_t(i), r);
  }
  Napi::Object o = Napi::Object::New(env);
  o.Set("rules", out);
  return o;
}

}  // namespace kpn
