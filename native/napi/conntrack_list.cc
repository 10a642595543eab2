#include "napi/conntrack_list.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <string>
#include <utility>

#include "conntrack/ct_list.h"
#include "napi/conntrack_args.h"
#include "napi/conntrack_worker.h"

namespace kpn {

namespace {

Napi::String AddrString(Napi::Env env, uint8_t family, const uint8_t* addr) {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(family, addr, text, sizeof text);
  return Napi::String::New(env, text);
}

class ListWorker : public ConntrackWorker {
 public:
  ListWorker(Napi::Env env, std::string netns, ct::ListRequest req)
      : ConntrackWorker(env, "conntrack list", std::move(netns)), req_(req) {}

 protected:
  bool Run(const std::string& netns, ct::Failure* failure) override {
    return ct::ListDnatFlows(netns, req_, &result_, failure);
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Array flows = Napi::Array::New(env, result_.flows.size());
    for (uint32_t i = 0; i < result_.flows.size(); i++) flows.Set(i, FlowObject(env, result_.flows[i]));
    Napi::Object r = Napi::Object::New(env);
    r.Set("flows", flows);
    r.Set("truncated", Napi::Boolean::New(env, result_.truncated));
    r.Set("received", Napi::Number::New(env, result_.received));
    return r;
  }

 private:
  Napi::Object FlowObject(Napi::Env env, const ct::DnatFlow& f) const {
    Napi::Object o = Napi::Object::New(env);
    o.Set("origSrc", AddrString(env, req_.family, f.origSrc));
    o.Set("origSrcPort", Napi::Number::New(env, f.origSrcPort));
    o.Set("origDst", AddrString(env, req_.family, f.origDst));
    o.Set("origDstPort", Napi::Number::New(env, f.origDstPort));
    o.Set("replySrc", AddrString(env, req_.family, f.replySrc));
    o.Set("replySrcPort", Napi::Number::New(env, f.replySrcPort));
    return o;
  }

  ct::ListRequest req_;
  ct::ListResult result_;
};

}  // namespace

Napi::Value ConntrackList(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string netns;
  ct::ListRequest req;
  if (!NetnsPathArg(env, info[0], &netns) || !ListRequestArg(env, info[1], &req)) return env.Undefined();
  return QueueWorker(new ListWorker(env, std::move(netns), req));
}

}  // namespace kpn
