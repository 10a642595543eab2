// Module entry: exports NftSocket, NftMonitor, RtnlSocket, conntrackDelete, conntrackList, conntrackStats (+ decodeConntrackStats), ipsetDestroy and the functions
// below (validateTransaction, groupNotifications, errnoName, releaseFreeMemory, memoryPressureGc).
#include <napi.h>
#include <v8.h>

#include <malloc.h>

#include <algorithm>
#include <vector>

#include "napi/args.h"
#include "napi/conntrack_delete.h"
#include "napi/conntrack_list.h"
#include "napi/conntrack_stats.h"
#include "napi/errors.h"
#include "napi/ipset_destroy.h"
#include "napi/ipvs_socket.h"
#include "napi/monitor_args.h"
#include "napi/monitor_events.h"
#include "napi/nft_monitor.h"
#include "napi/nft_socket.h"
#include "napi/rtnl_socket.h"
#include "nft/notify_commits.h"

namespace kpn {
namespace {

// releaseFreeMemory(): gives the C library's free heap memory back to the kernel (malloc_trim).
// A full sync's buffers (the transaction and its netlink batch, ~150 MB at 44k Services) are
// freed after the commit but glibc keeps the pages; TypeScript decides when this is worth a call.
Napi::Value ReleaseFreeMemory(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), malloc_trim(0) == 1);
}

// memoryPressureGc(): a full garbage collection as V8 runs it under critical memory pressure. Unlike
// gc() it hands the free space inside the heap's pages back to the kernel as it sweeps (V8 does
// that only when reducing memory), so a heap grown by a full sync drops to about its live size in
// RSS (44k: ~150 MiB of free space in pages stayed resident after gc()). The level is set back at
// once, so V8 does not go on optimising for memory. Node offers no N-API for this; the V8 call is
// the one place the addon uses V8's own API (it is built against the Node it runs on).
Napi::Value MemoryPressureGc(const Napi::CallbackInfo& info) {
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  isolate->MemoryPressureNotification(v8::MemoryPressureLevel::kCritical);
  isolate->MemoryPressureNotification(v8::MemoryPressureLevel::kNone);
  return info.Env().Undefined();
}

// Decode-only validation: returns the op count or throws RangeError/TypeError.
Napi::Value ValidateTransaction(const Napi::CallbackInfo& info) {
  Transaction txn;
  if (!TransactionArg(info, 0, "buf", &txn)) return info.Env().Undefined();
  return Napi::Number::New(info.Env(), double(txn.size()));
}

// The monitor's parsing and grouping without a socket, for tests: groupNotifications(datagrams:
// Buffer[], interest, ownPortIds) returns the events a reader would deliver for them (a commit
// still waiting for its NEWGEN at the end is reported as after the reader's timeout).
Napi::Value GroupNotifications(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<nft::TableRef> interest;
  std::vector<uint32_t> own;
  if (info.Length() < 1 || !info[0].IsArray()) {
    ThrowType(env, "datagrams must be an array of Buffers");
    return env.Undefined();
  }
  if (!InterestArg(info, 1, &interest) || !PortIdsArg(info, 2, &own)) return env.Undefined();
  std::sort(own.begin(), own.end());
  nft::CommitGrouper grouper(std::move(interest));
  std::vector<nft::CommitReport> reports;
  Napi::Array list = info[0].As<Napi::Array>();
  for (uint32_t i = 0; i < list.Length(); i++) {
    Napi::Value v = list.Get(i);
    if (!v.IsBuffer()) {
      ThrowType(env, "datagrams[" + std::to_string(i) + "] must be a Buffer");
      return env.Undefined();
    }
    auto buf = v.As<Napi::Buffer<uint8_t>>();
    grouper.Feed(buf.Data(), buf.Length(), own, &reports);
  }
  grouper.Flush(&reports);
  std::vector<MonitorEvent> events;
  for (auto& r : reports) events.push_back(MonitorEvent{MonitorEvent::Type::kCommit, std::move(r), 0, {}});
  napi_value out = MonitorEventsToJs(env, events);
  return out ? Napi::Value(env, out) : env.Undefined();
}

// errnoName(errno: integer 0..2^31-1): the name the addon's errors carry as `code` for it, so
// TypeScript names errnos with the same table.
Napi::Value ErrnoNameOf(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  double d;
  if (info.Length() < 1 || !info[0].IsNumber()) {
    ThrowType(env, "errno must be a number");
    return env.Undefined();
  }
  if (!IntegerValue(info[0], 0, 2147483647.0, &d)) {
    ThrowRange(env, "errno must be an integer in 0..2147483647");
    return env.Undefined();
  }
  return Napi::String::New(env, ErrnoName(int(d)));
}

}  // namespace
}  // namespace kpn

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) {
  kpn::NftSocket::Init(env, exports);
  kpn::NftMonitor::Init(env, exports);
  kpn::IpvsSocket::Init(env, exports);  // IpvsSocket, validateIpvsOps
  exports.Set("validateTransaction", Napi::Function::New(env, kpn::ValidateTransaction, "validateTransaction"));
  exports.Set("groupNotifications", Napi::Function::New(env, kpn::GroupNotifications, "groupNotifications"));
  exports.Set("errnoName", Napi::Function::New(env, kpn::ErrnoNameOf, "errnoName"));
  exports.Set("releaseFreeMemory", Napi::Function::New(env, kpn::ReleaseFreeMemory, "releaseFreeMemory"));
  exports.Set("memoryPressureGc", Napi::Function::New(env, kpn::MemoryPressureGc, "memoryPressureGc"));
  exports.Set("conntrackDelete", Napi::Function::New(env, kpn::ConntrackDelete, "conntrackDelete"));
  exports.Set("conntrackList", Napi::Function::New(env, kpn::ConntrackList, "conntrackList"));
  exports.Set("conntrackStats", Napi::Function::New(env, kpn::ConntrackStats, "conntrackStats"));
  exports.Set("decodeConntrackStats", Napi::Function::New(env, kpn::DecodeConntrackStats, "decodeConntrackStats"));  // tests
  kpn::RtnlSocket::Init(env, exports);  // rtnetlink: links and addresses (IPVS mode)
  exports.Set("ipsetDestroy", Napi::Function::New(env, kpn::IpsetDestroy, "ipsetDestroy"));  // --cleanup
  return exports;
}

NODE_API_MODULE(kube_proxy_native, InitAddon)
