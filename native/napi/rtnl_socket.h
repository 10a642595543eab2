// The RtnlSocket JavaScript class: a NETLINK_ROUTE socket in a chosen netns for the IPVS mode's
// dummy link and its addresses. Each method runs on a worker thread (Promise-returning), one at a
// time per socket; close() while one runs is deferred until it finishes.
#pragma once
#include <napi.h>

#include "napi/socket_gate.h"

namespace kpn {

// What link(), createDummyLink() and deleteLink() ask the kernel (RtnlLinkWorker::Kind).
enum class RtnlLinkCall { kGet, kCreateDummy, kDelete };

class RtnlSocket : public Napi::ObjectWrap<RtnlSocket> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  explicit RtnlSocket(const Napi::CallbackInfo& info);

  // Workers call this when they finish so a close() requested meanwhile takes effect.
  void OperationDone() { gate_.OperationDone(); }

 private:
  Napi::Value Link(const Napi::CallbackInfo& info);
  Napi::Value CreateDummyLink(const Napi::CallbackInfo& info);
  Napi::Value DeleteLink(const Napi::CallbackInfo& info);
  Napi::Value ApplyAddresses(const Napi::CallbackInfo& info);
  Napi::Value Addresses(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  // The three link methods: the name argument checked, then one RtnlLinkWorker.
  Napi::Value LinkCall(const Napi::CallbackInfo& info, const char* method, RtnlLinkCall kind);

  // Throws (and returns false) if closed or busy; otherwise marks the socket busy.
  bool Acquire(Napi::Env env, const char* method) { return gate_.Acquire(env, "RtnlSocket", method); }

  SocketGate gate_;
};

}  // namespace kpn
