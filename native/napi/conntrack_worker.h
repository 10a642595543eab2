// A conntrack call on the libuv pool: Run() opens its own socket in the namespace and does the
// work; back on the main thread the Promise resolves with Result(), or rejects with an errno error
// ("conntrack delete: <what failed>").
#pragma once
#include <napi.h>

#include <string>
#include <utility>

#include "conntrack/ct_types.h"
#include "napi/errors.h"
#include "napi/promise_worker.h"

namespace kpn {

class ConntrackWorker : public PromiseWorker {
 public:
  ConntrackWorker(Napi::Env env, const char* call, std::string netns)
      : PromiseWorker(env), call_(call), netns_(std::move(netns)) {}

  void Execute() override { ok_ = Run(netns_, &failure_); }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    if (ok_) {
      deferred_.Resolve(Result(env));
    } else {
      deferred_.Reject(ErrnoError(env, failure_.errnum, std::string(call_) + ": " + failure_.message).Value());
    }
  }

 protected:
  // Worker thread: false with *failure set when the call failed as a whole.
  virtual bool Run(const std::string& netns, ct::Failure* failure) = 0;
  // Main thread, after Run() succeeded.
  virtual Napi::Value Result(Napi::Env env) = 0;

 private:
  const char* call_;
  std::string netns_;
  ct::Failure failure_;
  bool ok_ = false;
};

}  // namespace kpn
