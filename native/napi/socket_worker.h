// The base of a socket class's workers: it keeps the socket's JavaScript object alive while the
// exchange runs and tells the socket when the operation is over (also when it fails).
#pragma once
#include <napi.h>

#include "napi/promise_worker.h"
#include "netlink/socket.h"

namespace kpn {

// Owner: an ObjectWrap with OperationDone() (NftSocket, RtnlSocket, IpvsSocket).
template <typename Owner>
class SocketWorker : public PromiseWorker {
 public:
  SocketWorker(Napi::Env env, Owner* owner, NetlinkSocket* sock)
      : PromiseWorker(env), owner_(owner), ownerRef_(Napi::Persistent(owner->Value())), sock_(sock) {}
  void OnError(const Napi::Error& e) override {
    Finish();
    PromiseWorker::OnError(e);
  }

 protected:
  void Finish() { owner_->OperationDone(); }  // releases the owner's busy flag
  Owner* owner_;
  Napi::ObjectReference ownerRef_;  // keeps the JS object alive while we run
  NetlinkSocket* sock_;
};

}  // namespace kpn
