// conntrackDelete(netnsPath, filters, options?):
//   Promise<{ deleted, notFound, failed, received, matched, dumps, tableEntries, firstFailErrno?,
//             failedFilters? }>,
// and the registration of conntrackList (ct_js_list.cc). Arguments are validated synchronously
// (throws); the netlink work runs on a worker thread.
#include "conntrack_init.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ct_args.h"
#include "ct_delete.h"
#include "ct_js_errors.h"
#include "ct_js_list.h"

namespace {

using kpn::ct::DeleteOptions;
using kpn::ct::DeleteStats;
using kpn::ct::Filter;

class DeleteWorker : public Napi::AsyncWorker {
 public:
  DeleteWorker(Napi::Env env, std::string netns, std::vector<Filter> filters, DeleteOptions opts)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)),
        netns_(std::move(netns)), filters_(std::move(filters)), opts_(opts) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override { ok_ = kpn::ct::DeleteMatching(netns_, filters_, opts_, &stats_, &failure_); }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    if (!ok_) {
      deferred_.Reject(kpn::ct::CtError(env, "conntrack delete", failure_).Value());
      return;
    }
    Napi::Object r = Napi::Object::New(env);
    r.Set("deleted", Napi::Number::New(env, stats_.deleted));
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
    deferred_.Resolve(r);
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::string netns_;
  std::vector<Filter> filters_;
  DeleteOptions opts_;
  DeleteStats stats_;
  kpn::ct::Failure failure_;
  bool ok_ = false;
};

Napi::Value ConntrackDelete(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string netns;
  std::vector<Filter> filters;
  DeleteOptions opts;
  if (!kpn::ct::ParseNetnsPath(env, info[0], &netns)) return env.Undefined();
  if (!kpn::ct::ParseFilters(env, info[1], &filters)) return env.Undefined();
  if (!kpn::ct::ParseOptions(env, info[2], &opts)) return env.Undefined();
  auto* worker = new DeleteWorker(env, std::move(netns), std::move(filters), opts);
  Napi::Promise p = worker->Promise();
  worker->Queue();
  return p;
}

}  // namespace

void InitConntrack(Napi::Env env, Napi::Object exports) {
  exports.Set("conntrackDelete", Napi::Function::New(env, ConntrackDelete, "conntrackDelete"));
  exports.Set("conntrackList", Napi::Function::New(env, kpn::ct::ConntrackList, "conntrackList"));
}
