#include "napi/nft_socket.h"

#include <linux/netlink.h>

#include "napi/args.h"
#include "napi/errors.h"
#include "napi/nft_workers.h"
#include "nft/rule_match.h"
#include "txn/decoder.h"

namespace kpn {

void NftSocket::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function cls = DefineClass(env, "NftSocket", {
    InstanceMethod<&NftSocket::Commit>("commit"),
    InstanceMethod<&NftSocket::ListTables>("listTables"),
    InstanceMethod<&NftSocket::DumpTable>("dumpTable"),
    InstanceMethod<&NftSocket::Generation>("generation"),
    InstanceMethod<&NftSocket::GetElements>("getElements"),
    InstanceMethod<&NftSocket::DumpChain>("dumpChain"),
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
  std::string onlySet;
  if (info.Length() > 3 && !info[3].IsUndefined() && !StringArg(info, 3, "onlySet", 1, 255, &onlySet)) return env.Undefined();
  if (!Acquire(env, "dumpTable")) return env.Undefined();
  return QueueWorker(new DumpTableWorker(env, this, gate_.sock(), family, std::move(name), withElements, std::move(onlySet)));
}

namespace {

// NFT_DATA_VALUE_MAXLEN: the longest key the kernel takes.
constexpr size_t kMaxKeyBytes = 64;
constexpr uint32_t kMaxKeys = 65536;

// keys: an array of 1..kMaxKeys Buffers of 1..kMaxKeyBytes bytes each, copied out.
bool KeysArg(const Napi::CallbackInfo& info, size_t index, std::vector<Bytes>* out) {
  Napi::Env env = info.Env();
  if (info.Length() <= index || !info[index].IsArray()) {
    ThrowType(env, "keys must be an array of Buffers");
    return false;
  }
  Napi::Array keys = info[index].As<Napi::Array>();
  if (keys.Length() == 0 || keys.Length() > kMaxKeys) {
    ThrowRange(env, "keys must hold 1.." + std::to_string(kMaxKeys) + " keys, got " + std::to_string(keys.Length()));
    return false;
  }
  for (uint32_t i = 0; i < keys.Length(); i++) {
    Napi::Value k = keys.Get(i);
    const std::string arg = "keys[" + std::to_string(i) + "]";
    if (!k.IsBuffer()) {
      ThrowType(env, arg + " must be a Buffer");
      return false;
    }
    Napi::Buffer<uint8_t> b = k.As<Napi::Buffer<uint8_t>>();
    if (b.Length() == 0 || b.Length() > kMaxKeyBytes) {
      ThrowRange(env, arg + " must be 1.." + std::to_string(kMaxKeyBytes) + " bytes long, got " + std::to_string(b.Length()));
      return false;
    }
    out->emplace_back(b.Data(), b.Data() + b.Length());
  }
  return true;
}

// The addRule ops of `chain` in the transaction Buffer at `index`, encoded as the commit would.
bool ExpectedRulesArg(const Napi::CallbackInfo& info, size_t index, const std::string& chain, std::vector<ExpectedRule>* out) {
  Transaction txn;
  if (!TransactionArg(info, index, "expected", &txn)) return false;
  Op scratch;
  for (size_t i = 0; i < txn.size(); i++) {
    const Op* op = OpAt(txn, i, &scratch);
    if (!op) {
      ThrowRange(info.Env(), "expected: op " + std::to_string(i) + " does not decode");
      return false;
    }
    if (op->code != OpCode::kAddRule || op->chain != chain) continue;
    out->push_back(ExpectedRule{nft::EncodeRuleExprs(op->exprs), op->userdata});
  }
  return true;
}

}  // namespace

Napi::Value NftSocket::GetElements(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint8_t family;
  std::string table, set;
  std::vector<Bytes> keys;
  if (!FamilyArg(info, 0, "family", &family) || !StringArg(info, 1, "table", 1, 255, &table) ||
      !StringArg(info, 2, "set", 1, 255, &set) || !KeysArg(info, 3, &keys)) {
    return env.Undefined();
  }
  if (!Acquire(env, "getElements")) return env.Undefined();
  return QueueWorker(new GetElementsWorker(env, this, gate_.sock(), family, std::move(table), std::move(set), std::move(keys)));
}

Napi::Value NftSocket::DumpChain(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  uint8_t family;
  std::string table, chain;
  if (!FamilyArg(info, 0, "family", &family) || !StringArg(info, 1, "table", 1, 255, &table) ||
      !StringArg(info, 2, "chain", 1, 255, &chain)) {
    return env.Undefined();
  }
  bool compare = info.Length() > 3 && !info[3].IsUndefined();
  std::vector<ExpectedRule> expected;
  if (compare && !ExpectedRulesArg(info, 3, chain, &expected)) return env.Undefined();
  if (!Acquire(env, "dumpChain")) return env.Undefined();
  return QueueWorker(new DumpChainWorker(env, this, gate_.sock(), family, std::move(table), std::move(chain), compare,
                                         std::move(expected)));
}

Napi::Value NftSocket::Close(const Napi::CallbackInfo& info) {
  gate_.Close();
  return info.Env().Undefined();
}

Napi::Value NftSocket::PortId(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), portId_); }

}  // namespace kpn
