// ipsetDestroy(netnsPath, names): Promise<{ name, errno, message }[]> (errno 0 = destroyed).
// Arguments are validated synchronously (throws); the netlink work runs on a worker thread.
#pragma once
#include <napi.h>

namespace kpn {

Napi::Value IpsetDestroy(const Napi::CallbackInfo& info);

}  // namespace kpn
