// Module entry: exports NftSocket, NftMonitor, validateTransaction and (when present) the conntrack API.
#include <napi.h>

#include "js_args.h"
#include "nft_monitor.h"
#include "nft_socket.h"

#if __has_include("conntrack/conntrack_init.h")
#include "conntrack/conntrack_init.h"
#define KPN_HAVE_CONNTRACK 1
#endif

namespace kpn {
namespace {

// Decode-only validation: returns the op count or throws RangeError/TypeError.
Napi::Value ValidateTransaction(const Napi::CallbackInfo& info) {
  Transaction txn;
  if (!TransactionArg(info, 0, "buf", &txn)) return info.Env().Undefined();
  return Napi::Number::New(info.Env(), double(txn.ops.size()));
}

}  // namespace
}  // namespace kpn

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) {
  kpn::NftSocket::Init(env, exports);
  kpn::NftMonitor::Init(env, exports);
  exports.Set("validateTransaction", Napi::Function::New(env, kpn::ValidateTransaction, "validateTransaction"));
#ifdef KPN_HAVE_CONNTRACK
  InitConntrack(env, exports);
#endif
  return exports;
}

NODE_API_MODULE(kube_proxy_native, InitAddon)
