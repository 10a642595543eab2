#include "napi/conntrack_delete.h"

#include <string>
#include <utility>
#include <vector>

#include "conntrack/ct_delete.h"
#include "napi/conntrack_args.h"
#include "napi/conntrack_worker.h"

namespace kpn {

namespace {

class DeleteWorker : public ConntrackWorker {
 public:
  DeleteWorker(Napi::Env env, std::string netns, std::vector<ct::Filter> filters, ct::DeleteOptions opts)
      : ConntrackWorker(env, "conntrack delete", std::move(netns)), filters_(std::move(filters)), opts_(opts) {}

 protected:
  bool Run(const std::string& netns, ct::Failure* failure) override {
    return ct::DeleteMatching(netns, filters_, opts_, &stats_, failure);
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Object r = Napi::Object::New(env);
    r.Set("deleted", Napi::Number::New(env, stats_.deleted));
    Napi::Object byProto = Napi::Object::New(env);
    byProto.Set("udp", Napi::Number::New(env, stats_.deletedUdp));
    byProto.Set("tcp", Napi::Number::New(env, stats_.deletedTcp));
    byProto.Set("sctp", Napi::Number::New(env, stats_.deletedSctp));
    r.Set("deletedByProtocol", byProto);
    r.Set("notFound", Napi::Number::New(env, stats_.notFound));
    r.Set("failed", Napi::Number::New(env, stats_.failed));
    r.Set("received", Napi::Number::New(env, stats_.received));
    r.Set("matched", Napi::Number::New(env, stats_.matched));
    r.Set("dumps", Napi::Number::New(env, stats_.dumps));
    r.Set("tableEntries", Napi::Number::New(env, static_cast<double>(stats_.tableEntries)));
    if (stats_.firstFailErrno) r.Set("firstFailErrno", Napi::Number::New(env, stats_.firstFailErrno));
    if (!stats_.failedFilters.empty()) {
      Napi::Array failed = Napi::Array::New(env, stats_.failedFilters.size());
      for (uint32_t i = 0; i < stats_.failedFilters.size(); i++) failed.Set(i, Napi::Number::New(env, stats_.failedFilters[i]));
      r.Set("failedFilters", failed);
    }
    return r;
  }

 private:
  std::vector<ct::Filter> filters_;
  ct::DeleteOptions opts_;
  ct::DeleteStats stats_;
};

}  // namespace

Napi::Value ConntrackDelete(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string netns;
  std::vector<ct::Filter> filters;
  ct::DeleteOptions opts;
  if (!NetnsPathArg(env, info[0], &netns) || !FiltersArg(env, info[1], &filters) || !DeleteOptionsArg(env, info[2], &opts)) {
    return env.Undefined();
  }
  return QueueWorker(new DeleteWorker(env, std::move(netns), std::move(filters), opts));
}

}  // namespace kpn
