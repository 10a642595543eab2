// The IpvsSocket JavaScript class: a NETLINK_GENERIC socket in a chosen netns speaking the IPVS
// family. resolveFamily() must succeed first (it finds the family's id; ENOENT when the kernel has
// no IPVS); then apply/dump/dumpDestinations/getTimeouts/setTimeouts, each on a worker thread,
// one at a time; close() is deferred while one runs.
#pragma once
#include <napi.h>

#include "napi/socket_gate.h"

namespace kpn {

class IpvsSocket : public Napi::ObjectWrap<IpvsSocket> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  explicit IpvsSocket(const Napi::CallbackInfo& info);

  // Workers call these when they finish (on the main thread).
  void OperationDone() { gate_.OperationDone(); }
  void SetFamilyId(uint16_t id) { familyId_ = id; }

 private:
  Napi::Value ResolveFamily(const Napi::CallbackInfo& info);
  Napi::Value Apply(const Napi::CallbackInfo& info);
  Napi::Value Dump(const Napi::CallbackInfo& info);
  Napi::Value DumpDestinations(const Napi::CallbackInfo& info);
  Napi::Value GetTimeouts(const Napi::CallbackInfo& info);
  Napi::Value SetTimeouts(const Napi::CallbackInfo& info);
  Napi::Value Close(const Napi::CallbackInfo& info);

  // Throws (and returns false) if closed, busy or (needFamily) not resolved; else marks it busy.
  bool Acquire(Napi::Env env, const char* method, bool needFamily = true);

  SocketGate gate_;
  uint16_t familyId_ = 0;
};

}  // namespace kpn
