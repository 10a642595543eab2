#include "napi/nft_socket.h"

#include <linux/netlink.h>

#include <climits>
#include <cstring>

#include "napi/args.h"
#include "napi/errors.h"
#include "napi/nft_workers.h"

namespace kpn {

void NftSocket::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "NftSocket", {
    InstanceMethod<&NftSocket::Commit>("commit"),
    InstanceMethod<&NftSocket::ListTables>("listTables"),
    InstanceMethod<&NftSocket::DumpTable>("dumpTable"),
    InstanceMethod<&NftSocket::Generation>("generation"),
    InstanceMethod<&NftSocket::Close>("close"),
    InstanceAccessor<&NftSocket::PortId>("portId"),
  });
  exports.Set("NftSocket", cls);
}

NftSocket::NftSocket(const Napi::CallbackInfo& info) : Napi::ObjectWrap<NftSocket>(info) {
  Napi::Env env = info.Env();
  std::string path;
  bool hasPath = info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull();
  if (hasPath && !StringArg(info, 0, "netnsPath", 1, PATH_MAX - 1, &path)) return;
  auto sock = std::make_unique<NetlinkSocket>();
  std::string what;
  if (int e = sock->Open(NETLINK_NETFILTER, path, &what)) {
    ErrnoError(env, e, "opening NETLINK_NETFILTER socket" + (path.empty() ? "" : " in " + path) + ": " +
                           what + ": " + std::strerror(e)).ThrowAsJavaScriptException();
    return;
  }
  portId_ = sock->portid();
  sock_ = std::move(sock);
}

bool NftSocket::Acquire(Napi::Env env, const char* method) {
  if (!sock_ || closeRequested_) {
    Napi::Error::New(env, std::string("NftSocket.") + method + ": socket is closed").ThrowAsJavaScriptException();
    return false;
  }
  if (busy_) {
    Napi::Error::New(env, std::string("NftSocket.") + method +
                              ": another operation is in progress (one at a time per socket)").ThrowAsJavaScriptException();
    return false;
  }
  busy_ = true;
  return true;
}

void NftSocket::OperationDone() {
  busy_ = false;
  if (closeRequested_) sock_.reset();
}

Napi::Value NftSocket::Commit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Transaction txn;
  if (!TransactionArg(info, 0, "buf", &txn) || !Acquire(env, "commit")) return env.Undefined();
  // The worker reads the buffer's ops again while it encodes them (no copy of the transaction).
  return QueueWorker(new CommitWorker(env, this, sock_.get(), std::move(txn), info[0].As<Napi::Buffer<uint8_t>>()));
}

Napi::Value NftSocket::ListTables(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "listTables")) return env.Undefined();
  return QueueWorker(new ListTablesWorker(env, this, sock_.get()));
}

Napi::Value NftSocket::Generation(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "generation")) return env.Undefined();
  return QueueWorker(new GenerationWorker(env, this, sock_.get()));
}

Napi::Value NftSocket::DumpTable(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint8_t family;
  std::string name;
  if (!FamilyArg(info, 0, "family", &family) || !StringArg(info, 1, "name", 1, 255, &name)) return env.Undefined();
  bool withElements = true;
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    if (!info[2].IsBoolean()) {
      ThrowType(env, "withElements must be a boolean");
      return env.Undefined();
    }
    withElements = info[2].As<Napi::Boolean>().Value();
  }
  if (!Acquire(env, "dumpTable")) return env.Undefined();
  return QueueWorker(new DumpTableWorker(env, this, sock_.get(), family, std::move(name), withElements));
}

// Closing while an operation runs is deferred until it finishes (the worker owns the fd meanwhile).
Napi::Value NftSocket::Close(const Napi::CallbackInfo& info) {
  closeRequested_ = true;
  if (!busy_) sock_.reset();
  return info.Env().Undefined();
}

Napi::Value NftSocket::PortId(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), portId_); }

}  // namespace kpn
