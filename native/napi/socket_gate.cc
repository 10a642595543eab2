#include "napi/socket_gate.h"

#include <climits>
#include <cstring>
#include <string>

#include "napi/args.h"
#include "napi/errors.h"

namespace kpn {

bool SocketGate::Open(const Napi::CallbackInfo& info, int protocol, const char* protocolName) {
  Napi::Env env = info.Env();
  std::string path;
  bool hasPath = info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull();
  if (hasPath && !StringArg(info, 0, "netnsPath", 1, PATH_MAX - 1, &path)) return false;
  auto sock = std::make_unique<NetlinkSocket>();
  std::string what;
  if (int e = sock->Open(protocol, path, &what)) {
    ErrnoError(env, e, std::string("opening ") + protocolName + " socket" + (path.empty() ? "" : " in " + path) + ": " +
                           what + ": " + std::strerror(e)).ThrowAsJavaScriptException();
    return false;
  }
  sock_ = std::move(sock);
  return true;
}

bool SocketGate::Acquire(Napi::Env env, const char* cls, const char* method, const char* notReady) {
  const char* refusal = nullptr;
  if (!sock_ || closeRequested_) {
    refusal = "socket is closed";
  } else if (busy_) {
    refusal = "another operation is in progress (one at a time per socket)";
  } else {
    refusal = notReady;
  }
  if (refusal) {
    Napi::Error::New(env, std::string(cls) + "." + method + ": " + refusal).ThrowAsJavaScriptException();
    return false;
  }
  busy_ = true;
  return true;
}

void SocketGate::OperationDone() {
  busy_ = false;
  if (closeRequested_) sock_.reset();
}

void SocketGate::Close() {
  closeRequested_ = true;
  if (!busy_) sock_.reset();
}

}  // namespace kpn
