#include "napi/ipvs_socket.h"

#include <linux/netlink.h>

#include <climits>
#include <cstring>

#include "ipvs/op_decoder.h"
#include "napi/args.h"
#include "napi/errors.h"
#include "napi/ipvs_workers.h"

namespace kpn {

namespace {

// The op buffer argument, decoded and checked completely (RangeError naming the op and field).
bool OpsArg(const Napi::CallbackInfo& info, std::vector<ipvs::Op>* ops) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsBuffer()) return ThrowType(env, "buf must be a Buffer");
  auto buf = info[0].As<Napi::Buffer<uint8_t>>();
  DecodeError err;
  if (!ipvs::DecodeOps(buf.Data(), buf.Length(), ops, &err)) return ThrowRange(env, ipvs::DescribeDecodeError(err));
  return true;
}

bool ServiceKeyArg(const Napi::CallbackInfo& info, ipvs::ServiceKey* key) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsBuffer()) return ThrowType(env, "key must be a Buffer");
  auto buf = info[0].As<Napi::Buffer<uint8_t>>();
  DecodeError err;
  if (!ipvs::DecodeServiceKey(buf.Data(), buf.Length(), key, &err)) return ThrowRange(env, ipvs::DescribeDecodeError(err));
  return true;
}

bool TimeoutArg(const Napi::CallbackInfo& info, size_t i, const char* name, uint32_t* out) {
  Napi::Env env = info.Env();
  if (info.Length() <= i || !info[i].IsNumber()) return ThrowType(env, std::string(name) + " must be a number");
  double d;
  if (!IntegerValue(info[i], 0, 2147483647.0, &d)) return ThrowRange(env, std::string(name) + " must be an integer in 0..2147483647");
  *out = uint32_t(d);
  return true;
}

// validateIpvsOps(buf): the op count, or a TypeError/RangeError (the decoder apply() uses).
Napi::Value ValidateIpvsOps(const Napi::CallbackInfo& info) {
  std::vector<ipvs::Op> ops;
  if (!OpsArg(info, &ops)) return info.Env().Undefined();
  return Napi::Number::New(info.Env(), double(ops.size()));
}

}  // namespace

void IpvsSocket::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "IpvsSocket", {
    InstanceMethod<&IpvsSocket::ResolveFamily>("resolveFamily"),
    InstanceMethod<&IpvsSocket::Apply>("apply"),
    InstanceMethod<&IpvsSocket::Dump>("dump"),
    InstanceMethod<&IpvsSocket::DumpDestinations>("dumpDestinations"),
    InstanceMethod<&IpvsSocket::GetTimeouts>("getTimeouts"),
    InstanceMethod<&IpvsSocket::SetTimeouts>("setTimeouts"),
    InstanceMethod<&IpvsSocket::Close>("close"),
  });
  exports.Set("IpvsSocket", cls);
  exports.Set("validateIpvsOps", Napi::Function::New(env, ValidateIpvsOps, "validateIpvsOps"));
}

IpvsSocket::IpvsSocket(const Napi::CallbackInfo& info) : Napi::ObjectWrap<IpvsSocket>(info) {
  Napi::Env env = info.Env();
  std::string path;
  bool hasPath = info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull();
  if (hasPath && !StringArg(info, 0, "netnsPath", 1, PATH_MAX - 1, &path)) return;
  auto sock = std::make_unique<NetlinkSocket>();
  std::string what;
  if (int e = sock->Open(NETLINK_GENERIC, path, &what)) {
    ErrnoError(env, e, "opening NETLINK_GENERIC socket" + (path.empty() ? "" : " in " + path) + ": " + what + ": " +
                           std::strerror(e)).ThrowAsJavaScriptException();
    return;
  }
  sock_ = std::move(sock);
}

bool IpvsSocket::Acquire(Napi::Env env, const char* method, bool needFamily) {
  std::string where = std::string("IpvsSocket.") + method + ": ";
  if (!sock_ || closeRequested_) {
    Napi::Error::New(env, where + "socket is closed").ThrowAsJavaScriptException();
    return false;
  }
  if (busy_) {
    Napi::Error::New(env, where + "another operation is in progress (one at a time per socket)").ThrowAsJavaScriptException();
    return false;
  }
  if (needFamily && familyId_ == 0) {
    Napi::Error::New(env, where + "the IPVS family is not resolved (call resolveFamily first)").ThrowAsJavaScriptException();
    return false;
  }
  busy_ = true;
  return true;
}

void IpvsSocket::OperationDone() {
  busy_ = false;
  if (closeRequested_) sock_.reset();
}

Napi::Value IpvsSocket::ResolveFamily(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "resolveFamily", false)) return env.Undefined();
  return QueueWorker(new IpvsResolveWorker(env, this, sock_.get(), 0));
}

Napi::Value IpvsSocket::Apply(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<ipvs::Op> ops;
  if (!OpsArg(info, &ops) || !Acquire(env, "apply")) return env.Undefined();
  return QueueWorker(new IpvsApplyWorker(env, this, sock_.get(), familyId_, std::move(ops)));
}

Napi::Value IpvsSocket::Dump(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "dump")) return env.Undefined();
  return QueueWorker(new IpvsDumpWorker(env, this, sock_.get(), familyId_));
}

Napi::Value IpvsSocket::DumpDestinations(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ipvs::ServiceKey key;
  if (!ServiceKeyArg(info, &key) || !Acquire(env, "dumpDestinations")) return env.Undefined();
  return QueueWorker(new IpvsDestsWorker(env, this, sock_.get(), familyId_, key));
}

Napi::Value IpvsSocket::GetTimeouts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "getTimeouts")) return env.Undefined();
  return QueueWorker(new IpvsTimeoutsWorker(env, this, sock_.get(), familyId_, false, ipvs::Timeouts{}));
}

Napi::Value IpvsSocket::SetTimeouts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ipvs::Timeouts t;
  if (!TimeoutArg(info, 0, "tcp", &t.tcp) || !TimeoutArg(info, 1, "tcpFin", &t.tcpFin) ||
      !TimeoutArg(info, 2, "udp", &t.udp) || !Acquire(env, "setTimeouts")) {
    return env.Undefined();
  }
  return QueueWorker(new IpvsTimeoutsWorker(env, this, sock_.get(), familyId_, true, t));
}

// Closing while an operation runs is deferred until it finishes (the worker uses the fd meanwhile).
Napi::Value IpvsSocket::Close(const Napi::CallbackInfo& info) {
  closeRequested_ = true;
  if (!busy_) sock_.reset();
  return info.Env().Undefined();
}

}  // namespace kpn
