#include "ct_js_list.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <string>
#include <utility>

#include "ct_args.h"
#include "ct_js_errors.h"
#include "ct_list.h"

namespace kpn::ct {

namespace {

Napi::String AddrString(Napi::Env env, uint8_t family, const uint8_t* addr) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(family, addr, text, sizeof text);
  return Napi::String::New(env, text);
}

class ListWorker : public Napi::AsyncWorker {
 public:
  ListWorker(Napi::Env env, std::string netns, ListRequest req)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), netns_(std::move(netns)), req_(req) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override { ok_ = ListDnatFlows(netns_, req_, &result_, &failure_); }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    if (!ok_) {
      deferred_.Reject(CtError(env, "conntrack list", failure_).Value());
      return;
    }
    Napi::Array flows = Napi::Array::New(env, result_.flows.size());
    for (uint32_t i = 0; i < result_.flows.size(); i++) flows.Set(i, FlowObject(env, result_.flows[i]));
    Napi::Object r = Napi::Object::New(env);
    r.Set("flows", flows);
    r.Set("truncated", Napi::Boolean::New(env, result_.truncated));
    r.Set("received", Napi::Number::New(env, result_.received));
    deferred_.Resolve(r);
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Object FlowObject(Napi::Env env, const DnatFlow& f) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("origSrc", AddrString(env, req_.family, f.origSrc));
    o.Set("origSrcPort", Napi::Number::New(env, f.origSrcPort));
    o.Set("origDst", AddrString(env, req_.family, f.origDst));
    o.Set("origDstPort", Napi::Number::New(env, f.origDstPort));
    o.Set("replySrc", AddrString(env, req_.family, f.replySrc));
    o.Set("replySrcPort", Napi::Number::New(env, f.replySrcPort));
    return o;
  }

  Napi::Promise::Deferred deferred_;
  std::string netns_;
  ListRequest req_;
  ListResult result_;
  Failure failure_;
  bool ok_ = false;
};

}  // namespace

Napi::Value ConntrackList(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string netns;
  ListRequest req;
  if (!ParseNetnsPath(env, info[0], &netns)) return env.Undefined();
  if (!ParseListRequest(env, info[1], &req)) return env.Undefined();
  auto* worker = new ListWorker(env, std::move(netns), req);
  Napi::Promise p = worker->Promise();
  worker->Queue();
  return p;
}

}  // namespace kpn::ct
