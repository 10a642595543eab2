#include "napi/monitor_events.h"

#include "napi/errors.h"

namespace kpn {

namespace {

// Events are built with the plain C API, checking every status: the call comes from the
// thread-safe function, possibly while a worker's environment is being terminated from another
// thread, and node-addon-api answers a failed call there with a fatal error.
class JsBuilder {
 public:
  explicit JsBuilder(napi_env env) : env_(env) {}
  bool ok() const { return ok_; }

  napi_value Object() { return Make([&](napi_value* v) { return napi_create_object(env_, v); }); }
  napi_value Array(size_t n) { return Make([&](napi_value* v) { return napi_create_array_with_length(env_, n, v); }); }
  napi_value Num(double d) { return Make([&](napi_value* v) { return napi_create_double(env_, d, v); }); }
  napi_value Str(const std::string& s) {
    return Make([&](napi_value* v) { return napi_create_string_utf8(env_, s.data(), s.size(), v); });
  }
  void Set(napi_value obj, const char* key, napi_value v) {
    if (ok_ && v) ok_ = napi_set_named_property(env_, obj, key, v) == napi_ok;
  }
  void SetAt(napi_value arr, uint32_t i, napi_value v) {
    if (ok_ && v) ok_ = napi_set_element(env_, arr, i, v) == napi_ok;
  }

 private:
  template <typename F>
  napi_value Make(F create) {
    napi_value v = nullptr;
    if (ok_ && create(&v) != napi_ok) ok_ = false;
    return ok_ ? v : nullptr;
  }
  napi_env env_;
  bool ok_ = true;
};

napi_value ChangeToJs(JsBuilder& b, const nft::Change& c) {
  napi_value o = b.Object();
  b.Set(o, "op", b.Str(nft::ChangeOpName(c.op)));
  b.Set(o, "kind", b.Str(nft::ChangeKindName(c.kind)));
  b.Set(o, "family", b.Num(c.family));
  b.Set(o, "table", b.Str(c.table));
  if (!c.name.empty()) b.Set(o, "name", b.Str(c.name));
  b.Set(o, "count", b.Num(c.count));
  if (c.kind == nft::ChangeKind::kUnknown) b.Set(o, "msgType", b.Num(c.msgType));
  return o;
}

napi_value EventToJs(JsBuilder& b, const MonitorEvent& e) {
  napi_value o = b.Object();
  switch (e.type) {
    case MonitorEvent::Type::kOverflow:
      b.Set(o, "type", b.Str("overflow"));
      return o;
    case MonitorEvent::Type::kError:
      b.Set(o, "type", b.Str("error"));
      b.Set(o, "errno", b.Num(e.errnum));
      b.Set(o, "code", b.Str(ErrnoName(e.errnum)));
      b.Set(o, "message", b.Str(e.message));
      return o;
    case MonitorEvent::Type::kCommit:
      break;
  }
  const nft::CommitReport& r = e.report;
  b.Set(o, "type", b.Str("commit"));
  b.Set(o, "portId", b.Num(r.portId));
  if (r.hasGenId) b.Set(o, "genId", b.Num(r.genId));
  if (r.hasPid) b.Set(o, "pid", b.Num(r.pid));
  if (!r.comm.empty()) b.Set(o, "comm", b.Str(r.comm));
  napi_value changes = b.Array(r.changes.size());
  for (size_t i = 0; i < r.changes.size() && b.ok(); i++) b.SetAt(changes, uint32_t(i), ChangeToJs(b, r.changes[i]));
  b.Set(o, "changes", changes);
  return o;
}

}  // namespace

napi_value MonitorEventsToJs(napi_env env, const std::vector<MonitorEvent>& events) {
  JsBuilder b(env);
  napi_value a = b.Array(events.size());
  for (size_t i = 0; i < events.size() && b.ok(); i++) b.SetAt(a, uint32_t(i), EventToJs(b, events[i]));
  return b.ok() ? a : nullptr;
}

}  // namespace kpn
