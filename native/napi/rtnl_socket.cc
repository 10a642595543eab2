#include "napi/rtnl_socket.h"

#include <linux/if.h>
#include <linux/netlink.h>

#include "napi/args.h"
#include "napi/errors.h"
#include "napi/rtnl_workers.h"
#include "rtnl/addr_ops.h"

namespace kpn {

namespace {

// A link name as the kernel takes it: 1..IFNAMSIZ-1 bytes, no NUL.
bool LinkNameArg(const Napi::CallbackInfo& info, std::string* out) {
  return StringArg(info, 0, "name", 1, IFNAMSIZ - 1, out);
}

}  // namespace

void RtnlSocket::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "RtnlSocket", {
    InstanceMethod<&RtnlSocket::Link>("link"),
    InstanceMethod<&RtnlSocket::CreateDummyLink>("createDummyLink"),
    InstanceMethod<&RtnlSocket::DeleteLink>("deleteLink"),
    InstanceMethod<&RtnlSocket::ApplyAddresses>("applyAddresses"),
    InstanceMethod<&RtnlSocket::Addresses>("addresses"),
    InstanceMethod<&RtnlSocket::Close>("close"),
  });
  exports.Set("RtnlSocket", cls);
}

RtnlSocket::RtnlSocket(const Napi::CallbackInfo& info) : Napi::ObjectWrap<RtnlSocket>(info) {
  gate_.Open(info, NETLINK_ROUTE, "NETLINK_ROUTE");
}

Napi::Value RtnlSocket::LinkCall(const Napi::CallbackInfo& info, const char* method, RtnlLinkCall kind) {
  Napi::Env env = info.Env();
  std::string name;
  if (!LinkNameArg(info, &name) || !Acquire(env, method)) return env.Undefined();
  return QueueWorker(new RtnlLinkWorker(env, this, gate_.sock(), kind, std::move(name)));
}

Napi::Value RtnlSocket::Link(const Napi::CallbackInfo& info) { return LinkCall(info, "link", RtnlLinkCall::kGet); }

Napi::Value RtnlSocket::CreateDummyLink(const Napi::CallbackInfo& info) {
  return LinkCall(info, "createDummyLink", RtnlLinkCall::kCreateDummy);
}

Napi::Value RtnlSocket::DeleteLink(const Napi::CallbackInfo& info) { return LinkCall(info, "deleteLink", RtnlLinkCall::kDelete); }

// The ops are copied out of the Buffer here (24 bytes each, checked), so the worker needs no
// reference to it.
Napi::Value RtnlSocket::ApplyAddresses(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsBuffer()) {
    ThrowType(env, "ops must be a Buffer");
    return env.Undefined();
  }
  auto buf = info[0].As<Napi::Buffer<uint8_t>>();
  std::vector<rtnl::AddrOp> ops;
  std::string err;
  if (!rtnl::DecodeAddrOps(buf.Data(), buf.Length(), &ops, &err)) {
    ThrowRange(env, err);
    return env.Undefined();
  }
  if (!Acquire(env, "applyAddresses")) return env.Undefined();
  return QueueWorker(new RtnlApplyWorker(env, this, gate_.sock(), std::move(ops)));
}

Napi::Value RtnlSocket::Addresses(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  double index = 0;
  if (info.Length() > 0 && !info[0].IsUndefined() && !info[0].IsNull() && !IntegerValue(info[0], 1, 2147483647.0, &index)) {
    ThrowRange(env, "linkIndex must be an integer in 1..2147483647");
    return env.Undefined();
  }
  if (!Acquire(env, "addresses")) return env.Undefined();
  return QueueWorker(new RtnlAddrDumpWorker(env, this, gate_.sock(), int32_t(index)));
}

Napi::Value RtnlSocket::Close(const Napi::CallbackInfo& info) {
  gate_.Close();
  return info.Env().Undefined();
}

}  // namespace kpn
