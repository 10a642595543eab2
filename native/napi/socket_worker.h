// The base of a socket class's workers: it keeps the socket's JavaScript object alive while the
// exchange runs and tells the socket when the operation is over (also when it fails).
#pragma once
#include <napi.h>

#include <string>

#include "napi/errors.h"
#include "napi/promise_worker.h"
#include "netlink/request.h"
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
  // OnOK of an exchange that either failed with `err` (rejects with its errno, the message
  // "<what>: <err.message>") or succeeded (resolves with result(env)).
  template <typename Result>
  void Settle(const RequestError& err, const std::string& what, Result result) {
    Napi::Env env = Env();
    Finish();
    if (err.errnum) {
      deferred_.Reject(ErrnoError(env, err.errnum, what + ": " + err.message).Value());
      return;
    }
    deferred_.Resolve(result(env));
  }
  Owner* owner_;
  Napi::ObjectReference ownerRef_;  // keeps the JS object alive while we run
  NetlinkSocket* sock_;
};

}  // namespace kpn
