#include "napi/nft_monitor.h"

#include <climits>
#include <cstring>

#include "napi/args.h"
#include "napi/errors.h"
#include "napi/monitor_args.h"
#include "napi/monitor_events.h"

namespace kpn {

namespace {
// Batches waiting for JavaScript. When they pile up the reader blocks, the kernel keeps queueing
// into the socket buffer and, once that is full, reports an overflow: back-pressure ends in an
// overflow event, never in unbounded memory.
constexpr size_t kMaxQueuedBatches = 64;
}  // namespace

void NftMonitor::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "NftMonitor", {
    InstanceMethod<&NftMonitor::SetOwnPortIds>("setOwnPortIds"),
    InstanceMethod<&NftMonitor::SetSubscribed>("setSubscribed"),
    InstanceMethod<&NftMonitor::Close>("close"),
    InstanceMethod<&NftMonitor::Stats>("stats"),
    InstanceAccessor<&NftMonitor::PortId>("portId"),
  });
  exports.Set("NftMonitor", cls);
}

NftMonitor::NftMonitor(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NftMonitor>(info), env_(info.Env()) {
  Napi::Env env = info.Env();
  MonitorOptions opts;
  bool hasPath = info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull();
  if (hasPath && !StringArg(info, 0, "netnsPath", 1, PATH_MAX - 1, &opts.netnsPath)) return;
  if (!InterestArg(info, 1, &opts.interest) || !PortIdsArg(info, 2, &opts.ownPortIds) ||
      !RecvBufferArg(info, 3, &opts.recvBufferBytes)) {
    return;
  }
  if (info.Length() <= 4 || !info[4].IsFunction()) {
    ThrowType(env, "onEvents must be a function");
    return;
  }
  auto reader = std::make_unique<MonitorReader>();
  std::string what;
  if (int e = reader->Open(opts, &what)) {
    ErrnoError(env, e, "opening nftables monitor" + (opts.netnsPath.empty() ? "" : " in " + opts.netnsPath) + ": " +
                           what + ": " + std::strerror(e)).ThrowAsJavaScriptException();
    return;
  }
  tsfn_ = Tsfn::New(env, info[4].As<Napi::Function>(), "kpn:NftMonitor", kMaxQueuedBatches, 1);
  tsfn_.Unref(env);
  Tsfn tsfn = tsfn_;
  int e = reader->Start([tsfn](Batch&& events) {
    auto* batch = new Batch(std::move(events));
    if (tsfn.BlockingCall(batch) == napi_ok) return true;
    delete batch;  // closing: nobody will read it
    return false;
  });
  if (e) {
    tsfn_.Abort();
    ErrnoError(env, e, std::string("starting the nftables monitor thread: ") + std::strerror(e)).ThrowAsJavaScriptException();
    return;
  }
  portId_ = reader->portId();
  reader_ = std::move(reader);
  running_ = true;
  // Registered after the thread-safe function, so it runs before that function's own teardown.
  hookAdded_ = napi_add_env_cleanup_hook(env, OnEnvTeardown, this) == napi_ok;
  Ref();
  selfRef_ = true;
}

NftMonitor::~NftMonitor() {
  if (hookAdded_) napi_remove_env_cleanup_hook(env_, OnEnvTeardown, this);
  hookAdded_ = false;
  Shutdown();
}

void NftMonitor::OnEnvTeardown(void* self) {
  auto* m = static_cast<NftMonitor*>(self);
  m->hookAdded_ = false;  // node has removed it by running it
  m->Shutdown();
}

void NftMonitor::Shutdown() {
  if (running_) {
    // Abort first: it wakes a reader blocked on a full queue (its call returns napi_closing), so
    // the join below cannot wait on JavaScript.
    tsfn_.Abort();
    running_ = false;
  }
  if (reader_) {
    reader_->Stop();
    lastStats_ = reader_->stats();
  }
  reader_.reset();
}

// Plain C API only (see MonitorEventsToJs): a failure means the environment is going away.
// An exception thrown by the callback stays pending and Node reports it as uncaught.
void NftMonitor::CallJs(Napi::Env env, Napi::Function cb, std::nullptr_t*, Batch* batch) {
  std::unique_ptr<Batch> owned(batch);
  if (env == nullptr || cb.IsEmpty() || !owned) return;  // the queue is being emptied on close
  napi_value events = MonitorEventsToJs(env, *owned);
  napi_value recv;
  if (events == nullptr || napi_get_undefined(env, &recv) != napi_ok) return;
  napi_call_function(env, recv, cb, 1, &events, nullptr);
}

Napi::Value NftMonitor::SetOwnPortIds(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<uint32_t> ids;
  if (!PortIdsArg(info, 0, &ids)) return env.Undefined();
  if (!reader_) {
    Napi::Error::New(env, "NftMonitor.setOwnPortIds: the monitor is closed").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (int e = reader_->SetOwnPortIds(std::move(ids))) {
    ErrnoError(env, e, std::string("NftMonitor.setOwnPortIds: SO_ATTACH_FILTER: ") + std::strerror(e)).ThrowAsJavaScriptException();
  }
  return env.Undefined();
}

Napi::Value NftMonitor::SetSubscribed(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsBoolean()) {
    Napi::TypeError::New(env, "NftMonitor.setSubscribed: expected a boolean").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  if (!reader_) {
    Napi::Error::New(env, "NftMonitor.setSubscribed: the monitor is closed").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  bool on = info[0].As<Napi::Boolean>().Value();
  if (int e = reader_->SetSubscribed(on)) {
    ErrnoError(env, e, std::string("NftMonitor.setSubscribed: ") + (on ? "NETLINK_ADD_MEMBERSHIP: " : "NETLINK_DROP_MEMBERSHIP: ") +
                           std::strerror(e)).ThrowAsJavaScriptException();
  }
  return env.Undefined();
}

Napi::Value NftMonitor::Close(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (hookAdded_) napi_remove_env_cleanup_hook(env, OnEnvTeardown, this);
  hookAdded_ = false;
  Shutdown();
  if (selfRef_) {
    selfRef_ = false;
    Unref();
  }
  return env.Undefined();
}

Napi::Value NftMonitor::PortId(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), portId_);
}

Napi::Value NftMonitor::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  MonitorReader::Stats s = reader_ ? reader_->stats() : lastStats_;
  Napi::Object o = Napi::Object::New(env);
  o.Set("datagrams", Napi::Number::New(env, double(s.datagrams)));
  o.Set("bytes", Napi::Number::New(env, double(s.bytes)));
  o.Set("overflows", Napi::Number::New(env, double(s.overflows)));
  return o;
}

}  // namespace kpn
