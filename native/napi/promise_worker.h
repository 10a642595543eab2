// The shape of every asynchronous call the addon exports: arguments are checked on the main
// thread, Execute() does the netlink work on the libuv pool (no JavaScript there), and OnOK()
// settles a Promise back on the main thread.
#pragma once
#include <napi.h>

namespace kpn {

class PromiseWorker : public Napi::AsyncWorker {
 public:
  explicit PromiseWorker(Napi::Env env) : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise Promise() { return deferred_.Promise(); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 protected:
  Napi::Promise::Deferred deferred_;
};

// Queues the worker (the pool deletes it when done) and returns its Promise.
inline Napi::Value QueueWorker(PromiseWorker* w) {
  Napi::Promise p = w->Promise();
  w->Queue();
  return p;
}

}  // namespace kpn
