// The NftSocket JavaScript class: a NETLINK_NETFILTER socket in a chosen netns that commits
// transactions and dumps nftables state, each on a worker thread (Promise-returning).
#pragma once
#include <napi.h>

#include "napi/socket_gate.h"

namespace kpn {

class NftSocket : public Napi::ObjectWrap<NftSocket> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  explicit NftSocket(const Napi::CallbackInfo& info);

  // Workers call this when they finish so a close() requested meanwhile takes effect.
  void OperationDone() { gate_.OperationDone(); }

 private:
  Napi::Value Commit(const Napi::CallbackInfo& info);
  Napi::Value ListTables(const Napi::CallbackInfo& info);
  Napi::Value DumpTable(const Napi::CallbackInfo& info);
  Napi::Value Generation(const Napi::CallbackInfo& info);
  // getElements(family, table, set, keys: Buffer[]): the elements by key, without listing the set.
  Napi::Value GetElements(const Napi::CallbackInfo& info);
  // dumpChain(family, table, chain, expected?: transaction Buffer): one chain's rules; with
  // `expected`, whether each matches that transaction's addRule op for the chain at its position.
  Napi::Value DumpChain(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);
  // The socket's netlink port id: the nlmsg_pid of the change notifications its commits cause
  // (kept after close, so a monitor can still recognise late notifications).
  Napi::Value PortId(const Napi::CallbackInfo& info);

  // Throws (and returns false) if closed or busy; otherwise marks the socket busy.
  bool Acquire(Napi::Env env, const char* method) { return gate_.Acquire(env, "NftSocket", method); }

  SocketGate gate_;
  uint32_t portId_ = 0;
};

}  // namespace kpn
