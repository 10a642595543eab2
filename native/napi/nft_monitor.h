// The NftMonitor JavaScript class: watches nftables changes (NFNLGRP_NFTABLES) in a netns on a
// reader thread and calls a JavaScript function with batches of events.
//
// Lifetime: while open, the object keeps itself alive (a strong reference) but not the event loop
// (the thread-safe function is unref'd, like an unref'd timer). close() — or the environment's
// teardown, or garbage collection after close — aborts the queue to JavaScript (batches still
// queued are dropped, none is delivered after close() returns), wakes and joins the thread.
#pragma once
#include <napi.h>

#include <memory>
#include <vector>

#include "monitor/monitor_reader.h"

namespace kpn {

class NftMonitor : public Napi::ObjectWrap<NftMonitor> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  // new NftMonitor(netnsPath | null, interest, ownPortIds, recvBufferBytes, onEvents)
  explicit NftMonitor(const Napi::CallbackInfo& info);
  ~NftMonitor() override;

 private:
  using Batch = std::vector<MonitorEvent>;
  static void CallJs(Napi::Env env, Napi::Function cb, std::nullptr_t* ctx, Batch* batch);
  using Tsfn = Napi::TypedThreadSafeFunction<std::nullptr_t, Batch, CallJs>;
  static void OnEnvTeardown(void* self);

  Napi::Value SetOwnPortIds(const Napi::CallbackInfo& info);
  Napi::Value SetSubscribed(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  Napi::Value PortId(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);

  // Stops delivery and the thread. Safe to call more than once.
  void Shutdown();

  std::unique_ptr<MonitorReader> reader_;
  Tsfn tsfn_;
  bool running_ = false;     // thread started, tsfn not yet aborted
  bool selfRef_ = false;     // holding a strong reference to our JS object
  bool hookAdded_ = false;   // env cleanup hook registered (and not yet run)
  napi_env env_ = nullptr;
  uint32_t portId_ = 0;
  MonitorReader::Stats lastStats_{0, 0, 0};  // kept across close()
};

}  // namespace kpn
