#include "napi/ipvs_socket.h"

#include <linux/netlink.h>

#include "ipvs/op_decoder.h"
#include "napi/args.h"
#include "napi/errors.h"
#include "napi/ipvs_workers.h"

namespace kpn {

namespace {

// Argument 0: a Buffer (else a TypeError naming it `name`) that `decode` accepts (else a RangeError
// naming the op and field).
template <typename T>
bool DecodedArg(const Napi::CallbackInfo& info, const char* name, bool (*decode)(const uint8_t*, size_t, T*, DecodeError*),
                T* out) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsBuffer()) return ThrowType(env, std::string(name) + " must be a Buffer");
  auto buf = info[0].As<Napi::Buffer<uint8_t>>();
  DecodeError err;
  if (!decode(buf.Data(), buf.Length(), out, &err)) return ThrowRange(env, ipvs::DescribeDecodeError(err));
  return true;
}

// The op buffer argument, decoded and checked completely.
bool OpsArg(const Napi::CallbackInfo& info, std::vector<ipvs::Op>* ops) { return DecodedArg(info, "buf", ipvs::DecodeOps, ops); }

bool ServiceKeyArg(const Napi::CallbackInfo& info, ipvs::ServiceKey* key) {
  return DecodedArg(info, "key", ipvs::DecodeServiceKey, key);
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
  gate_.Open(info, NETLINK_GENERIC, "NETLINK_GENERIC");
}

bool IpvsSocket::Acquire(Napi::Env env, const char* method, bool needFamily) {
  const char* notReady = needFamily && familyId_ == 0 ? "the IPVS family is not resolved (call resolveFamily first)" : nullptr;
  return gate_.Acquire(env, "IpvsSocket", method, notReady);
}

Napi::Value IpvsSocket::ResolveFamily(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "resolveFamily", false)) return env.Undefined();
  return QueueWorker(new IpvsResolveWorker(env, this, gate_.sock(), 0));
}

Napi::Value IpvsSocket::Apply(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<ipvs::Op> ops;
  if (!OpsArg(info, &ops) || !Acquire(env, "apply")) return env.Undefined();
  return QueueWorker(new IpvsApplyWorker(env, this, gate_.sock(), familyId_, std::move(ops)));
}

Napi::Value IpvsSocket::Dump(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "dump")) return env.Undefined();
  return QueueWorker(new IpvsDumpWorker(env, this, gate_.sock(), familyId_));
}

Napi::Value IpvsSocket::DumpDestinations(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ipvs::ServiceKey key;
  if (!ServiceKeyArg(info, &key) || !Acquire(env, "dumpDestinations")) return env.Undefined();
  return QueueWorker(new IpvsDestsWorker(env, this, gate_.sock(), familyId_, key));
}

Napi::Value IpvsSocket::GetTimeouts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "getTimeouts")) return env.Undefined();
  return QueueWorker(new IpvsTimeoutsWorker(env, this, gate_.sock(), familyId_, false, ipvs::Timeouts{}));
}

Napi::Value IpvsSocket::SetTimeouts(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ipvs::Timeouts t;
  if (!TimeoutArg(info, 0, "tcp", &t.tcp) || !TimeoutArg(info, 1, "tcpFin", &t.tcpFin) ||
      !TimeoutArg(info, 2, "udp", &t.udp) || !Acquire(env, "setTimeouts")) {
    return env.Undefined();
  }
  return QueueWorker(new IpvsTimeoutsWorker(env, this, gate_.sock(), familyId_, true, t));
}

Napi::Value IpvsSocket::Close(const Napi::CallbackInfo& info) {
  gate_.Close();
  return info.Env().Undefined();
}

}  // namespace kpn
