// What NftSocket, RtnlSocket and IpvsSocket share: the netlink socket, opened in the netns their
// constructor is given, used by one operation at a time (a worker owns the fd while it runs), and
// a close() that waits for the running operation to finish.
#pragma once
#include <napi.h>

#include <memory>

#include "netlink/socket.h"

namespace kpn {

class SocketGate {
 public:
  // Opens a `protocol` socket (its name for errors: "NETLINK_ROUTE") in the netns named by the
  // constructor's optional first argument (a path; the current netns when absent). Throws (and
  // returns false) on a bad argument or a failed open.
  bool Open(const Napi::CallbackInfo& info, int protocol, const char* protocolName);

  // For `cls.method` (as "RtnlSocket", "link"): throws (and returns false) if closed, busy or
  // `notReady` is given (the reason the call cannot run yet); otherwise marks the socket busy.
  bool Acquire(Napi::Env env, const char* cls, const char* method, const char* notReady = nullptr);

  // Workers call this when they finish so a close() requested meanwhile takes effect.
  void OperationDone();
  // Closing while an operation runs is deferred until it finishes (the worker uses the fd meanwhile).
  void Close();

  NetlinkSocket* sock() const { return sock_.get(); }

 private:
  std::unique_ptr<NetlinkSocket> sock_;
  bool busy_ = false;
  bool closeRequested_ = false;
};

}  // namespace kpn
