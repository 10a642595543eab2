#include "napi/nft_socket.h"

#include <linux/netlink.h>

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
  if (gate_.Open(info, NETLINK_NETFILTER, "NETLINK_NETFILTER")) portId_ = gate_.sock()->portid();
}

Napi::Value NftSocket::Commit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Transaction txn;
  if (!TransactionArg(info, 0, "buf", &txn) || !Acquire(env, "commit")) return env.Undefined();
  // The worker reads the buffer's ops again while it encodes them (no copy of the transaction).
  return QueueWorker(new CommitWorker(env, this, gate_.sock(), std::move(txn), info[0].As<Napi::Buffer<uint8_t>>()));
}

Napi::Value NftSocket::ListTables(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "listTables")) return env.Undefined();
  return QueueWorker(new ListTablesWorker(env, this, gate_.sock()));
}

Napi::Value NftSocket::Generation(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!Acquire(env, "generation")) return env.Undefined();
  return QueueWorker(new GenerationWorker(env, this, gate_.sock()));
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
  return QueueWorker(new DumpTableWorker(env, this, gate_.sock(), family, std::move(name), withElements));
}

Napi::Value NftSocket::Close(const Napi::CallbackInfo& info) {
  gate_.Close();
  return info.Env().Undefined();
}

Napi::Value NftSocket::PortId(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), portId_); }

}  // namespace kpn
