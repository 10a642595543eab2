// conntrackDelete(netnsPath, filters, options?):
//   Promise<{ deleted, notFound, failed, received, matched, dumps, tableEntries, firstFailErrno? }>.
// Arguments are validated synchronously (throws); the netlink work runs on a worker thread.
#include "conntrack_init.h"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "ct_args.h"
#include "ct_delete.h"

namespace {

using kpn::ct::DeleteFailure;
using kpn::ct::DeleteOptions;
using kpn::ct::DeleteStats;
using kpn::ct::Filter;

const char* ErrnoName(int e);

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
      Napi::Error err = Napi::Error::New(env, "conntrack delete: " + failure_.message);
      err.Set("errno", Napi::Number::New(env, failure_.errnum));
      err.Set("code", Napi::String::New(env, ErrnoName(failure_.errnum)));
      deferred_.Reject(err.Value());
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
    deferred_.Resolve(r);
  }

  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  std::string netns_;
  std::vector<Filter> filters_;
  DeleteOptions opts_;
  DeleteStats stats_;
  DeleteFailure failure_;
  bool ok_ = false;
};

const char* ErrnoName(int e) {
  switch (e) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EINVAL: return "EINVAL";
    case EACCES: return "EACCES";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case EPROTO: return "EPROTO";
    case EMSGSIZE: return "EMSGSIZE";
    case EAGAIN: return "EAGAIN";
    case ENOBUFS: return "ENOBUFS";
    case EBUSY: return "EBUSY";
    default: return "EUNKNOWN";
  }
}

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
}
